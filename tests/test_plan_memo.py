"""The API documents' plans, feature locks and extra tabs are worked out from what a recipe's
renderings share (plan.RecipePlans: a variant's model facts, the tokens of its command lines;
picker: locks, extra tabs' text, emptied after each recipe). They must change nothing: every
rendering's published plan, lock and extra tabs equal those computed afresh for it alone."""

from __future__ import annotations

import dataclasses
import json

import synthesis_kit
from documents_kit import published_renderings

from recipes_site import fit, plan, sizing
from recipes_site.render import picker
from recipes_site.render.api import RecipeInput
from recipes_site.render.rendering_json import rendering_json
from recipes_site.synthesis import synthesize_recipe
from recipes_site.synthesis.choices import FeatureChoice, feature_choices
from recipes_site.synthesis.memo import synthesizing
from recipes_site.synthesis.recording import Recording
from recipes_site.synthesis.types import KvStore, Process, Rendering


def _forget() -> None:
    picker.clear_memos()


def test_memoised_documents_equal_a_fresh_computation(catalog, ctx):
    checked = with_states = 0
    for rec, r, shown, hw_doc in published_renderings(catalog, ctx):
        _forget()
        choices = feature_choices(
            rec.data,
            ctx.hardware(r.hardware),
            r.variant,
            r.feature_strategy,
            with_kv_store=r.kv is not None,
        )
        locked = picker.features_locked(choices, r)
        _forget()
        fresh = plan.plan_json(
            plan.RecipePlans(rec.data), r, ctx.profiles.get(r.hardware) or {}, choices, locked
        )
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
    p = Process(
        argv=("vllm", "serve", "m"),
        command=SEP.join(lines),
        env={},
        docker_argv=(),
        docker_command=SEP.join(("docker run img",) + lines[1:]),
        lines_before=lines[1:2],
    )
    kv = KvStore(
        serving_strategy="single_node_tp",
        instances=1,
        min_vllm_version=None,
        head=p,
        workers=(),
        install=None,
        master=None,
        store=None,
        router=None,
        config=config,
        config_note=None,
    )
    return Rendering(
        hardware="h200",
        strategy="kv",
        variant="default",
        node_count=1,
        deploy_type="kv_store_lb",
        env={},
        docker_image="img",
        kv=kv,
    )


def test_extra_tabs_read_a_config_edited_between_two_recipes_again():
    config = {"port": 1}
    r = _rendering(config)
    first = picker._extras_entry(r)[0]
    config["port"] = 2  # the same dict object, changed (the memo keys on identity)
    picker.clear_memos()  # as api.recipe_documents does after each recipe
    assert picker._extras_entry(r)[0] != first
    assert picker._extras_entry(r)[0] == picker._CANONICAL(picker._extras(r))


def test_extra_tabs_of_configs_equal_in_python_but_printed_apart_differ():
    texts = [picker._extras_entry(_rendering({"x": value}))[0] for value in (1, True, 1.0, "1")]
    assert len(set(texts)) == 4
    assert texts == [
        picker._CANONICAL(picker._extras(_rendering({"x": v}))) for v in (1, True, 1.0, "1")
    ]


def test_a_lock_is_kept_per_feature_set_not_per_command():
    r = _rendering()  # fixed line "--a 1", feature block "--b"
    free = (FeatureChoice("b", "B", "", True, None, ("--b",)),)
    clash = (FeatureChoice("a", "A", "", True, None, ("--a 2",)),)  # --a is also a fixed line
    texts = {c: picker._interned(c)[1] for c in (free, clash)}
    assert picker.features_locked(free, r, texts[free]) is False
    assert picker.features_locked(clash, r, texts[clash]) is True
    assert picker.features_locked(clash, r) is True and picker.features_locked(free, r) is False
    other = _rendering(lines=("vllm serve m", "--c 1", "--b"))  # same choices, other fixed line
    assert picker.features_locked(clash, other, texts[clash]) is False
    unsplit = _rendering(lines=("vllm serve m", "--a 1", "--b"))
    unsplit = dataclasses.replace(
        unsplit,
        kv=dataclasses.replace(
            unsplit.kv, head=dataclasses.replace(unsplit.kv.head, lines_before=("--z",))
        ),
    )  # not the command's lines: no join
    assert picker.features_locked(free, unsplit, texts[free]) is True


