"""Assembling `vllm serve` (REFERENCE-BEHAVIOUR §3): argument order, the TP rule, hardware
override blocks, features, environment merge and last-wins de-duplication."""

from __future__ import annotations

import pytest
import synthesis_kit as H

from recipes_site.synthesis import render_strategy
from recipes_site.synthesis.features import enabled_features
from recipes_site.synthesis.serve_args import dedupe, flatten, model_id

ctx = H.context()


def render(recipe, hw_id, strategy="single_node_tp", variant="default", nodes=None):
    return render_strategy(ctx, recipe, variant, strategy, H.hw(hw_id), nodes)


def args(recipe, hw_id, strategy="single_node_tp", variant="default"):
    """argv after `vllm serve <model>`, as a list."""
    r = render(recipe, hw_id, strategy, variant)
    return list(r.single.argv[3:])


def env(recipe, hw_id, strategy="single_node_tp", variant="default"):
    return render(recipe, hw_id, strategy, variant).env


# -- model id (§3.1) ----------------------------------------------------------------------------------


def test_model_id_precedence():
    assert model_id({"model": {"model_id": "a/b"}}, {"model_id": "c/d"}) == "c/d"
    assert model_id({"model": {"model_id": "a/b"}}, {"model_id": ""}) == "a/b"
    assert model_id({}, {}) == "unknown"


def test_default_variant_model_id_override_is_served():
    r = H.recipe(model_id="acme/Base")
    r["variants"]["default"]["model_id"] = "acme/Base-0731"
    assert render(r, "h200").single.argv[:3] == ("vllm", "serve", "acme/Base-0731")


# -- argument order (§3.3) ------------------------------------------------------------------------------


def ordered_recipe():
    r = H.recipe(vram=400, compatible_strategies=["single_node_tp", "single_node_tep"])
    r["model"]["base_args"] = ["--trust-remote-code", "--base", "b"]
    r["variants"]["default"].update(
        extra_args=["--variant-arg", "v"],
        hardware_overrides={
            "h200": {"extra_args": ["--v-exact", "1"]},
            "hopper": {"extra_args": ["--v-gen", "1"]},
            "nvidia": {"extra_args": ["--v-nvidia", "1"]},
        },
    )
    r["strategy_overrides"] = {
        "single_node_tep": {
            "extra_args": ["--so-extra", "1"],
            "vllm_args": ["--so-vllm", "1"],
            "hardware_overrides": {"h200": {"extra_args": ["--so-exact", "1"]}},
        }
    }
    r["hardware_overrides"] = {
        "hopper": {"extra_args": ["--r-gen", "1"]},
        "nvidia": {"extra_args": ["--r-nvidia", "1"]},
        "amd": {"extra_args": ["--r-amd", "1"]},
    }
    r["features"] = {"zeta": {"args": ["--zeta"]}, "alpha": {"args": ["--alpha", "a"]}}
    return r


def test_argument_order_full():
    assert args(ordered_recipe(), "h200", "single_node_tep") == [
        "--trust-remote-code",
        "--base",
        "b",  # 1 base_args
        "--variant-arg",
        "v",  # 2 variant extra_args
        "--v-exact",
        "1",  # 3 variant exact-hw args
        "--enable-expert-parallel",  # 4 strategy vllm_args
        "--tensor-parallel-size",
        "8",  # 5 parallel block
        "--so-extra",
        "1",
        "--so-vllm",
        "1",  # 6 strategy_overrides
        "--r-gen",
        "1",
        "--v-gen",
        "1",  # 7 recipe then variant generation blocks
        "--so-exact",
        "1",  #   strategy override exact-hw block
        "--zeta",
        "--alpha",
        "a",  # 9 features in map order
    ]


def test_generation_block_shadows_nvidia_and_brand_fallback():
    r = ordered_recipe()
    # b200: no blackwell block anywhere -> the `nvidia` blocks; no exact-hw blocks for b200
    assert args(r, "b200", "single_node_tep")[6:] == [
        "--tensor-parallel-size",
        "8",
        "--so-extra",
        "1",
        "--so-vllm",
        "1",
        "--r-nvidia",
        "1",
        "--v-nvidia",
        "1",
        "--zeta",
        "--alpha",
        "a",
    ]
    # mi300x: generation `amd`; the nvidia fallback never applies to AMD
    assert args(r, "mi300x", "single_node_tep")[6:] == [
        "--tensor-parallel-size",
        "8",
        "--so-extra",
        "1",
        "--so-vllm",
        "1",
        "--r-amd",
        "1",
        "--zeta",
        "--alpha",
        "a",
    ]


