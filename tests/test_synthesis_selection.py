"""Selection (REFERENCE-BEHAVIOUR §2): hardware list, default hardware, variant substitution on
non-scalable machines, the strategy set per hardware, the recommended strategy and node count."""

from __future__ import annotations

import synthesis_kit as H

from recipes_site.synthesis import synthesize_recipe
from recipes_site.synthesis.selection import (
    default_hardware,
    effective_strategies,
    hardware_list,
    min_gpus,
    nodes_for_strategy,
    recommend,
    strategy_set,
    substitute_variant,
)

ctx = H.context()
KV = ["kv_store_centralized_mooncake", "kv_store_distributed_mooncake"]
DATACENTRE = ["h200", "h100", "b200", "gb200", "b300", "gb300", "mi300x", "mi325x", "mi355x"]


def variant_of(recipe, key="default"):
    return recipe["variants"][key]


def hw_list(recipe, key="default"):
    return hardware_list(ctx, recipe, variant_of(recipe, key))


def offered(recipe, hw_id):
    return strategy_set(ctx, recipe, H.hw(hw_id))


def pick(recipe, hw_id, key="default"):
    r = recommend(ctx, recipe, variant_of(recipe, key), H.hw(hw_id), offered(recipe, hw_id))
    return r.strategy, r.nodes


def test_context_loaded_from_project_files():
    assert ctx.kv_ids == tuple(KV)
    assert list(ctx.strategies)[-2:] == KV
    assert ctx.deploy_type("multi_node_tp") == "multi_node"
    assert ctx.deploy_type("pd_cluster") == "pd_cluster"
    assert ctx.deploy_type("kv_store_distributed_mooncake") == "kv_store_lb"
    assert ctx.deploy_type("no_such_strategy") == "single_node"


# -- hardware list and default hardware (§2.1, §2.2) -------------------------------------------------


def test_default_is_h200_and_list_is_unrestricted_taxonomy_order():
    r = H.recipe()
    assert default_hardware(ctx, r, variant_of(r)) == "h200"
    assert hw_list(r) == DATACENTRE


def test_nvfp4_defaults_to_b200_and_lists_only_blackwell():
    r = H.recipe(precision="nvfp4")
    assert hw_list(r) == ["b200", "gb200", "b300", "gb300"]


def test_fp4_behaves_like_nvfp4():
    r = H.recipe(precision="fp4")
    assert hw_list(r)[0] == "b200"


def test_nvfp4_keeps_named_restricted_blackwell_but_not_hopper():
    r = H.recipe(
        precision="nvfp4",
        meta={
            "hardware": {
                "dgx_spark_gb10": "verified",
                "h100": "verified",
                "rtx_4090_2x": "verified",
            }
        },
    )
    # rtx_4090_2x is Ada, not Blackwell; h100 is Hopper
    assert hw_list(r) == ["b200", "gb200", "b300", "gb300", "dgx_spark_gb10"]


def test_nvfp4_without_b200_falls_back_to_gb200():
    r = H.recipe(precision="nvfp4", meta={"hardware": {"b200": "unsupported"}})
    assert hw_list(r) == ["gb200", "b300", "gb300"]


def test_precision_hardware_brand_only_relaxes_nvfp4_to_hopper():
    r = H.recipe(precision="nvfp4")
    r["variants"]["default"]["precision_hardware"] = {"brand": "NVIDIA"}
    assert hw_list(r) == ["h200", "h100", "b200", "gb200", "b300", "gb300"]


def test_precision_hardware_amd_with_supported_hardware_defaults_to_mi300x():
    r = H.recipe(precision="mxfp4")
    r["variants"]["default"].update(
        precision_hardware={"brand": "AMD"}, supported_hardware=["mi355x", "mi325x", "mi300x"]
    )
    assert default_hardware(ctx, r, variant_of(r)) == "mi300x"  # brand rank, then id
    assert hw_list(r) == ["mi300x", "mi325x", "mi355x"]  # taxonomy order after the default


def test_supported_hardware_allowlist():
    r = H.recipe()
    r["variants"]["default"]["supported_hardware"] = ["gb300", "b200"]
    assert hw_list(r) == ["b200", "gb300"]  # no h200 among candidates: NVIDIA ids sorted -> b200


def test_meta_default_hardware_honoured():
    r = H.recipe(meta={"default_hardware": "b300"})
    assert hw_list(r) == [
        "b300",
        "h100",
        "h200",
        "b200",
        "gb200",
        "gb300",
        "mi300x",
        "mi325x",
        "mi355x",
    ]


