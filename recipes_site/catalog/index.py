"""Catalog-wide lookups, computed once per catalog instead of once per recipe.

Why: a check or a page of one recipe that scans every recipe (the set of known ids, the recipes
of its provider, the site's page paths) makes a build quadratic: at ten thousand recipes those
scans cost more than everything else together. Each lookup here is built in one pass over the
catalog on first use (`Catalog.index`, a cached property) and then answered from a dict; forked
build workers inherit the finished index from the parent.

Everything is derived from the catalog alone and in its traversal order, so answers (titles,
provider names, the order of "more from this provider") are the ones the former scans gave.
"""

from __future__ import annotations

from collections import Counter
from functools import cached_property


def _mapping(value) -> dict:
    return value if isinstance(value, dict) else {}


def title_of(doc) -> str:
    """A recipe's display title: meta.title, else its id."""
    return str(_mapping(doc.data.get("meta")).get("title") or doc.hf_id)


def org_of(hf_id: str) -> str:
    return hf_id.split("/", 1)[0]


class CatalogIndex:
    """Dicts over one catalog's recipes (see the module docstring)."""

    def __init__(self, catalog):
        self._catalog = catalog
        self.by_id = {
            d.hf_id: d for d in catalog.recipes
        }  # the last of duplicate ids wins, as before
        self.ids = frozenset(self.by_id)  # the standalone recipe ids
        self.ids_lower = frozenset(i.lower() for i in self.ids)
        self._by_org: dict[str, list] = {}
        for d in catalog.recipes:
            self._by_org.setdefault(org_of(d.hf_id), []).append(d)

    def provider_name(self, org: str) -> str:
        """The provider most of the org's recipes name (ties: the alphabetically first), else the org."""
        return self._providers.get(org, org)

    @cached_property
    def _providers(self) -> dict[str, str]:
        out = {}
        for org, docs in self._by_org.items():
            names = [
                str(n) for n in (_mapping(d.data.get("meta")).get("provider") for d in docs) if n
            ]
            if names:
                counts = Counter(names)
                out[org] = max(sorted(counts), key=counts.__getitem__)
        return out

    @cached_property
    def _org_listing(self) -> dict[str, list[tuple[str, str]]]:
        """org -> (id, title) of its recipes sorted by lowercased title (stable: catalog order on ties)."""
        return {
            org: sorted(((d.hf_id, title_of(d)) for d in docs), key=lambda x: x[1].lower())
            for org, docs in self._by_org.items()
        }

    def more_from_provider(
        self, org: str, exclude: set[str], limit: int = 6
    ) -> list[tuple[str, str]]:
        """Up to `limit` (id, title) of the org's recipes not in `exclude`, by title."""
        out = []
        for hf_id, title in self._org_listing.get(org, ()):
            if hf_id not in exclude:
                out.append((hf_id, title))
                if len(out) == limit:
                    break
        return out

    def related(self, hf_id: str, wanted) -> list[tuple[str, str]]:
        """(id, title) of the listed related recipes that exist, other than the recipe itself."""
        return [
            (h, title_of(self.by_id[h]))
            for h in wanted or []
            if isinstance(h, str) and h in self.by_id and h != hf_id
        ]

    @cached_property
    def site_paths(self) -> frozenset[str]:
        """Page paths (no slashes around) every build has: home, hardware, providers, recipes and
        the checkpoint redirects (`render.pages._Catalog.checkpoint_redirects` makes the same set)."""
        ids = self.ids
        paths = (
            {"", "hardware"} | {f"hardware/{h}" for h in self._catalog.hardware_profiles()} | ids
        )
        paths |= {org_of(i) for i in ids}
        for d in self._catalog.recipes:
            for v in _mapping(d.data.get("variants")).values():
                mid = _mapping(v).get("model_id")
                if isinstance(mid, str) and mid.count("/") == 1 and mid not in ids:
                    paths.add(mid)
        return frozenset(paths)

    @cached_property
    def hardware_vocabulary(self):
        """The taxonomy's profile ids, generations and brands (checks.HardwareVocabulary), which
        every recipe's hardware checks read."""
        from recipes_site.catalog.checks import HardwareVocabulary

        return HardwareVocabulary.from_catalog(self._catalog)

    @cached_property
    def names(self):
        """The did-you-mean index over recipe ids (suggest.NameIndex)."""
        from recipes_site.suggest import NameIndex

        return NameIndex(sorted(self.ids))