def test_empty_generation_block_still_shadows_nvidia():
    r = ordered_recipe()
    r["hardware_overrides"]["blackwell"] = {}
    out = args(r, "b200", "single_node_tep")
    assert "--r-nvidia" not in out
    assert "--v-nvidia" in out  # the variant's own blocks are looked up separately


def test_strategy_generation_block_replaces_recipe_and_variant_blocks():
    r = ordered_recipe()
    r["strategy_overrides"]["single_node_tep"]["hardware_overrides"]["hopper"] = {
        "extra_args": ["--so-gen", "1"]
    }
    assert args(r, "h200", "single_node_tep")[10:] == [
        "--so-extra",
        "1",
        "--so-vllm",
        "1",
        "--so-gen",
        "1",
        "--so-exact",
        "1",
        "--zeta",
        "--alpha",
        "a",
    ]
    # other strategies are unaffected
    assert "--r-gen" in args(r, "h200", "single_node_tp")


def test_strategy_nvidia_block_replaces_on_blackwell():
    r = ordered_recipe()
    r["strategy_overrides"]["single_node_tep"]["hardware_overrides"]["nvidia"] = {
        "extra_args": ["--so-nv"]
    }
    out = args(r, "b200", "single_node_tep")
    assert "--so-nv" in out
    assert "--r-nvidia" not in out and "--v-nvidia" not in out


def test_strategy_overrides_of_other_strategies_do_not_apply():
    out = args(ordered_recipe(), "h200", "single_node_tp")
    assert (
        "--so-extra" not in out
        and "--so-exact" not in out
        and "--enable-expert-parallel" not in out
    )
    assert out[5:9] == ["--v-exact", "1", "--tensor-parallel-size", "8"]


# -- parallel size (§3.2) ---------------------------------------------------------------------------


def tp_of(recipe, hw_id, strategy="single_node_tp"):
    out = args(recipe, hw_id, strategy)
    return out[out.index("--tensor-parallel-size") + 1]


@pytest.mark.parametrize(
    "vram, hw_id, tp",
    [
        (100, "h200", "1"),  # 100 <= 141 per GPU
        (141, "h200", "1"),  # inclusive
        (142, "h200", "8"),  # never 2 or 4: the whole node
        (192, "gb200", "1"),
        (200, "gb200", "4"),  # 200 > 192 per GPU -> all four GPUs
    ],
)
def test_tp_auto_fit(vram, hw_id, tp):
    assert tp_of(H.recipe(vram=vram), hw_id) == tp


def test_tp_auto_fit_without_vram_uses_all_gpus():
    r = H.recipe(vram=0)
    assert tp_of(r, "h200") == "8"
    assert tp_of(r, "gb200") == "4"


def test_tp_flag_emitted_even_for_one():
    assert args(H.recipe(vram=10), "h100") == ["--tensor-parallel-size", "1"]


def test_variant_tp_map_lookup_order():
    r = H.recipe(vram=10)
    r["variants"]["default"]["tp"] = {"b300": 1, "blackwell": 2, "nvidia": 4, "default": 8}
    assert [tp_of(r, h) for h in ("b300", "b200", "h200", "mi300x")] == ["1", "2", "4", "8"]


def test_variant_tp_beats_strategy_override_which_beats_auto_fit():
    r = H.recipe(vram=10, strategy_overrides={"single_node_tp": {"tp": {"hopper": 4}}})
    assert tp_of(r, "h200") == "4"
    assert tp_of(r, "b200") == "1"  # no entry -> auto-fit
    r["variants"]["default"]["tp"] = 2
    assert tp_of(r, "h200") == "2"


def test_declared_tp_clamped_to_gpu_count_except_on_cpu():
    r = H.recipe(vram=10, meta={"hardware": {"xeon6": "verified"}})
    r["variants"]["default"]["tp"] = 16
    assert tp_of(r, "h200") == "8"
    assert tp_of(r, "gb200") == "4"
    assert tp_of(r, "xeon6") == "16"


