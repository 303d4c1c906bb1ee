"""Catalog-wide lookups, computed once per catalog instead of once per recipe.

Why: a check or a page of one recipe that scans every recipe (the set of known ids, the recipes
of its provider, the site's page paths) makes a build quadratic: at ten thousand recipes those
scans cost more than everything else together. Each lookup here is built in one pass over the
catalog on first use (`Catalog.index`, a cached property) and then answered from a dict; forked
build workers inherit the finished index from the parent.

Everything is derived from the catalog alone and in its traversal order, so answers (titles,
provider names, the order of "more from this provider") are the ones a scan would give.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property

from recipes_site.suggest import NameIndex


def _mapping(value) -> dict:
    return value if isinstance(value, dict) else {}


def title_of(doc) -> str:
    """A recipe's display title: meta.title, else its id."""
    return str(_mapping(doc.data.get("meta")).get("title") or doc.hf_id)


def org_of(hf_id: str) -> str:
    return hf_id.split("/", 1)[0]


# ---- hardware vocabulary ---------------------------------------------------------------------------

EXACT, GEN, NVIDIA, BRAND, DEFAULT = "exact", "gen", "nvidia", "brand", "default"
ALL_KINDS = frozenset((EXACT, GEN, NVIDIA, BRAND, DEFAULT))


@dataclass(frozen=True)
class HardwareVocabulary:
    profiles: tuple  # profile ids, taxonomy order
    generations: frozenset  # generation names (hopper, blackwell, amd, ...)
    brands: frozenset  # brand names as spelled in the taxonomy (NVIDIA, AMD, ...)
    brand_keys: frozenset  # lowercase brands (nvidia, amd, ...)

    @classmethod
    def from_profiles(cls, profiles: dict) -> HardwareVocabulary:
        """The vocabulary of the taxonomy's ``hardware_profiles`` (profile id -> spec)."""
        gens, brands = set(), set()
        for spec in profiles.values():
            spec = _mapping(spec)
            for key in ("generation", "gpu_generation"):
                gen = spec.get(key)
                for g in gen if isinstance(gen, list) else [gen]:
                    if isinstance(g, str):
                        gens.add(g)
            if isinstance(spec.get("brand"), str):
                brands.add(spec["brand"])
        return cls(
            tuple(profiles),
            frozenset(gens),
            frozenset(brands),
            frozenset(b.lower() for b in brands),
        )

    @property
    def known(self) -> bool:
        return bool(self.profiles)

    def kinds_of(self, key: str) -> set:
        kinds = set()
        if key in self.profiles:
            kinds.add(EXACT)
        if key in self.generations:
            kinds.add(GEN)
        if key in self.brand_keys:
            kinds.add(BRAND)
            if key == "nvidia":
                kinds.add(NVIDIA)
        if key == "default":
            kinds.add(DEFAULT)
        return kinds

    def keys_for(self, kinds) -> list:
        keys: list = []
        if EXACT in kinds:
            keys += list(self.profiles)
        if GEN in kinds:
            keys += sorted(self.generations)
        if BRAND in kinds:
            keys += sorted(self.brand_keys)
        elif NVIDIA in kinds:
            keys.append("nvidia")
        if DEFAULT in kinds:
            keys.append("default")
        return keys


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
    def hardware_vocabulary(self) -> HardwareVocabulary:
        """The taxonomy's profile ids, generations and brands, which every recipe's hardware
        checks read."""
        return HardwareVocabulary.from_profiles(self._catalog.hardware_profiles())

    @cached_property
    def names(self) -> NameIndex:
        """The did-you-mean index over recipe ids."""
        return NameIndex(sorted(self.ids))
