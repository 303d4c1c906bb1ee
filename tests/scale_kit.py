"""A synthetic big catalog for the bounded-pages tests (issue 13): the project's own recipes,
synthesized once, copied under new ids (`<org>/<repo>-s<k>`, titles "<title> s<k>") into N
summaries, then through the real catalog-wide steps (api.catalog_documents, pages.catalog_pages).

Why not a real build of N recipes: synthesis costs about a second per recipe here, and the pages
under test only read the summaries; the copies keep the real shapes (commands, hardware lists,
dates, precisions). The hardware set is cut to a few profiles to keep rendering fast."""

from __future__ import annotations

import copy
import functools
from types import SimpleNamespace

from recipes_site.build import synthesis_context, synthesize_catalog
from recipes_site.catalog import PROJECT_ROOT, load_catalog
from recipes_site.render.api import RecipeSummary, catalog_documents, recipe_documents
from recipes_site.render.pages import catalog_pages
from recipes_site.site_config import SiteConfig

HARDWARE = ("h100", "mi355x", "rtx_5090")


@functools.lru_cache(maxsize=1)
def project_summaries() -> tuple:
    catalog, _ = load_catalog(PROJECT_ROOT)
    ctx = synthesis_context(catalog)
    return catalog, tuple(recipe_documents(rec, ctx)[1] for rec in synthesize_catalog(catalog))


def copies(n: int) -> list[RecipeSummary]:
    """N summaries: the project's, round-robin, each under a new id."""
    _catalog, base = project_summaries()
    out = []
    for k in range(n):
        s = base[k % len(base)]
        new = f"{s.hf_id}-s{k}"
        entry = copy.deepcopy(s.model_entry)
        entry.update(
            id=new,
            title=f"{entry.get('title') or s.hf_id} s{k}",
            hardware=[h for h in entry["hardware"] if h in HARDWARE],
            links={**entry["links"], "page": f"/{new}/", "json": f"/api/v1/models/{new}.json"},
        )
        hw = {
            h: [dict(e, recipe=new, json=e["json"].replace(s.hf_id, new, 1)) for e in entries]
            for h, entries in s.hardware_entries.items()
            if h in HARDWARE
        }
        out.append(RecipeSummary(new, entry, [], hw))
    return out


def synthetic_site(
    n: int, summaries: list[RecipeSummary] | None = None
) -> tuple[dict[str, dict], dict[str, bytes]]:
    """(catalog-wide API documents, catalog-wide files) of N copies (or of `summaries`)."""
    catalog, _ = project_summaries()
    summaries = copies(n) if summaries is None else summaries
    taxonomy = {
        **catalog.taxonomy,
        "hardware_profiles": {h: catalog.hardware_profiles()[h] for h in HARDWARE},
    }
    docs = catalog_documents(summaries, taxonomy, {**catalog.strategies, **catalog.kv_stores})
    fake = SimpleNamespace(
        taxonomy=taxonomy,
        hardware_profiles=lambda: taxonomy["hardware_profiles"],
        recipes=[],
        strategies=catalog.strategies,
        kv_stores=catalog.kv_stores,
        root=PROJECT_ROOT,
        index=SimpleNamespace(provider_name=lambda org: org),
    )
    config = SiteConfig("https://git.example.org/team/recipes", "https://recipes.test")
    return docs, catalog_pages(fake, docs, config)
