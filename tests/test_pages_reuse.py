"""Issue 13, "faster than the reference": a model page may reuse work the build has done for the
recipe's API files (`recipe_pages(..., encoded=...)`: the picker data splices in the default
hardware document's JSON text). The page must be the same bytes as one made without it."""
from __future__ import annotations

import json

from recipes_site.render import pages
from recipes_site.render.api import RecipeInput, recipe_documents
from recipes_site.synthesis import synthesize_recipe
from recipes_site.write import encode_json


def test_pages_given_the_encoded_api_files_equal_pages_made_without(catalog, ctx):
    spliced = 0
    for doc in catalog.recipes:
        rec = RecipeInput(doc.hf_id, doc.data, synthesize_recipe(ctx, doc.hf_id, doc.data, catalog.index.ids))
        docs, _ = recipe_documents(rec, ctx)
        files = {path: encode_json(d) for path, d in docs.items()}
        assert pages.recipe_pages(catalog, rec, ctx, docs, encoded=files) == pages.recipe_pages(catalog, rec, ctx, docs), doc.hf_id
        spliced += bool(rec.rendered.trees)
    assert spliced > 10


def test_picker_json_with_the_initial_documents_text_equals_script_json():
    data = {"id": "a/b", "initial": {"renderings": [{"x": 1.5, "s": "</script> & \u2028 é"}], "n": None},
            "reasons": {"fp8": {"h100": "<b>"}}, "kv": True, "labels": {}}
    text = encode_json(data["initial"])[:-1].decode("utf-8")
    assert pages.picker_json(data, text) == pages.script_json(data)
    assert pages.picker_json(data) == pages.script_json(data)
    assert "</script>" not in pages.picker_json(data, text)
    # the spliced text is what goes in: a different text shows (the test above can fail)
    other = json.dumps({"renderings": []}, separators=(",", ":"))
    assert pages.picker_json(data, other) != pages.script_json(data)
