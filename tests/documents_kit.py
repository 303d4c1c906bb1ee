"""Walks over built API documents that several tests share (a plain module: `conftest` names two
files in this suite, tests/ and tests/browser/, so helpers imported by name live here)."""

from recipes_site.render.api import RecipeInput, hw_doc_path, recipe_documents
from recipes_site.synthesis import synthesize_recipe


def published_renderings(catalog, ctx):
    """Every rendering the hardware documents of `catalog` publish, as the build makes them:
    (recipe input, the Rendering, its published JSON, its hardware document), recipe by recipe
    (the tests of the documents' memos compare each with a fresh computation)."""
    for doc in catalog.recipes:
        rec = RecipeInput(
            doc.hf_id, doc.data, synthesize_recipe(ctx, doc.hf_id, doc.data, catalog.index.ids)
        )
        docs, _ = recipe_documents(rec, ctx)
        for tree in rec.rendered.trees:
            for res in tree.by_hardware:
                hw_doc = docs[hw_doc_path(rec.hf_id, res.hardware)]
                published = {
                    (d["variant"], d["strategy"], d["node_count"]): d for d in hw_doc["renderings"]
                }
                for r in (res.recommended,) + res.alternatives:
                    yield rec, r, published[r.key], hw_doc