def test_meta_default_hardware_ignored_when_not_a_candidate():
    r = H.recipe(meta={"default_hardware": "xeon6"})  # restricted and not named in meta.hardware
    assert hw_list(r)[0] == "h200"
    assert "xeon6" not in hw_list(r)


def test_unsupported_removes_a_profile():
    r = H.recipe(meta={"hardware": {"h200": "unsupported", "mi300x": "unsupported"}})
    assert hw_list(r) == ["b200", "h100", "gb200", "b300", "gb300", "mi325x", "mi355x"]


def test_restricted_profiles_only_when_named():
    r = H.recipe(
        meta={"hardware": {"xeon6": "verified", "trillium": "supported", "h100": "verified"}}
    )
    assert hw_list(r) == DATACENTRE[:6] + ["mi300x", "mi325x", "mi355x", "trillium", "xeon6"]


def test_restricted_named_as_unsupported_stays_out():
    r = H.recipe(meta={"hardware": {"xeon6": "unsupported"}})
    assert "xeon6" not in hw_list(r)


def test_default_among_non_nvidia_candidates_sorted_by_id():
    r = H.recipe(meta={"hardware": {"xeon6": "verified", "trillium": "verified"}})
    r["variants"]["default"]["supported_hardware"] = ["xeon6", "trillium"]
    assert hw_list(r) == ["trillium", "xeon6"]


def test_no_candidate_at_all_falls_back_to_h200():
    r = H.recipe()
    r["variants"]["default"]["supported_hardware"] = ["no_such_gpu"]
    assert hw_list(r) == ["h200"]


# -- non-scalable substitution (§2.3) --------------------------------------------------------------


def workstation_recipe():
    r = H.recipe(
        vram=200,
        meta={
            "hardware": {
                "rtx_pro_6000": "verified",
                "rtx_5090": "verified",
                "dgx_station_gb300": "verified",
                "dgx_spark_gb10": "verified",
            }
        },
    )
    r["variants"].update(
        {
            "fp8": {"precision": "fp8", "vram_minimum_gb": 100, "model_id": "acme/Test-8B-FP8"},
            "awq": {"precision": "int4", "vram_minimum_gb": 60, "model_id": "acme/Test-8B-AWQ"},
            "nvfp4": {
                "precision": "nvfp4",
                "vram_minimum_gb": 60,
                "model_id": "acme/Test-8B-NVFP4",
            },
            "tiny": {"precision": "int4", "vram_minimum_gb": 30, "supported_hardware": ["h200"]},
        }
    )
    return r


def test_substitution_picks_largest_fitting_variant_ties_in_yaml_order():
    r = workstation_recipe()
    # rtx_pro_6000: 96 GB, not scalable; 200 and 100 do not fit, awq and nvfp4 tie at 60 -> awq (first)
    assert substitute_variant(r, "default", H.hw("rtx_pro_6000")) == "awq"


def test_substitution_respects_precision_and_allowlist():
    r = workstation_recipe()
    r["variants"]["awq"]["vram_minimum_gb"] = 20
    # nvfp4 (60, Blackwell) now beats awq (20); `tiny` is restricted to h200
    assert substitute_variant(r, "default", H.hw("rtx_pro_6000")) == "nvfp4"
    assert substitute_variant(r, "default", H.hw("rtx_5090")) == "awq"  # 32 GB


def test_no_substitution_when_the_variant_fits_or_the_machine_scales():
    r = workstation_recipe()
    assert substitute_variant(r, "default", H.hw("dgx_station_gb300")) == "default"  # 252 >= 200
    assert substitute_variant(r, "default", H.hw("dgx_spark_gb10")) == "default"  # scalable
    assert substitute_variant(r, "default", H.hw("h100")) == "default"


def test_no_fitting_variant_gives_none():
    r = workstation_recipe()
    assert (
        substitute_variant(r, "default", H.hw("rtx_4090_2x")) is None
    )  # 48 GB Ada: awq 60 too big


def test_substituted_variant_is_reported_in_the_rendering():
    r = workstation_recipe()
    out = synthesize_recipe(ctx, "acme/Test-8B", r, set())
    tree = out.trees[0]
    by_hw = {res.hardware: res.recommended for res in tree.by_hardware}
    rendering = by_hw["rtx_pro_6000"]
    assert tree.variant == "default"
    assert rendering.variant == "awq"
    assert rendering.single.argv[:3] == ("vllm", "serve", "acme/Test-8B-AWQ")
    assert rendering.single.argv[3:] == ("--tensor-parallel-size", "1")
    assert by_hw["dgx_station_gb300"].variant == "default"