def test_plans_read_only_the_memory_split_of_a_fit(catalog, ctx):
    """plan.py reads `fit.memory_split` instead of a whole `fit_deployment`: both must say the same."""
    checked = 0
    for doc in catalog.recipes:
        for variant in doc.data.get("variants") or {"default": {}}:
            facts = fit.model_facts(doc.data, variant)
            for hw, profile in ctx.profiles.items():
                for shape in (
                    fit.Shape(),
                    fit.Shape(tp=8, kv_cache_dtype="fp8", max_num_batched_tokens=4096),
                    fit.Shape(tp=2, dp=4, expert_parallel=True, gpu_memory_utilization=0.8),
                ):
                    r = fit.fit_deployment(doc.data, variant, hw, profile, shape)
                    m = fit.memory_split(facts, sizing.per_gpu_gib(profile), shape, profile=profile)
                    assert (
                        m.budget_gib_per_gpu,
                        m.weights_gb,
                        m.weights_gib_per_gpu,
                        m.overhead,
                        m.kv_cache_gib_per_gpu,
                        m.context_length,
                        m.kv_bytes_per_token_per_gpu,
                        m.prefill_chunk,
                        m.state_bytes_per_sequence_per_gpu,
                    ) == (
                        r.budget_gib_per_gpu,
                        r.weights_gb,
                        r.weights_gib_per_gpu,
                        r.overhead,
                        r.kv_cache_gib_per_gpu,
                        r.context_length,
                        r.kv_bytes_per_token_per_gpu,
                        r.prefill_chunk,
                        r.state_bytes_per_sequence_per_gpu,
                    ), (doc.hf_id, variant, hw, shape)
                    assert list(m.windows_per_gpu) == list(r.windows_per_gpu)
                    checked += 1
    assert checked > 1000


def test_a_draft_model_is_published_and_sized_only_where_hf_config_sizes_it(recipes, ctx):
    """With hf_config, a plan publishes its EAGLE draft model (a model `1` is not `true`) and counts
    its head's weights; without, the draft changes nothing a plan shows."""
    head = ["vllm", "serve", "m", "--tensor-parallel-size", "8", "--speculative-config"]
    spec = '{"method": "eagle3", "model": %s, "num_speculative_tokens": 3}'
    profile = ctx.profiles["h100"]
    with_cfg = recipes["meta-llama/Llama-3.3-70B-Instruct"]
    without = {
        **with_cfg,
        "model": {k: v for k, v in with_cfg["model"].items() if k != "hf_config"},
    }
    for recipe in (with_cfg, without):
        plans = plan.RecipePlans(recipe)
        found = [
            plan.plan_of(plans, "default", profile, head + [spec % model], gpus=8, nodes=1)
            for model in ('"a/b"', '"c/d"', "1", "true")
        ]
        assert [p.get("draft") for p in found] == (
            ["a/b", "c/d", 1, True] if recipe is with_cfg else [None] * 4
        )
        assert (found[0] != found[2]) is (recipe is with_cfg)  # an EAGLE head's weights
    assert plan._draft({"method": "eagle3", "model": 1}) != plan._draft(
        {"method": "eagle3", "model": True}
    )


def test_shape_reads_flags_written_inline_and_skips_values():
    argv = [
        "vllm",
        "serve",
        "--max-model-len",
        "--tensor-parallel-size=4",
        "-tp",
        "2",
        "--max-model-len=8k",
        "--enforce-eager=1",
        "--kv-cache-dtype",
        "-ep",
        "--max-num-seqs",
        "0128",
        "--pipeline-parallel-size",
        "２",
        "--max-num-batched-tokens",
        "²",
    ]
    shape = fit.shape_from_argv(argv)
    # "--max-model-len" reads the next token as its value (a flag, no length), the next flag still
    # counts; a switch with "=" is no switch; "-ep" is both dtype and switch; a full-width "２" is
    # a number to Python's int, a superscript "²" is not (both as before plain ASCII digits got
    # their own path)
    assert (
        shape.tp,
        shape.max_model_len,
        shape.enforce_eager,
        shape.kv_cache_dtype,
        shape.expert_parallel,
        shape.max_num_seqs,
        shape.pp,
        shape.max_num_batched_tokens,
    ) == (2, 8000, False, "-ep", True, 128, 2, None)