def test_non_numeric_or_zero_tp_ignored():
    r = H.recipe(vram=10, strategy_overrides={"single_node_tp": {"tp": 0}})
    r["variants"]["default"]["tp"] = "2"
    assert tp_of(r, "h200") == "1"


def test_tep_and_dep_use_the_whole_node():
    r = H.recipe(
        vram=10, compatible_strategies=["single_node_tp", "single_node_tep", "single_node_dep"]
    )
    r["variants"]["default"]["tp"] = 2
    assert args(r, "gb200", "single_node_tep") == [
        "--enable-expert-parallel",
        "--tensor-parallel-size",
        "4",
    ]
    assert args(r, "h200", "single_node_dep") == [
        "--enable-expert-parallel",
        "--data-parallel-size",
        "8",
    ]


# -- de-duplication (§3.6) -----------------------------------------------------------------------------


def test_dedupe_last_wins_at_last_position():
    tokens = ["pos", "--x", "1", "--flag", "--x", "2", "pos", "--y", "--x=a", "--x=a", "--no-y"]
    assert dedupe(tokens) == [
        ("pos",),
        ("--flag",),
        ("--x", "2"),
        ("pos",),
        ("--y",),
        ("--x=a",),
        ("--no-y",),
    ]
    assert flatten(dedupe(tokens)) == ["pos", "--flag", "--x", "2", "pos", "--y", "--x=a", "--no-y"]


def test_dedupe_drops_empty_tokens_before_pairing():
    # the empty value vanishes first, so `--flag` then takes the next token as its value
    assert dedupe(["--flag", "", "value", "--z", None]) == [("--flag", "value"), ("--z",)]


def test_dedupe_negative_number_is_a_flag():
    assert dedupe(["--bias", "-1", "--z", "3"]) == [("--bias",), ("-1",), ("--z", "3")]


def test_hardware_override_tp_replaces_strategy_tp():
    r = H.recipe(vram=10, strategy_overrides={"single_node_tp": {"tp": 4}})
    r["model"]["base_args"] = ["--trust-remote-code", "--max-model-len", "4096"]
    r["hardware_overrides"] = {
        "amd": {"extra_args": ["--tensor-parallel-size", "2", "--max-model-len", "8192"]}
    }
    assert args(r, "mi300x") == [
        "--trust-remote-code",
        "--tensor-parallel-size",
        "2",
        "--max-model-len",
        "8192",
    ]
    assert args(r, "h200") == [
        "--trust-remote-code",
        "--max-model-len",
        "4096",
        "--tensor-parallel-size",
        "4",
    ]


def test_variant_tp_flag_dropped_in_favour_of_parallel_block():
    r = H.recipe(vram=10)
    r["variants"]["default"]["extra_args"] = [
        "--quantization",
        "fp8",
        "--tensor-parallel-size",
        "8",
    ]
    assert args(r, "h200") == ["--quantization", "fp8", "--tensor-parallel-size", "1"]


# -- features (§3.4) --------------------------------------------------------------------------------


def feature_recipe():
    r = H.recipe(vram=10, compatible_strategies=["single_node_tp", "single_node_tep"])
    r["variants"]["fp8"] = {"precision": "fp8", "vram_minimum_gb": 5}
    r["features"] = {
        "tool_calling": {"args": ["--enable-auto-tool-choice", "--tool-call-parser", "x"]},
        "spec_decoding": {
            "default_mode": "mtp",
            "modes": {
                "mtp": {"variants": ["fp8"], "args": ["--speculative-config", '{"method":"mtp"}']},
                "dspark": {
                    "args": ["--speculative-config", '{"method":"dspark"}'],
                    "hardware": {"amd": "unsupported"},
                    "hardware_overrides": {
                        "gb200": {"args": ["--speculative-config", '{"method":"dspark","gb":1}']},
                        "blackwell": {
                            "args": ["--speculative-config", '{"method":"dspark","bw":1}']
                        },
                    },
                },
            },
        },
        "reasoning": {
            "args": ["--reasoning-parser", "r"],
            "hardware_overrides": {
                "blackwell": {"args": ["--reasoning-parser", "r-bw"]},
                "nvidia": {"args": ["--reasoning-parser", "r-nv"]},
                "amd": {"args": []},
                "hopper": {},
            },
        },
        "encoder_parallel": {"args": ["--mm-encoder-tp-mode", "data"]},
        "tep_only": {"args": ["--tep-only"], "strategies": ["single_node_tep"]},
        "disabled": None,
    }
    r["opt_in_features"] = ["encoder_parallel", "unknown_feature"]
    return r