# -- strategy set (§2.4) -------------------------------------------------------------------------------


def test_effective_strategies_add_granted_and_kv():
    r = H.recipe(
        compatible_strategies=["single_node_tp", "multi_node_tp"],
        strategy_hardware={
            "multi_node_tp_dp": {"gb200": "supported"},
            "single_node_dep": {"h100": "unsupported"},
            "multi_node_tp": {"gb300": "supported"},
        },
    )
    assert (
        effective_strategies(ctx, r) == ["single_node_tp", "multi_node_tp", "multi_node_tp_dp"] + KV
    )


def test_strategy_set_datacentre_vs_non_scalable_vs_non_gpu_brands():
    r = H.recipe(
        compatible_strategies=["single_node_tp", "single_node_tep", "multi_node_tp", "pd_cluster"],
        meta={"hardware": {"rtx_pro_6000_8x": "verified", "trillium": "verified"}},
    )
    assert (
        offered(r, "h200")
        == ["single_node_tp", "single_node_tep", "multi_node_tp", "pd_cluster"] + KV
    )
    assert (
        offered(r, "mi300x")
        == ["single_node_tp", "single_node_tep", "multi_node_tp", "pd_cluster"] + KV
    )
    assert offered(r, "rtx_pro_6000_8x") == ["single_node_tp", "single_node_tep"]
    assert offered(r, "trillium") == [
        "single_node_tp",
        "single_node_tep",
        "multi_node_tp",
        "pd_cluster",
    ]


def test_strategy_hardware_gate_lookup_order():
    r = H.recipe(
        compatible_strategies=["single_node_tp", "single_node_dep"],
        strategy_hardware={
            "single_node_dep": {"h100": "unsupported", "hopper": "supported", "amd": "unsupported"},
            "multi_node_tp_dp": {
                "gb200": "supported",
                "blackwell": "unsupported",
                "nvidia": "supported",
            },
        },
    )
    assert (
        offered(r, "h100") == ["single_node_tp", "multi_node_tp_dp"] + KV
    )  # exact id beats generation
    assert offered(r, "h200") == ["single_node_tp", "single_node_dep", "multi_node_tp_dp"] + KV
    assert offered(r, "gb200") == ["single_node_tp", "single_node_dep", "multi_node_tp_dp"] + KV
    assert (
        offered(r, "b200") == ["single_node_tp", "single_node_dep"] + KV
    )  # generation beats brand
    assert offered(r, "mi300x") == ["single_node_tp"] + KV  # amd: dep off, tp_dp not listed


def test_strategy_hardware_default_key():
    r = H.recipe(
        compatible_strategies=["single_node_tp"],
        strategy_hardware={"single_node_tep": {"default": "supported", "amd": "unsupported"}},
    )
    assert offered(r, "h200") == ["single_node_tp", "single_node_tep"] + KV
    assert offered(r, "mi355x") == ["single_node_tp"] + KV


def test_strategy_min_gpus_reachability():
    r = H.recipe(
        compatible_strategies=["single_node_tp", "multi_node_tp", "multi_node_tp_pp", "pd_cluster"],
        strategy_min_gpus={
            "single_node_tp": 8,
            "multi_node_tp": 8,
            "multi_node_tp_pp": 16,
            "h100": 32,
        },
    )
    # h100: every strategy needs 32 GPUs: single-node unreachable, multi-node fine (16 x 8 = 128)
    assert offered(r, "h100") == ["multi_node_tp", "multi_node_tp_pp", "pd_cluster"] + KV
    assert (
        offered(r, "h200")
        == ["single_node_tp", "multi_node_tp", "multi_node_tp_pp", "pd_cluster"] + KV
    )
    assert (
        offered(r, "gb200") == ["multi_node_tp", "multi_node_tp_pp", "pd_cluster"] + KV
    )  # 8 > 4 GPUs


def test_strategy_min_gpus_multi_node_also_bounded():
    r = H.recipe(compatible_strategies=["single_node_tp", "multi_node_tp"], strategy_min_gpus=129)
    assert offered(r, "h200") == KV  # 16 nodes x 8 GPUs = 128 < 129
    r["strategy_min_gpus"] = 128
    assert offered(r, "h200") == ["multi_node_tp"] + KV