def test_a_recipes_plans_are_those_of_each_rendering_and_choices_alone(catalog, ctx):
    """One RecipePlans serves every rendering of its recipe, whatever choices each is asked with:
    a rendering with fewer memory features gets its own plans, as computed for it alone."""
    found = None
    for doc in catalog.recipes:
        rec = RecipeInput(
            doc.hf_id, doc.data, synthesize_recipe(ctx, doc.hf_id, doc.data, catalog.index.ids)
        )
        for tree in rec.rendered.trees:
            for res in tree.by_hardware:
                for r in (res.recommended,) + res.alternatives:
                    choices = feature_choices(
                        rec.data,
                        ctx.hardware(r.hardware),
                        r.variant,
                        r.feature_strategy,
                        with_kv_store=r.kv is not None,
                    )
                    profile = ctx.profiles.get(r.hardware) or {}
                    if not found and "by" in plan.plan_json(
                        plan.RecipePlans(rec.data), r, profile, choices, False
                    ):
                        found = rec, r, profile, tuple(choices)
    assert found
    rec, r, profile, choices = found
    memory = plan.memory_features(choices)
    fewer = tuple(c for c in choices if c.name != memory[0].name)
    fresh = {
        c: plan.plan_json(plan.RecipePlans(rec.data), r, profile, c, False)
        for c in (choices, fewer)
    }
    assert fresh[choices] != fresh[fewer]
    # one RecipePlans for the rendering, its re-labelled copy and both choices, as api.py shares it
    plans = plan.RecipePlans(rec.data)
    copy = r.relabelled(r.hardware)
    assert [
        plan.plan_json(plans, x, profile, c, False)
        for x, c in ((r, choices), (copy, fewer), (r, fewer), (copy, choices))
    ] == [fresh[choices], fresh[fewer], fresh[fewer], fresh[choices]]


def _state_commands(plans, proc, choices: tuple) -> dict:
    """Each memory feature state's whole argv (the process's own lines around the state's feature
    block, as the page joins them); {} when the process has no states or cannot be rebuilt."""
    found = plan.feature_states(plans, proc, choices)
    return {} if found is None else dict(found[1])


def test_every_feature_state_shows_the_plan_of_its_own_command(catalog, ctx):
    """Feature states are grouped by what a plan reads (shape and draft), so a state whose
    --speculative-config loads no draft shows the rendered command's plan: whatever the grouping,
    the plan published for each state (`by[key]`, else `default`) is the plan of that state's own
    command, computed alone. Fails when the grouping drops the draft (an EAGLE state would show
    the plan without its head) or the shape."""
    states = drafts = 0
    for rec, r, shown, _ in published_renderings(catalog, ctx):
        if shown["parts"]["features_locked"]:
            continue
        choices = tuple(
            feature_choices(
                rec.data,
                ctx.hardware(r.hardware),
                r.variant,
                r.feature_strategy,
                with_kv_store=r.kv is not None,
            )
        )
        profile = ctx.profiles.get(r.hardware) or {}
        published = shown["plan"]
        plans = plan.RecipePlans(rec.data)
        for key, argv in _state_commands(plans, fit.memory_process(r), choices).items():
            own = plan.rendering_plan(plan.RecipePlans(rec.data), r, profile, argv)
            assert published.get("by", {}).get(key, published["default"]) == own, (
                rec.hf_id,
                r.key,
                key,
            )
            states += 1
            drafts += "draft" in own
    assert states > 1000, states
    assert drafts or "meta-llama/Llama-3.3-70B-Instruct" not in {
        d.hf_id for d in catalog.recipes
    }, drafts


def test_feature_states_get_a_plan_per_shape_and_draft_only(recipes, ctx):
    """A state gets its own plan when its command's shape or draft differs from the rendered
    command's; a --speculative-config that loads no draft (MTP), however written, shows the rendered plan."""

    def feature(name, line):
        return FeatureChoice(
            name=name, label=name, description="", default=False, modes=None, lines=(line,)
        )

    mtp = '--speculative-config \'{"method": "mtp", "num_speculative_tokens": %d}\''
    eagle = '--speculative-config \'{"method": "eagle3", "model": "a/b"}\''
    choices = (
        feature("mtp1", mtp % 1),
        feature("mtp2", mtp % 2),
        feature("fp8", "--kv-cache-dtype fp8"),
        feature("eagle", eagle),
        feature("len", "--max-model-len 4096"),
    )
    lines = ("vllm serve m", "--tensor-parallel-size 2")
    proc = Process(
        argv=("vllm", "serve", "m", "--tensor-parallel-size", "2"),
        command=SEP.join(lines),
        env={},
        docker_argv=(),
        docker_command=SEP.join(("docker run img",) + lines[1:]),
        lines_before=lines[1:],
    )
    r = Rendering(
        hardware="h100",
        strategy="single_node_tp",
        variant="default",
        node_count=1,
        deploy_type="single_node",
        env={},
        docker_image="img",
        single=proc,
    )
    recipe = recipes["meta-llama/Llama-3.3-70B-Instruct"]
    found = plan.rendering_plans(plan.RecipePlans(recipe), r, ctx.profiles["h100"], choices, False)
    by = found["by"]
    assert not {"", "mtp1", "mtp2", "mtp1,mtp2"} & set(by)  # they show `default`
    assert len({json.dumps(by[k]) for k in ("fp8", "eagle", "len", "fp8,len")}) == 4
    assert by["mtp1,fp8"] == by["mtp1,mtp2,fp8"] == by["fp8"] != found["default"]
    assert by["eagle"]["draft"] == "a/b" and by["len"]["context_length"] == 4096


