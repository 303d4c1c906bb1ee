"""What synthesis remembers must never change what it prints (issue 13: faster, byte-identical).

Two kinds of memo: pure functions of strings memoised for the whole process (argument lines,
docker heads, quoting), where a Placeholder and an equal recipe string, or `true` and `1`, must
never share an answer; and answers about one recipe kept only while `synthesize_recipe` runs
on that very dict (synthesis/memo.py).
"""

from __future__ import annotations

import copy

import synthesis_kit as H

from recipes_site.synthesis import render_strategy, synthesize_recipe
from recipes_site.synthesis.docker import docker_head
from recipes_site.synthesis.memo import remembered, synthesizing
from recipes_site.synthesis.serve_args import arg_lines
from recipes_site.synthesis.shell import Placeholder, image_word, quote, unit_line

ctx = H.context()


# -- process-wide memos: the key is the value *and* how it prints ------------------------------------


def test_a_recipe_string_that_looks_like_a_placeholder_is_quoted_whatever_was_printed_before():
    ours, theirs = Placeholder("$HEAD_IP"), "$HEAD_IP"
    for first, second in ((ours, theirs), (theirs, ours)):
        lines = {id(t): unit_line(("--master-addr", t)) for t in (first, second)}
        assert lines[id(ours)] == "--master-addr $HEAD_IP"
        assert lines[id(theirs)] == "--master-addr '$HEAD_IP'"
        assert quote(theirs) == "'$HEAD_IP'" and quote(ours) == "$HEAD_IP"


def test_an_image_word_keeps_a_placeholder_apart_from_an_equal_recipe_string():
    image_word.cache_clear()
    for first, second in ((Placeholder("$IMAGE"), "$IMAGE"), ("$IMAGE", Placeholder("$IMAGE"))):
        words = {type(t): image_word(t) for t in (first, second)}
        assert words == {Placeholder: "$IMAGE", str: "'$IMAGE'"}
    assert (
        image_word(None) == "undefined" and image_word("docker pull a/b:1") == "docker pull a/b:1"
    )


def test_argument_lines_keep_a_placeholder_apart_from_an_equal_recipe_string():
    ours = arg_lines(["--master-addr", Placeholder("$HEAD_IP")], [], [])
    theirs = arg_lines(["--master-addr", "$HEAD_IP"], [], [])
    assert ours.lines == ("--master-addr $HEAD_IP",)
    assert theirs.lines == ("--master-addr '$HEAD_IP'",)
    assert arg_lines(["--master-addr", Placeholder("$HEAD_IP")], [], []).lines == ours.lines


def test_argument_lines_split_around_the_feature_block():
    args = arg_lines(["--a", "1", ""], ["--b"], ["--a", "2", None])
    assert args.args == ("--b", "--a", "2")  # last --a wins, at its last position
    assert args.lines == ("--b", "--a 2")
    assert (args.lines_before, args.lines_after) == ((), ("--a 2",))


def test_docker_heads_print_each_env_value_as_its_own_type():
    hw = H.hw("h200")
    texts = {}
    for value in (True, 1, 1.0, "1", Placeholder("$IFACE_NAME"), "$IFACE_NAME"):
        texts[repr(value) + type(value).__name__] = docker_head(
            "img", "acme/M", {"X": value}, hw, 8000
        ).lines[-2]
    assert list(texts.values()) == [
        "-e X=true",
        "-e X=1",
        "-e X=1",
        "-e X=1",
        "-e X=$IFACE_NAME",
        "-e X=$IFACE_NAME",  # an env value that is one variable expands, whoever wrote it
    ]


def test_docker_head_with_an_unhashable_env_value_still_renders():
    head = docker_head("img", "acme/M", {"X": ["a"]}, H.hw("h200"), 8000)
    assert head.lines[-2] == "-e X='['\\''a'\\'']'"
    assert head.argv[-2:] == ("img", "acme/M")


# -- per-recipe memo: only inside synthesize_recipe, only for that very dict --------------------------


def test_remembered_keeps_answers_only_while_that_recipe_is_synthesized():
    recipe, other, calls = {}, {}, []
    compute = lambda: calls.append(1) or len(calls)
    assert remembered(recipe, ("k",), compute) == 1
    assert remembered(recipe, ("k",), compute) == 2  # outside a synthesis: computed afresh
    with synthesizing(recipe):
        assert remembered(recipe, ("k",), compute) == 3
        assert remembered(recipe, ("k",), compute) == 3  # kept
        assert remembered(other, ("k",), compute) == 4  # another dict: not kept, not shared
        with synthesizing(other):
            assert remembered(other, ("k",), compute) == 5
            assert remembered(recipe, ("k",), compute) == 6  # only the innermost recipe is kept
        assert remembered(recipe, ("k",), compute) == 3
    assert remembered(recipe, ("k",), compute) == 7


def _recipe():
    r = H.recipe(vram=16, compatible_strategies=["single_node_tp", "multi_node_tp"])
    r["model"]["base_args"] = ["--max-model-len", "4096"]
    r["features"] = {
        "spec": {"args": ["--speculative-config", "{}"], "strategies": ["single_node_tp"]}
    }
    return r


