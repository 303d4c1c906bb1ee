"""Issue 13, "faster than the reference": the API documents' plans, feature locks and extra tabs
are memoised (plan.plan_of's figures per recipe, feature states per process and choices, locks,
extra tabs' text) and the memos are emptied after each recipe. They must change nothing: every
rendering's published plan, lock and extra tabs equal those computed afresh with empty memos."""
from __future__ import annotations

import dataclasses

from recipes_site import fit, plan
from recipes_site.render import picker
from recipes_site.render.api import RecipeInput, hw_doc_path, recipe_documents
from recipes_site.synthesis import synthesize_recipe
from recipes_site.synthesis.choices import FeatureChoice, feature_choices
from recipes_site.synthesis.types import KvStore, Process, Rendering


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


# -- picker memos whose keys are not the values themselves ----------------------------------------

SEP = " \\\n  "


def _rendering(config=None, lines=("vllm serve m", "--a 1", "--b")) -> Rendering:
    p = Process(argv=("vllm", "serve", "m"), command=SEP.join(lines), env={}, docker_argv=(),
                docker_command=SEP.join(("docker run img",) + lines[1:]), lines_before=lines[1:2])
    kv = KvStore(serving_strategy="single_node_tp", instances=1, min_vllm_version=None, head=p, workers=(),
                 install=None, master=None, store=None, router=None, config=config, config_note=None)
    return Rendering(hardware="h200", strategy="kv", variant="default", node_count=1,
                     deploy_type="kv_store_lb", env={}, docker_image="img", kv=kv)


def test_extra_tabs_read_a_config_edited_between_two_recipes_again():
    config = {"port": 1}
    r = _rendering(config)
    first = picker._extras_entry(r)[0]
    config["port"] = 2                  # the same dict object, changed (the memo keys on identity)
    picker.clear_memos()                # as api.recipe_documents does after each recipe
    assert picker._extras_entry(r)[0] != first
    assert picker._extras_entry(r)[0] == picker._CANONICAL(picker._extras(r))


def test_extra_tabs_of_configs_equal_in_python_but_printed_apart_differ():
    texts = [picker._extras_entry(_rendering({"x": value}))[0] for value in (1, True, 1.0, "1")]
    assert len(set(texts)) == 4
    assert texts == [picker._CANONICAL(picker._extras(_rendering({"x": v}))) for v in (1, True, 1.0, "1")]


def test_a_lock_is_kept_per_feature_set_not_per_command():
    r = _rendering()                    # fixed line "--a 1", feature block "--b"
    free = (FeatureChoice("b", "B", "", True, None, ("--b",)),)
    clash = (FeatureChoice("a", "A", "", True, None, ("--a 2",)),)   # --a is also a fixed line
    texts = {c: picker._interned(c)[1] for c in (free, clash)}
    assert picker.features_locked(free, r, texts[free]) is False
    assert picker.features_locked(clash, r, texts[clash]) is True
    assert picker.features_locked(clash, r) is True and picker.features_locked(free, r) is False
    other = _rendering(lines=("vllm serve m", "--c 1", "--b"))     # same choices, other fixed line
    assert picker.features_locked(clash, other, texts[clash]) is False
    unsplit = _rendering(lines=("vllm serve m", "--a 1", "--b"))
    unsplit = dataclasses.replace(unsplit, kv=dataclasses.replace(unsplit.kv, head=dataclasses.replace(
        unsplit.kv.head, lines_before=("--z",))))                   # not the command's lines: no join
    assert picker.features_locked(free, unsplit, texts[free]) is True