def test_features_in_map_order_with_opt_in_excluded():
    r = feature_recipe()
    assert args(r, "h200") == [
        "--tensor-parallel-size",
        "1",
        "--enable-auto-tool-choice",
        "--tool-call-parser",
        "x",
        "--speculative-config",
        '{"method":"dspark"}',  # mtp is limited to the fp8 variant
        "--reasoning-parser",
        "r",  # `hopper: {}` -> the feature's own args
    ]


def test_modal_feature_default_mode_and_variant_default_modes():
    r = feature_recipe()
    assert args(r, "h200", variant="fp8")[5:7] == ["--speculative-config", '{"method":"mtp"}']
    r["variants"]["fp8"]["default_modes"] = {"spec_decoding": "dspark"}
    assert args(r, "h200", variant="fp8")[5:7] == ["--speculative-config", '{"method":"dspark"}']


def test_modal_feature_hardware_overrides_exact_then_generation():
    r = feature_recipe()
    assert '{"method":"dspark","gb":1}' in args(r, "gb200")
    assert '{"method":"dspark","bw":1}' in args(r, "b200")


def test_modal_feature_with_no_allowed_mode_emits_nothing():
    r = feature_recipe()
    assert "--speculative-config" not in args(r, "mi300x")  # dspark unsupported on amd
    assert "--speculative-config" in args(r, "mi300x", variant="fp8")  # mtp allowed for fp8


def test_flat_feature_hardware_override_replaces_args():
    r = feature_recipe()
    assert args(r, "b200")[-2:] == ["--reasoning-parser", "r-bw"]  # generation block
    assert "--reasoning-parser" not in args(r, "mi300x")  # `args: []` override empties it
    del r["features"]["reasoning"]["hardware_overrides"]["blackwell"]
    assert args(r, "b200")[-2:] == ["--reasoning-parser", "r-nv"]  # nvidia fallback


def test_feature_strategies_list():
    r = feature_recipe()
    assert "--tep-only" not in args(r, "h200", "single_node_tp")
    assert args(r, "h200", "single_node_tep")[-1] == "--tep-only"


def test_hardware_opt_in_features():
    r = feature_recipe()
    r["opt_in_features"] = []
    r["hardware_opt_in_features"] = {"gb200": ["encoder_parallel"]}
    assert args(r, "b200")[-2:] == ["--mm-encoder-tp-mode", "data"]
    assert "--mm-encoder-tp-mode" not in args(r, "gb200")


def test_default_modes_forces_opt_in_feature_on():
    r = feature_recipe()
    r["opt_in_features"] = ["spec_decoding"]
    assert "--speculative-config" not in args(r, "h200")
    r["variants"]["default"]["default_modes"] = {"spec_decoding": "dspark"}
    assert enabled_features(r, H.hw("h200"), "default") == [
        "tool_calling",
        "spec_decoding",
        "reasoning",
        "encoder_parallel",
        "tep_only",
        "disabled",
    ]
    assert "--speculative-config" in args(r, "h200")


# -- environment (§3.5) -------------------------------------------------------------------------------


def env_recipe():
    r = H.recipe(vram=10, compatible_strategies=["single_node_tp", "multi_node_tp"])
    r["model"]["base_env"] = {"A": "base", "B": "base", "N": 1}
    r["variants"]["default"].update(
        extra_env={"B": "variant", "C": 3, "FLAG": True},
        hardware_overrides={
            "h200": {"extra_env": {"D": "v-exact", "A": "v-exact"}},
            "hopper": {"extra_env": {"E": "v-gen"}},
        },
    )
    r["strategy_overrides"] = {
        "single_node_tp": {
            "env": {"F": "so-env"},
            "extra_env": {"G": "so-extra"},
            "hardware_overrides": {"h200": {"extra_env": {"H": "so-exact", "C": 4}}},
        },
        "multi_node_tp": {"env": {"NCCL_SOCKET_IFNAME": "eth9"}},
    }
    r["hardware_overrides"] = {"hopper": {"extra_env": {"B": "r-gen", "I": "r-gen"}}}
    return r