def _every_rendering(out):
    return [
        (res.hardware, r)
        for t in out.trees
        for res in t.by_hardware
        for r in (res.recommended, *res.alternatives)
    ]


def _commands(out):
    return [p.command for _, r in _every_rendering(out) for p in r.processes]


def test_a_recipe_edited_between_two_syntheses_is_read_again():
    r = _recipe()
    before = _commands(synthesize_recipe(ctx, "acme/Test-8B", r, set()))
    r["model"]["base_args"] = ["--max-model-len", "8192"]
    r["features"]["spec"]["args"] = ["--enforce-eager"]
    after = _commands(synthesize_recipe(ctx, "acme/Test-8B", r, set()))
    assert any("--max-model-len 4096" in c for c in before) and not any("4096" in c for c in after)
    assert any("--max-model-len 8192" in c for c in after)
    assert any("--enforce-eager" in c for c in after) and not any(
        "--speculative-config" in c for c in after
    )


def test_synthesis_equals_rendering_each_choice_without_the_memo():
    r = _recipe()
    out = synthesize_recipe(ctx, "acme/Test-8B", copy.deepcopy(r), set())
    for hw_id, rendering in _every_rendering(out):
        alone = render_strategy(
            ctx, r, rendering.variant, rendering.strategy, H.hw(hw_id), rendering.node_count
        )
        assert alone == rendering


def _layered_recipe():
    """Three variants (the others serve their own checkpoints, so each gets a tree of its own) whose
    generation blocks and fit differ (one needs two nodes where the others fit on one), PD roles with their own blocks per hardware id, kv-store renderings
    serving through strategies also rendered alone, features with and without hardware gates."""
    r = H.recipe(
        vram=120,
        compatible_strategies=["single_node_tp", "single_node_tep", "multi_node_tp", "pd_cluster"],
    )
    r["variants"]["fp8"] = {
        "precision": "fp8",
        "vram_minimum_gb": 30,
        "model_id": "acme/Test-8B-FP8",
        "hardware_overrides": {
            "hopper": {"extra_args": ["--fp8-hopper"], "extra_env": {"FP8": "hopper"}}
        },
    }
    r["variants"]["huge"] = {
        "precision": "bf16",
        "vram_minimum_gb": 1500,
        "model_id": "acme/Test-8B-Huge",
    }
    r["variants"]["default"]["hardware_overrides"] = {
        "hopper": {"extra_args": ["--bf16-hopper"]},
        "nvidia": {"extra_env": {"BF16": "nvidia"}},
    }
    r["strategy_overrides"] = {
        "pd_cluster": {
            "prefill": {"hardware_overrides": {"h200": {"extra_args": ["--prefill-h200"]}}},
            "decode": {"hardware_overrides": {"h200": {"extra_env": {"DECODE": "h200"}}}},
        },
        "single_node_tp": {
            "hardware_overrides": {
                "blackwell": {"extra_args": ["--tp-blackwell"]},
                "b200": {"extra_env": {"TP": "b200"}},
            }
        },
    }
    r["features"] = {
        "plain": {"args": ["--plain"]},
        "gated": {
            "modes": {
                "fast": {"args": ["--fast"], "hardware": {"hopper": "unsupported"}},
                "slow": {"args": ["--slow"]},
            },
            "default_mode": "fast",
        },
        "moved": {
            "args": ["--moved"],
            "hardware_overrides": {"blackwell": {"args": ["--moved-bw"]}},
        },
        "spec": {"args": ["--spec"], "strategies": ["single_node_tp"]},
    }
    r["hardware_opt_in_features"] = {"mi300x": ["plain"]}
    return r


def test_every_rendering_of_a_layered_recipe_equals_one_rendered_without_the_memo():
    r = _layered_recipe()
    out = synthesize_recipe(ctx, "acme/Test-8B", copy.deepcopy(r), set())
    rendered = _every_rendering(out)
    kinds = {rendering.deploy_type for _, rendering in rendered}
    assert {"single_node", "multi_node", "pd_cluster", "kv_store_lb"} <= kinds
    assert {rendering.variant for _, rendering in rendered} == {"default", "fp8", "huge"}
    for hw_id, rendering in rendered:
        alone = render_strategy(
            ctx, r, rendering.variant, rendering.strategy, H.hw(hw_id), rendering.node_count
        )
        assert alone == rendering, (hw_id, rendering.key)


# -- kv-stores alike share their serving processes (deployments._kv_processes) -----------------------


def _kv_context(first: dict | None = None, **changes) -> H.Context:
    """The project's context with its first kv-store's vLLM section updated by `first`, and a copy
    of that kv-store (`kv_copy`) whose vLLM section is updated by `changes` (and its instance count
    by `default_instances`)."""
    base = H.context()
    name = base.kv_ids[0]
    spec = copy.deepcopy(base.strategies[name])
    spec["vllm"].update(first or {})
    other = copy.deepcopy(spec)
    other["name"] = "kv_copy"
    if "default_instances" in changes:
        other["default_instances"] = changes.pop("default_instances")
    other["vllm"].update(changes)
    return H.Context(
        profiles=base.profiles,
        strategies={**base.strategies, name: spec, "kv_copy": other},
        kv_ids=(name, "kv_copy"),
    )


