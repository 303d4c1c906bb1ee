"""Issue 13 "linear": structural checks that no per-recipe step scans the whole catalog (no timing:
speed figures live in benchmarks/scale_bench.py)."""

from __future__ import annotations

import difflib

from recipes_site import suggest
from recipes_site.catalog import PROJECT_ROOT, load_catalog
from recipes_site.catalog.index import CatalogIndex


def test_a_related_recipe_typo_is_matched_against_a_few_ids_not_all(monkeypatch):
    ids = [f"acme/model-{k}-instruct" for k in range(5000)]
    index = suggest.NameIndex(ids)
    compared = []

    class Counting(difflib.SequenceMatcher):
        def __init__(self, isjunk=None, a="", b="", autojunk=True):
            compared.append(b)
            super().__init__(isjunk, a, b, autojunk)

    monkeypatch.setattr(suggest.difflib, "SequenceMatcher", Counting)
    assert index.close("acme/model-4321-instruc") == ["acme/model-4321-instruct"]
    assert index.close("acme/model-4321-intsruct") == ["acme/model-4321-instruct"]
    assert 0 < len(compared) <= 10
    compared.clear()
    assert index.close("other/entirely-different") == [] and len(compared) == 0


def test_loading_builds_the_catalog_index_once(monkeypatch):
    built = []
    original = CatalogIndex.__init__

    def counting(self, catalog):
        built.append(catalog)
        original(self, catalog)

    monkeypatch.setattr(CatalogIndex, "__init__", counting)
    catalog, _ = load_catalog(PROJECT_ROOT)
    assert len(catalog.recipes) > 10 and len(built) == 1
    assert catalog.index is catalog.index


class _Scans:
    """Counts full passes over the catalog's collections (recipes, ids, page paths)."""

    def __init__(self):
        self.count = 0

    def wrap(self, base: type, values):
        scans = self

        class Counting(base):
            def __iter__(self):
                scans.count += 1
                return super().__iter__()

            if base is list:  # `x in a_list` is a scan too (sets and dicts answer `in` by hash)

                def __contains__(self, item):
                    scans.count += 1
                    return super().__contains__(item)

            if base is dict:

                def keys(self):
                    scans.count += 1
                    return super().keys()

                def values(self):
                    scans.count += 1
                    return super().values()

                def items(self):
                    scans.count += 1
                    return super().items()

        return Counting(values)


def test_no_per_recipe_step_scans_the_catalog():
    """What the build does for each recipe (its cache key's neighbours, synthesis, API documents,
    pages) answers every catalog-wide question from the index built once, never by a pass over
    all recipes, ids or page paths: one such pass per recipe makes the build quadratic."""
    from recipes_site.build import recipe_files, recipe_neighbours, synthesis_context

    catalog, _ = load_catalog(PROJECT_ROOT)
    index = catalog.index
    (
        index.site_paths,
        index.names,
        index.provider_name("Qwen"),
        index.more_from_provider("Qwen", set()),
    )  # built once
    scans = _Scans()
    object.__setattr__(catalog, "recipes", scans.wrap(list, catalog.recipes))
    index.by_id = scans.wrap(dict, index.by_id)
    index.ids = scans.wrap(frozenset, index.ids)
    index.__dict__["site_paths"] = scans.wrap(frozenset, index.site_paths)
    ctx = synthesis_context(catalog)
    picked = [
        i
        for i, d in enumerate(catalog.recipes)
        if d.hf_id.startswith("Qwen/") and d.data["meta"].get("related_recipes")
    ][:2]
    assert picked and scans.count == 1  # that pass, counted
    scans.count = 0
    for i in picked:
        doc = catalog.recipes[i]
        related, more, provider, _standalone, _results = recipe_neighbours(catalog, doc)
        assert related and more and provider  # the neighbours are really looked up
        files, _summary = recipe_files(catalog, i, ctx=ctx)
        assert f"{doc.hf_id}/index.html" in files
    assert scans.count == 0
    catalog.recipe(catalog.recipes[-1].hf_id)  # a scan by id (Catalog.recipe) is counted
    assert scans.count == 1
