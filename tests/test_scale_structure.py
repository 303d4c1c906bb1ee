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