def _kv_pairs(kv_ctx, vram=16):
    """(profile, the first kv-store's rendering, its copy's) wherever both are rendered, and the recipe."""
    r = H.recipe(vram=vram, compatible_strategies=["single_node_tp", "multi_node_tp"])
    out = synthesize_recipe(kv_ctx, "acme/Test-8B", r, set())
    by = {}
    for hw_id, rendering in _every_rendering(out):
        by.setdefault((hw_id, rendering.variant), {})[rendering.strategy] = rendering
    first = kv_ctx.kv_ids[0]
    pairs = [
        (hw_id, found[first], found["kv_copy"])
        for (hw_id, _), found in by.items()
        if first in found and "kv_copy" in found
    ]
    assert pairs
    return r, pairs


def _each_as_alone(kv_ctx, r, pairs):
    for hw_id, *renderings in pairs:
        for rendering in renderings:
            alone = render_strategy(
                kv_ctx, r, rendering.variant, rendering.strategy, kv_ctx.hardware(hw_id)
            )
            assert alone == rendering, (hw_id, rendering.strategy)


def test_kv_stores_with_the_same_vllm_side_share_their_processes():
    kv_ctx = _kv_context()
    r, pairs = _kv_pairs(kv_ctx)
    assert all(o.kv.head is f.kv.head and o.kv.workers is f.kv.workers for _, f, o in pairs)
    _each_as_alone(kv_ctx, r, pairs)


def test_single_node_kv_processes_are_shared_whatever_the_head_address():
    """The head address ($VLLM_INSTANCE_1 with several instances, else $HEAD_IP) is only in multi-node blocks."""
    kv_ctx = _kv_context(default_instances=1)
    assert kv_ctx.strategies[kv_ctx.kv_ids[0]]["default_instances"] > 1
    r, pairs = _kv_pairs(kv_ctx)
    assert all(f.node_count == 1 and o.kv.head is f.kv.head for _, f, o in pairs)
    _each_as_alone(kv_ctx, r, pairs)
    r, pairs = _kv_pairs(kv_ctx, vram=1000)  # on two nodes, the head addresses differ
    multi = [(hw_id, f, o) for hw_id, f, o in pairs if f.node_count > 1]
    assert multi and all(f.kv.head.argv != o.kv.head.argv for _, f, o in multi)
    _each_as_alone(kv_ctx, r, pairs)


def test_kv_stores_whose_vllm_side_differs_even_in_a_type_do_not_share():
    env = dict(H.context().strategies[H.context().kv_ids[0]]["vllm"].get("env") or {})
    args = list(H.context().strategies[H.context().kv_ids[0]]["vllm"].get("vllm_args") or [])
    first = {"env": {**env, "X": 1}, "port": 8000, "vllm_args": args}
    for change in (
        {"env": {**env, "X": True}},
        {"env": {**env, "X": 1.0}},
        {"env": {**env, "X": "1"}},
        {"env": {"X": 1, **env}},
        {"port": 8000.0},
        {"port": 8001},
        {"vllm_args": [*args, "--extra"]},
    ):
        kv_ctx = _kv_context(first, **change)
        r, pairs = _kv_pairs(kv_ctx)
        assert all(f.kv.head is not o.kv.head for _, f, o in pairs), change
        _each_as_alone(kv_ctx, r, pairs)


def test_pd_pools_read_the_recipes_pool_modes_once_per_synthesis_as_each_rendered_alone():
    """deployments.pool_modes is kept per recipe (both roles, every profile): PD renderings still
    equal those rendered alone, and a recipe edited between syntheses is read again."""
    r = H.recipe(
        vram=120,
        compatible_strategies=[
            "single_node_tp",
            "single_node_tep",
            "single_node_dep",
            "pd_cluster",
        ],
    )
    r["strategy_overrides"] = {
        "pd_cluster": {"pool_modes": ["dep"], "prefill": {"parallelism": "tp"}}
    }
    parallelisms = []
    for narrowed in (["dep"], ["tep", "tp"], ["tep"]):
        r["strategy_overrides"]["pd_cluster"]["pool_modes"] = narrowed
        out = synthesize_recipe(ctx, "acme/Test-8B", r, set())
        pd = [(hw_id, x) for hw_id, x in _every_rendering(out) if x.deploy_type == "pd_cluster"]
        assert pd
        for hw_id, rendering in pd:
            assert (
                render_strategy(ctx, r, rendering.variant, "pd_cluster", H.hw(hw_id)) == rendering
            )
        parallelisms.append(
            {
                (
                    "--enable-expert-parallel" in x.prefill.process.argv,
                    "--data-parallel-size" in x.prefill.process.argv,
                )
                for _, x in pd
            }
        )
    assert parallelisms == [
        {(True, True)},
        {(False, False)},
        {(True, False)},
    ]  # dep, tp as declared, tep