def test_min_gpus_and_nodes_for_strategy():
    r = H.recipe(
        strategy_min_gpus={
            "single_node_tp": 8,
            "multi_node_tp": 16,
            "tp_dp": 24,
            "h100": {"multi_node_tp": 32},
        }
    )
    assert min_gpus(r, "multi_node_tp", H.hw("h100")) == 32
    assert min_gpus(r, "multi_node_tp", H.hw("h200")) == 16
    assert min_gpus(r, "tp", H.hw("h200")) == 16  # role key "tp" -> multi_node_tp
    assert min_gpus(r, "tp_dp", H.hw("h200")) == 24
    assert min_gpus(r, "multi_node_dep", H.hw("h200")) == 0
    assert nodes_for_strategy(r, "multi_node_tp", H.hw("h100")) == 4
    assert nodes_for_strategy(r, "multi_node_tp", H.hw("gb200")) == 4  # 16 / 4 GPUs
    assert nodes_for_strategy(r, "multi_node_dep", H.hw("h200")) == 1
    assert min_gpus(H.recipe(strategy_min_gpus=12), "anything", H.hw("h200")) == 12
    assert min_gpus(H.recipe(), "multi_node_tp", H.hw("h200")) == 0


def test_kv_store_gate_per_hardware():
    r = H.recipe(
        kv_cache_strategy_hardware={"kv_store_centralized_mooncake": {"h200": "unsupported"}}
    )
    assert offered(r, "h200") == ["single_node_tp", "kv_store_distributed_mooncake"]
    assert offered(r, "h100") == ["single_node_tp"] + KV


# -- recommended strategy and node count (§2.5) -------------------------------------------------------


def big_recipe(**top):
    r = H.recipe(
        model_id="acme/Huge-1T",
        vram=1680,
        precision="fp8",
        compatible_strategies=[
            "single_node_tp",
            "single_node_tep",
            "multi_node_tp",
            "multi_node_tep",
            "multi_node_dep",
            "pd_cluster",
        ],
    )
    r.update(top)
    return r


def test_small_model_single_node_tp():
    assert pick(H.recipe(), "h200") == ("single_node_tp", 1)


def test_weights_over_node_vram_go_multi_node_tp_at_two_nodes():
    r = big_recipe()
    assert pick(r, "h100") == ("multi_node_tp", 2)  # 1680 > 640
    assert pick(r, "h200") == ("multi_node_tp", 2)  # 1680 > 1128
    assert pick(r, "mi325x") == ("single_node_tp", 1)  # 2048 >= 1680
    assert pick(r, "b300") == ("single_node_tp", 1)


def test_vram_never_asks_for_more_than_two_nodes():
    r = big_recipe()
    r["variants"]["default"]["vram_minimum_gb"] = 6000
    assert pick(r, "h100") == ("multi_node_tp", 2)


def test_oversized_without_multi_node_stays_single():
    r = big_recipe(compatible_strategies=["single_node_tp", "pd_cluster"])
    assert pick(r, "h100") == ("single_node_tp", 1)


def test_multi_node_preference_without_tp():
    r = big_recipe(compatible_strategies=["single_node_tp", "multi_node_tep", "multi_node_dep"])
    assert pick(r, "h100") == ("multi_node_dep", 2)


def test_default_strategy_single_maps_to_multi_sibling():
    r = big_recipe(default_strategy="single_node_tep")
    assert pick(r, "h100") == ("multi_node_tep", 2)
    assert pick(r, "b300") == ("single_node_tep", 1)


def test_default_strategy_without_sibling_uses_global_order():
    r = big_recipe(
        default_strategy="single_node_tep",
        compatible_strategies=["single_node_tep", "multi_node_dep", "multi_node_tp"],
    )
    assert pick(r, "h100") == ("multi_node_tp", 2)


def test_multi_node_default_strategy_renders_two_nodes_even_when_it_fits():
    r = H.recipe(
        default_strategy="multi_node_tp", compatible_strategies=["single_node_tp", "multi_node_tp"]
    )
    assert pick(r, "h200") == ("multi_node_tp", 2)


def test_strategy_min_gpus_raises_nodes_to_four():
    r = big_recipe(
        default_strategy="single_node_tp",
        strategy_min_gpus={"single_node_tp": 8, "multi_node_tp": 8, "h100": 32},
    )
    assert pick(r, "h100") == ("multi_node_tp", 4)
    assert pick(r, "h200") == ("multi_node_tp", 2)


