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
        rec = RecipeInput(
            doc.hf_id, doc.data, synthesize_recipe(ctx, doc.hf_id, doc.data, catalog.index.ids)
        )
        docs, _ = recipe_documents(rec, ctx)
        files = {path: encode_json(d) for path, d in docs.items()}
        assert pages.recipe_pages(catalog, rec, ctx, docs, encoded=files) == pages.recipe_pages(
            catalog, rec, ctx, docs
        ), doc.hf_id
        spliced += bool(rec.rendered.trees)
    assert spliced > 10


def test_picker_json_with_the_initial_documents_text_equals_script_json():
    data = {
        "id": "a/b",
        "initial": {"renderings": [{"x": 1.5, "s": "</script> & \u2028 \u2029 é"}], "n": None},
        "reasons": {"fp8": {"h100": "<b> & ×"}},
        "kv": True,
        "labels": {},
    }
    expected = str(pages.script_json(data)).encode("utf-8")
    initial = encode_json(data["initial"])[:-1]
    assert pages.picker_json(data, initial) == expected
    assert (
        pages.picker_json(data, memoryview(initial + b"\n")[:-1]) == expected
    )  # (as recipe_pages hands the file)
    assert pages.picker_json(data) == expected
    assert pages.picker_json({"initial": data["initial"]}, initial) == str(
        pages.script_json({"initial": data["initial"]})
    ).encode("utf-8")
    assert b"</script>" not in expected and b"\\u2028" in expected and b"\\u0026" in expected
    # the spliced text is what goes in: a different text shows (the test above can fail)
    other = json.dumps({"renderings": []}, separators=(",", ":")).encode("utf-8")
    assert pages.picker_json(data, other) != expected


def test_script_safe_on_utf8_equals_script_safe_on_text():
    for text in [
        "",
        "plain",
        "</script><!-- & -->",
        "\u2028\u2029",
        "é×·–\u2028<\u2029>&",
        "\U0001f600 <",
        "\u2027\u202a",
        "– only a lead byte E2",
        "x" * 5000 + "\u2029",
        "\u2028" + "y" * 5000,
    ]:
        assert pages._script_safe_utf8(text.encode("utf-8")) == str(
            pages._script_safe(text)
        ).encode("utf-8"), text


def test_model_page_is_the_same_when_its_slot_text_occurs_elsewhere(catalog, ctx, monkeypatch):
    """The page is rendered around a slot the picker data's bytes fill; a slot text the page holds
    more than once falls back to rendering the data in the template: the same page."""
    doc = next(d for d in catalog.recipes if d.data.get("variants"))
    rec = RecipeInput(
        doc.hf_id, doc.data, synthesize_recipe(ctx, doc.hf_id, doc.data, catalog.index.ids)
    )
    docs, _ = recipe_documents(rec, ctx)
    path = f"{rec.hf_id}/index.html"
    page = pages.recipe_pages(catalog, rec, ctx, docs)[path]
    assert page.count(b'<script type="application/json" id="picker-data">{"') == 1
    for slot in ("<h2", "</section>"):  # in every model page, several times
        monkeypatch.setattr(pages, "_SCRIPT_SLOT", slot)
        monkeypatch.setattr(pages, "_SCRIPT_SLOT_UTF8", slot.encode("utf-8"))
        assert pages.recipe_pages(catalog, rec, ctx, docs)[path] == page, slot