def test_env_merge_order_keeps_first_position():
    e = env(env_recipe(), "h200")
    assert list(e.items()) == [
        ("A", "v-exact"),
        ("B", "r-gen"),
        ("N", 1),
        ("C", 4),
        ("FLAG", True),
        ("D", "v-exact"),
        ("F", "so-env"),
        ("G", "so-extra"),
        ("I", "r-gen"),
        ("E", "v-gen"),
        ("H", "so-exact"),
    ]


def test_env_values_keep_their_type():
    e = env(env_recipe(), "b200")
    assert list(e.items()) == [
        ("A", "base"),
        ("B", "variant"),
        ("N", 1),
        ("C", 3),
        ("FLAG", True),
        ("F", "so-env"),
        ("G", "so-extra"),
    ]
    assert type(e["N"]) is int and type(e["C"]) is int and e["FLAG"] is True
    d = render(env_recipe(), "b200").single.docker_argv
    assert "N=1" in d and "C=3" in d and "FLAG=true" in d


def test_multi_node_strategy_env_then_overrides():
    r = render(env_recipe(), "b200", "multi_node_tp")
    assert list(r.env.items()) == [
        ("A", "base"),
        ("B", "variant"),
        ("N", 1),
        ("C", 3),
        ("FLAG", True),
        ("GLOO_SOCKET_IFNAME", "$IFACE_NAME"),
        ("NCCL_SOCKET_IFNAME", "eth9"),
    ]
    assert r.workers[0].env == r.env


# -- argument lines around the feature block ------------------------------------------------------


def _reference_dedupe(units):
    """dedupe_units as plainly defined: the last unit of each flag, at its place; every positional."""
    last = {u[0]: i for i, u in enumerate(units) if u[0].startswith("-")}
    return [u for i, u in enumerate(units) if not u[0].startswith("-") or last[u[0]] == i]


def test_dedupe_units_equals_its_plain_definition():
    import random

    from recipes_site.synthesis.serve_args import FEATURE_MARK, dedupe_units

    pool = [
        ("--a", "1"),
        ("--a", "2"),
        ("--a",),
        ("-b",),
        ("x",),
        ("x",),
        ("--c", "x"),
        FEATURE_MARK,
    ]
    rng = random.Random(7)
    for _ in range(3000):
        units = [rng.choice(pool) for _ in range(rng.randint(0, 7))]
        assert dedupe_units(units) == _reference_dedupe(units), units


def _reference_arg_lines(before, features, after):
    """arg_lines as plainly defined: group and de-duplicate the whole list; the head (lines before
    and after the feature block) groups `before` and `after` on their own."""
    from recipes_site.jsish import truthy_items
    from recipes_site.synthesis.serve_args import FEATURE_MARK
    from recipes_site.synthesis.shell import unit_line, units_of

    dedupe_units = _reference_dedupe
    before, features, after = truthy_items(before), truthy_items(features), truthy_items(after)
    units = dedupe_units(units_of(before + features + after))
    head = dedupe_units(units_of(before) + [FEATURE_MARK] + units_of(after))
    split = [unit_line(u) if u is not FEATURE_MARK else None for u in head]
    cut = split.index(None)
    return (
        [t for u in units for t in u],
        [unit_line(u) for u in units],
        split[:cut],
        split[cut + 1 :],
    )


def test_argument_lines_equal_their_plain_definition_whatever_the_segment_boundaries():
    import random

    from recipes_site.synthesis.serve_args import _arg_lines, arg_lines
    from recipes_site.synthesis.shell import Placeholder

    strings = ["--a", "--b", "-c", "--d=1", "x", "y z", "", Placeholder("$X"), "$X", "--a", "x"]
    rng = random.Random(13)
    for n in range(3000):
        # falsy tokens besides "" (dropped before grouping) in half the lists
        pool = strings + [None, False, 0, 0.0, ""] if n % 2 else strings
        segments = [tuple(rng.choice(pool) for _ in range(rng.randint(0, 5))) for _ in range(3)]
        _arg_lines.cache_clear()  # each list computed, not recalled
        got = arg_lines(*segments)
        assert (
            list(got.args),
            list(got.lines),
            list(got.lines_before),
            list(got.lines_after),
        ) == _reference_arg_lines(*segments), segments