def test_recommended_not_offered_falls_back_to_first_serving_strategy():
    r = H.recipe(
        default_strategy="single_node_dep",
        compatible_strategies=["single_node_dep", "pd_cluster", "single_node_tep"],
        strategy_hardware={"single_node_dep": {"h100": "unsupported"}},
    )
    assert pick(r, "h200") == ("single_node_dep", 1)
    assert pick(r, "h100") == ("single_node_tep", 1)  # neither pd_cluster nor a kv store


def test_first_listed_strategy_when_no_single_node_tp():
    r = H.recipe(compatible_strategies=["single_node_tep", "single_node_dep"])
    assert pick(r, "h200") == ("single_node_tep", 1)


# -- whole recipe ------------------------------------------------------------------------------------


def test_synthesize_recipe_tree_shape():
    r = big_recipe()
    out = synthesize_recipe(ctx, "acme/Huge-1T", r, set())
    assert out.hf_id == "acme/Huge-1T"
    assert [t.variant for t in out.trees] == ["default"]
    tree = out.trees[0]
    assert tree.model_id == "acme/Huge-1T"
    assert tree.default_hardware == "h200"
    assert [res.hardware for res in tree.by_hardware] == DATACENTRE
    h100 = tree.by_hardware[1]
    assert (
        h100.recommended.strategy,
        h100.recommended.node_count,
        h100.recommended.deploy_type,
    ) == ("multi_node_tp", 2, "multi_node")
    assert [a.strategy for a in h100.alternatives] == [
        "single_node_tp",
        "single_node_tep",
        "multi_node_tep",
        "multi_node_dep",
        "pd_cluster",
    ] + KV
    alt = {a.strategy: a for a in h100.alternatives}
    assert alt["multi_node_tep"].node_count == 2
    assert alt["single_node_tp"].node_count == 1
    assert alt["pd_cluster"].node_count == 1


def test_pd_alternative_dropped_when_pools_need_more_than_four_nodes():
    r = big_recipe()
    r["variants"]["default"]["vram_minimum_gb"] = (
        3000  # ceil(3000 / 640) = 5 nodes per pool on h100
    )
    out = synthesize_recipe(ctx, "acme/Huge-1T", r, set())
    by_hw = {res.hardware: res for res in out.trees[0].by_hardware}
    assert "pd_cluster" not in [a.strategy for a in by_hw["h100"].alternatives]
    assert "pd_cluster" in [a.strategy for a in by_hw["b300"].alternatives]  # ceil(3000 / 2144) = 2


def test_promoted_variants_get_their_own_tree():
    r = workstation_recipe()
    out = synthesize_recipe(ctx, "acme/Test-8B", r, {"acme/Test-8B-FP8"})
    assert [t.variant for t in out.trees] == ["default", "awq", "nvfp4"]
    assert out.skipped_promotions == (("fp8", "acme/Test-8B-FP8"),)
    nvfp4 = out.trees[2]
    assert nvfp4.model_id == "acme/Test-8B-NVFP4"
    assert nvfp4.default_hardware == "b200"
    assert [res.hardware for res in nvfp4.by_hardware] == [
        "b200",
        "gb200",
        "b300",
        "gb300",
        "dgx_station_gb300",
        "dgx_spark_gb10",
        "rtx_pro_6000",
    ]


def test_tree_skipped_when_default_hardware_renders_nothing():
    r = H.recipe(vram=500, meta={"hardware": {"rtx_pro_6000": "verified"}})
    r["variants"]["default"]["supported_hardware"] = ["rtx_pro_6000", "h200"]
    r["meta"]["default_hardware"] = "rtx_pro_6000"
    out = synthesize_recipe(ctx, "acme/Test-8B", r, set())
    assert out.trees == ()


def test_omni_recipe_has_no_renderings():
    r = H.recipe(meta={"tasks": ["omni"]})
    assert synthesize_recipe(ctx, "acme/Omni", r, set()).trees == ()


def test_strategy_hardware_null_entry_falls_through():
    r = H.recipe(
        compatible_strategies=["single_node_tp", "single_node_dep"],
        strategy_hardware={"single_node_dep": {"h100": None, "hopper": "unsupported"}},
    )
    assert offered(r, "h100") == ["single_node_tp"] + KV


