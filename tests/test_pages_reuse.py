"""Issue 13, "faster than the reference": the model page's picker data is escaped for its
`<script>` tag on its UTF-8 bytes (`_script_safe_utf8`), the same bytes as escaping the text."""

from __future__ import annotations

from recipes_site.render import pages
from recipes_site.render.api import RecipeInput, recipe_documents
from recipes_site.synthesis import synthesize_recipe


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
