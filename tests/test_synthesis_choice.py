"""`render_choice`: one explicit (variant, hardware, strategy, nodes) choice, defaulted like the site,
and a ChoiceError with a useful message for choices the recipe does not offer."""

from __future__ import annotations

import pytest
import synthesis_kit as H

from recipes_site.synthesis import ChoiceError, render_choice, synthesize_recipe

ctx = H.context()


@pytest.fixture
def recipe():
    return H.recipe_fixture("choice_recipe")


def test_fixture_shape(recipe):
    assert list(recipe["variants"]) == ["default", "nvfp4"]


def test_defaults_match_the_recommended_rendering(recipe):
    r = render_choice(ctx, recipe)
    recommended = (
        synthesize_recipe(ctx, "acme/Choice", recipe, set()).trees[0].by_hardware[0].recommended
    )
    assert r == recommended
    assert (r.hardware, r.strategy, r.node_count) == ("h200", "single_node_tp", 1)


def test_recommended_node_count_used_for_the_recommended_strategy(recipe):
    r = render_choice(ctx, recipe, hw_id="h100")
    assert (r.strategy, r.node_count) == ("multi_node_tp", 4)  # strategy_min_gpus h100: 32
    assert r.head.argv[4:6] == ("--tensor-parallel-size", "32")


def test_explicit_choice(recipe):
    r = render_choice(ctx, recipe, "nvfp4", "b200", "multi_node_tp", 3)
    assert (r.variant, r.hardware, r.strategy, r.node_count) == (
        "nvfp4",
        "b200",
        "multi_node_tp",
        3,
    )
    assert r.head.argv[2] == "acme/Choice-NVFP4"
    assert len(r.workers) == 2


def test_alternative_multi_node_strategy_defaults_to_its_floor(recipe):
    assert render_choice(ctx, recipe, hw_id="h200", strategy_id="multi_node_tp").node_count == 2
    assert render_choice(ctx, recipe, hw_id="h100", strategy_id="multi_node_tp").node_count == 4


def test_unknown_variant(recipe):
    with pytest.raises(ChoiceError, match=r"no variant 'fp16'; variants: default, nvfp4"):
        render_choice(ctx, recipe, "fp16")


def test_hardware_not_offered(recipe):
    with pytest.raises(
        ChoiceError,
        match=r"'nvfp4' is not offered on 'h200' \(NVFP4 weights need NVIDIA Blackwell hardware\); "
        r"available: b200, gb200, b300, gb300",
    ):
        render_choice(ctx, recipe, "nvfp4", "h200")
    with pytest.raises(ChoiceError, match=r"not offered on 'xeon6'"):
        render_choice(ctx, recipe, hw_id="xeon6")  # restricted, not named in meta.hardware
    with pytest.raises(ChoiceError, match=r"unknown hardware 'no_such_gpu'"):
        render_choice(ctx, recipe, hw_id="no_such_gpu")


def test_strategy_not_offered(recipe):
    with pytest.raises(
        ChoiceError,
        match=r"strategy 'single_node_tp' is not offered on h100; offered: multi_node_tp, "
        r"pd_cluster, kv_store_centralized_mooncake, kv_store_distributed_mooncake",
    ):
        render_choice(ctx, recipe, hw_id="h100", strategy_id="single_node_tp")
    with pytest.raises(ChoiceError, match=r"strategy 'multi_node_dep' is not offered on h200"):
        render_choice(ctx, recipe, hw_id="h200", strategy_id="multi_node_dep")


def test_too_few_nodes(recipe):
    with pytest.raises(ChoiceError, match=r"multi_node_tp needs at least 2 nodes of h200"):
        render_choice(ctx, recipe, hw_id="h200", strategy_id="multi_node_tp", nodes=1)
    with pytest.raises(ChoiceError, match=r"multi_node_tp needs at least 4 nodes of h100"):
        render_choice(ctx, recipe, hw_id="h100", strategy_id="multi_node_tp", nodes=3)
    with pytest.raises(ChoiceError, match=r"needs at least 4 nodes of h100"):
        render_choice(ctx, recipe, hw_id="h100", nodes=2)  # the recommended strategy, too few nodes


def test_nodes_for_a_single_node_strategy(recipe):
    assert render_choice(ctx, recipe, strategy_id="single_node_tp", nodes=1).node_count == 1
    with pytest.raises(ChoiceError, match=r"single_node_tp runs on one node"):
        render_choice(ctx, recipe, strategy_id="single_node_tp", nodes=2)


def test_pd_that_cannot_be_laid_out(recipe):
    recipe["variants"]["default"]["vram_minimum_gb"] = 6000
    with pytest.raises(ChoiceError, match=r"pd_cluster cannot be laid out .* on h200"):
        render_choice(ctx, recipe, hw_id="h200", strategy_id="pd_cluster")


def test_no_variant_fits_a_fixed_size_machine(recipe):
    recipe["meta"]["hardware"]["rtx_5090"] = "verified"
    with pytest.raises(ChoiceError, match=r"no variant of this recipe fits on one rtx_5090"):
        render_choice(ctx, recipe, "nvfp4", "rtx_5090")


def test_omni_recipe(recipe):
    recipe["meta"]["tasks"] = ["omni"]
    with pytest.raises(ChoiceError, match="omni"):
        render_choice(ctx, recipe)


def test_choice_error_is_a_value_error():
    assert issubclass(ChoiceError, ValueError)


def test_too_many_nodes(recipe):
    with pytest.raises(ChoiceError, match=r"at most 16 nodes"):
        render_choice(ctx, recipe, hw_id="h200", strategy_id="multi_node_tp", nodes=17)


def test_kv_store_features_follow_the_serving_strategy():
    """A kv-store deployment runs `vllm serve` under another strategy (single_node_tp here); a
    feature limited to that strategy is offered and rendered, one limited to another is refused."""
    kv_id = ctx.kv_ids[0]
    r = H.recipe(
        features={
            "draft": {"strategies": ["single_node_tp"], "args": ["--speculative-config", "{}"]},
            "elsewhere": {"strategies": ["single_node_dep"], "args": ["--enable-expert-parallel"]},
        },
        compatible_strategies=["single_node_tp"],
    )
    rendering = render_choice(ctx, r, "default", "h100", kv_id, None, {"draft": None})
    assert rendering.kv.serving_strategy == "single_node_tp"
    assert "--speculative-config" in rendering.kv.head.command
    with pytest.raises(ChoiceError, match="'elsewhere' is not available"):
        render_choice(ctx, r, "default", "h100", kv_id, None, {"elsewhere": None})