def test_default_strategy_not_in_list_is_ignored():
    r = H.recipe(
        default_strategy="single_node_dep",
        compatible_strategies=["single_node_tep", "single_node_tp"],
    )
    assert pick(r, "h200") == ("single_node_tp", 1)


def test_two_variants_sharing_a_checkpoint_render_from_the_last():
    r = H.recipe(model_id="acme/Base")
    r["variants"] = {
        "a": {"precision": "bf16", "vram_minimum_gb": 16, "model_id": "acme/Ckpt"},
        "default": {"precision": "bf16", "vram_minimum_gb": 16, "model_id": "acme/Ckpt"},
    }
    out = synthesize_recipe(ctx, "acme/Base", r, set())
    assert [(t.variant, t.model_id) for t in out.trees] == [
        ("default", "acme/Ckpt"),
        ("a", "acme/Ckpt"),
    ]
    assert out.trees[1].by_hardware[0].recommended.variant == "default"


def test_variant_sharing_the_default_checkpoint_is_still_rendered():
    r = H.recipe(model_id="acme/Base")
    r["variants"]["default"]["model_id"] = "acme/Ckpt"
    r["variants"]["alt"] = {
        "precision": "bf16",
        "vram_minimum_gb": 16,
        "model_id": "acme/Ckpt",
        "extra_args": ["--alt"],
    }
    out = synthesize_recipe(ctx, "acme/Base", r, set())
    rendered = {res.recommended.variant for tree in out.trees for res in tree.by_hardware}
    assert "alt" in rendered


def test_eligible_hardware_and_recommend_equal_their_plain_definitions():
    """eligible_hardware reads the variant's allow-list once and skips an empty constraint, and
    recommend looks at the offer only for a variant that does not fit on one node: the same
    profiles and recommendations as the plain rules, for every profile."""
    from recipes_site.jsish import mapping
    from recipes_site.synthesis.selection import (
        Recommendation,
        allowed_by_variant,
        effective_strategies,
        eligible_hardware,
        fits_node,
        meets_constraint,
        nodes_for_strategy,
        precision_constraint,
        recommend_strategy,
    )

    def plain_eligible(recipe, variant):
        declared = mapping(mapping(recipe.get("meta")).get("hardware"))
        return [
            h
            for h in ctx.profiles
            if not (declared.get(h) == "unsupported" or (H.hw(h).restricted and h not in declared))
            and meets_constraint(precision_constraint(variant), H.hw(h))
            and allowed_by_variant(variant, H.hw(h))
        ]

    def plain_recommend(recipe, variant, hw, offered):
        multi_ok = hw.scalable and any(s.startswith("multi_node_") for s in offered)
        base_nodes = 2 if (not fits_node(hw, variant) and multi_ok) else 1
        choice = recommend_strategy(recipe, effective_strategies(ctx, recipe), base_nodes)
        if choice not in offered:
            fallback = [s for s in offered if s not in ctx.kv_ids and s != "pd_cluster"] or [
                s for s in offered if s not in ctx.kv_ids
            ]
            if fallback:
                choice = fallback[0]
        floor = 2 if ctx.deploy_type(choice) == "multi_node" else 1
        return Recommendation(
            choice, max(base_nodes, max(floor, nodes_for_strategy(recipe, choice, hw)))
        )

    offers = (
        ["single_node_tp"],
        ["single_node_tp", "multi_node_tp"],
        ["multi_node_dep", "pd_cluster"],
        [],
    )
    for vram in (0, 40, 700, 3000):
        for variant in (
            {"vram_minimum_gb": vram},
            {"vram_minimum_gb": vram, "precision": "nvfp4"},
            {"vram_minimum_gb": vram, "supported_hardware": ["h200", "mi300x", "xeon6"]},
            {"vram_minimum_gb": vram, "precision_hardware": {"brand": "AMD"}},
        ):
            r = H.recipe(vram=vram, compatible_strategies=["single_node_tp", "multi_node_tp"])
            r["meta"]["hardware"] = {"b200": "unsupported", "gb300": "supported"}
            r["variants"]["default"] = variant
            assert eligible_hardware(ctx, r, variant) == plain_eligible(r, variant)
            for hw_id in ctx.profiles:
                for offered in offers:
                    assert recommend(ctx, r, variant, H.hw(hw_id), offered) == plain_recommend(
                        r, variant, H.hw(hw_id), offered
                    ), (vram, variant, hw_id, offered)
