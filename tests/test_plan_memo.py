"""Issue 13, "faster than the reference": the API documents' plans, feature locks and extra tabs
are memoised (plan.plan_of's figures per recipe, feature states per process and choices, locks,
extra tabs' text) and the memos are emptied after each recipe. They must change nothing: every
rendering's published plan, lock and extra tabs equal those computed afresh with empty memos."""
from __future__ import annotations

from recipes_site import fit, plan
from recipes_site.render import picker
from recipes_site.render.api import RecipeInput, hw_doc_path, recipe_documents
from recipes_site.synthesis import synthesize_recipe
from recipes_site.synthesis.choices import feature_choices


def _forget() -> None:
    fit.clear_memos()
    plan.clear_memos()
    picker.clear_memos()


def test_memoised_documents_equal_a_fresh_computation(catalog, ctx):
    checked = with_states = 0
    for doc in catalog.recipes:
        rec = RecipeInput(doc.hf_id, doc.data, synthesize_recipe(ctx, doc.hf_id, doc.data, catalog.index.ids))
        docs, _ = recipe_documents(rec, ctx)
        for tree in rec.rendered.trees:
            for res in tree.by_hardware:
                hw_doc = docs[hw_doc_path(rec.hf_id, res.hardware)]
                published = {(d["variant"], d["strategy"], d["node_count"]): d for d in hw_doc["renderings"]}
                for r in (res.recommended,) + res.alternatives:
                    shown = published[r.key]
                    _forget()
                    choices = feature_choices(rec.data, ctx.hardware(r.hardware), r.variant, r.feature_strategy,
                                              with_kv_store=r.kv is not None)
                    locked = picker.features_locked(choices, r)
                    _forget()
                    fresh = plan.plan_json(rec.data, r, ctx.profiles.get(r.hardware) or {}, choices, locked)
                    where = (rec.hf_id, r.hardware, r.key)
                    assert shown["plan"] == fresh, where
                    assert shown["parts"]["features_locked"] == locked, where
                    assert hw_doc["extra_sets"][shown["parts"]["extras"]] == picker._extras(r), where
                    checked += 1
                    with_states += "by" in fresh
    assert checked > 1000 and with_states > 10, (checked, with_states)