def test_an_entry_shares_with_its_relabelled_copies_only(catalog, ctx):
    """picker.Shown is kept per `Rendering.family`: a re-labelled copy takes its family's, with its
    own `hardware`; a rendering that differs in another field (here the environment and the
    command) gets its own, equal to a fresh computation."""
    doc = catalog.recipes[0]
    rec = RecipeInput(
        doc.hf_id, doc.data, synthesize_recipe(ctx, doc.hf_id, doc.data, catalog.index.ids)
    )
    r = rec.rendered.trees[0].by_hardware[0].recommended
    across = picker.AcrossHardware(ctx)
    families = across.families
    shared = picker.SharedParts(rec, ctx, r.hardware, across)
    moved = r.relabelled("elsewhere")
    assert shared.shown(moved) is shared.shown(r) and len(families) == 1
    other = dataclasses.replace(r, env={**r.env, "X": "1"})
    assert shared.shown(other) is not shared.shown(r) and len(families) == 2
    for one in (r, moved, other):
        entry = shared.entry(one, shared.shown(one), None, False, 0)
        fresh = rendering_json(one)
        assert list(entry)[: len(fresh)] == list(fresh) and {k: entry[k] for k in fresh} == fresh
        assert (
            entry["parts"]["processes"]
            == picker.rendering_parts(
                one, shared, None, False, [picker._split(p) for p in one.processes], 0
            )["processes"]
        )


def _keyed_features() -> dict:
    """Features whose choices depend on the profile by id, generation, brand and opt-in."""
    r = synthesis_kit.recipe(compatible_strategies=["single_node_tp", "single_node_tep"])
    r["variants"]["fp8"] = {
        "precision": "fp8",
        "vram_minimum_gb": 8,
        "default_modes": {"gated": "slow"},
    }
    r["hardware_opt_in_features"] = {"b200": ["plain"], "mi300x": ["moved"]}
    r["features"] = {
        "plain": {"args": ["--plain"]},
        "gated": {
            "modes": {
                "fast": {"args": ["--fast"], "hardware": {"hopper": "unsupported"}},
                "slow": {
                    "args": ["--slow"],
                    "hardware_overrides": {"b300": {"args": ["--slow-b300"]}},
                    "variants": ["fp8"],
                },
                "amd": {"args": ["--amd"], "hardware": {"h200": "unsupported"}},
            },
            "default_mode": "fast",
        },
        "moved": {
            "args": ["--moved"],
            "hardware_overrides": {"blackwell": {"args": ["--moved-bw"]}},
            "strategies": ["single_node_tep"],
        },
    }
    return r


def test_choices_are_reused_across_profiles_that_answer_alike_only(monkeypatch):
    """picker.AcrossHardware gives on every profile the choices made for it alone; a profile takes
    another's choices only when it answers every question noted there alike (with the record
    ignored, some profile gets another's choices: the test has teeth)."""
    ctx = synthesis_kit.context()
    recipe = _keyed_features()
    keys = [
        (v, s, kv)
        for v in ("default", "fp8")
        for s in ("single_node_tp", "single_node_tep")
        for kv in (False, True)
    ]

    def published() -> dict:
        across = picker.AcrossHardware(ctx)
        with synthesizing(recipe):  # as recipe_documents asks them
            return {
                (hw, *key): across.choices(recipe, hw, *key)[0]
                for hw in ctx.profiles
                for key in keys
            }

    fresh = {
        (hw, v, s, kv): feature_choices(recipe, ctx.hardware(hw), v, s, with_kv_store=kv)
        for hw in ctx.profiles
        for v, s, kv in keys
    }
    assert len(set(fresh.values())) >= 6
    calls = []
    monkeypatch.setattr(
        picker,
        "feature_choices",
        lambda *a, **k: calls.append(a[1].label) or feature_choices(*a, **k),
    )
    assert published() == fresh
    assert 0 < len(calls) < len(fresh) / 2  # reused on most profiles
    monkeypatch.setattr(Recording, "agrees", lambda self, other: True)
    assert published() != fresh
