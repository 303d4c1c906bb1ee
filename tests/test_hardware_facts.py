"""Issue 26 point 1: hardware profiles carry the facts that decide speed (memory bandwidth, dense
TFLOPS per dtype, interconnect, the weight formats vLLM runs there), each cited, and the picker
never offers a variant whose weight format the hardware runs neither natively nor weight-only.

The rule applies only where a profile declares `precisions`: the reference corpus's taxonomy
does not, and its documents stay byte-identical (checked by compat-parity, not here)."""

from __future__ import annotations

from pathlib import Path

import catalog_kit as kit
import pytest
import synthesis_kit as H

from recipes_site.catalog import load_catalog
from recipes_site.catalog.diagnostics import Level
from recipes_site.catalog.types import HardwareFact
from recipes_site.render.api import RecipeInput, model_doc
from recipes_site.synthesis import ChoiceError, Context, render_choice, synthesize_recipe
from recipes_site.synthesis.hardware import Hardware
from recipes_site.synthesis.selection import (
    eligible_hardware,
    hardware_list,
    substitute_variant,
    unavailable_hardware,
    unavailable_reason,
)

FACTS = HardwareFact.__args__
NEW_PROFILES = (
    "h100_pcie",
    "h100_nvl",
    "h20",
    "gh200",
    "a100_80gb",
    "a100_40gb",
    "a100_80gb_pcie",
    "a100_40gb_pcie",
    "l40s",
    "l4",
    "a10g",
    "rtx_3090",
    "rtx_4090",
    "mi250x",
    "tpu_v5e",
)


@pytest.fixture(scope="module")
def project_catalog(tmp_path_factory):
    """The project's vocabulary (taxonomy, strategies, kv stores, platforms), no recipes."""
    root = kit.copy_project_root(tmp_path_factory.mktemp("hw") / "root", recipes=[])
    (root / "models").mkdir(exist_ok=True)
    return load_catalog(root)


def test_project_taxonomy_validates(project_catalog):
    _, diags = project_catalog
    assert [d for d in diags if d.level is Level.ERROR] == []


@pytest.mark.parametrize("hw_id", NEW_PROFILES)
def test_each_new_profile_is_accepted_with_its_facts(project_catalog, hw_id):
    catalog, _ = project_catalog
    profile = catalog.hardware_profiles()[hw_id]
    assert profile["vram_per_gpu_gb"] * profile["gpu_count"] == profile["vram_gb"]
    assert profile["precisions"]["native"], "every new profile says what vLLM runs there"
    assert profile["restricted"] is True  # opt-in until recipes name it (issue 26 point 3)


def test_every_stated_fact_names_its_source(project_catalog):
    catalog, _ = project_catalog
    stated = 0
    for hw_id, profile in catalog.hardware_profiles().items():
        sources = profile.get("sources") or {}
        for fact in FACTS:
            if fact in profile:
                stated += 1
                assert "http" in sources.get(fact, "") or "vllm/" in sources.get(fact, ""), (
                    f"{hw_id}.{fact} has no cited source"
                )
        assert set(sources) <= set(profile), f"{hw_id}: a source for a fact it does not state"
        if "memory_reported_mib" in profile or "memory_total_gib" in profile:
            assert "http" in profile.get("memory_source", ""), hw_id
    assert stated > 100


def test_tflops_are_dense_and_per_accelerator(project_catalog):
    """A datasheet's headline is often the with-sparsity figure; ours is half of it. Spot-checks
    on cards whose datasheet gives both: H100 SXM (1,979 sparse BF16) and L40S (362.05 dense)."""
    profiles = project_catalog[0].hardware_profiles()
    assert profiles["h100"]["tflops"]["bf16"] == 989.5
    assert profiles["l40s"]["tflops"]["bf16"] == 362.05
    assert "fp8" not in profiles["a100_80gb"]["tflops"]  # Ampere has no FP8 units


def _root_with_h100_lines(tmp_path: Path, lines: str) -> Path:
    root = kit.make_root(tmp_path)
    tax = root / "taxonomy.yaml"
    tax.write_text(
        kit.replace(tax.read_text(), "    vram_gb: 640\n", "    vram_gb: 640\n" + lines),
        encoding="utf-8",
    )
    return root


@pytest.mark.parametrize(
    ("lines", "key_path"),
    [
        ("    tflops: {bf16: 989.5, fp16: 989.5}\n", "hardware_profiles.h100.tflops.fp16"),
        ("    memory_bandwidth_gbps: -3350\n", "hardware_profiles.h100.memory_bandwidth_gbps"),
        ("    precisions: {native: [bf16, fp9]}\n", "hardware_profiles.h100.precisions.native[1]"),
        (
            "    interconnect: {kind: infiniband, gbps: 50}\n",
            "hardware_profiles.h100.interconnect.kind",
        ),
        ('    sources: {speed: "a datasheet"}\n', "hardware_profiles.h100.sources.speed"),
    ],
)
def test_validate_refuses_malformed_facts(tmp_path, lines, key_path):
    diags = load_catalog(_root_with_h100_lines(tmp_path, lines))[1]
    errors = [d for d in diags if d.level is Level.ERROR]
    assert [(Path(d.path).name, d.key_path) for d in errors] == [("taxonomy.yaml", key_path)]


def test_validate_accepts_well_formed_facts(tmp_path):
    lines = (
        "    memory_bandwidth_gbps: 3350\n"
        "    tflops: {bf16: 989.5, fp8: 1979, int8: 1979}\n"
        "    interconnect: {kind: nvlink, gbps: 900}\n"
        "    precisions: {native: [bf16, fp8], weight_only: [int4]}\n"
        '    sources: {tflops: "H100 datasheet, https://example.org"}\n'
    )
    diags = load_catalog(_root_with_h100_lines(tmp_path, lines))[1]
    assert [d for d in diags if d.level is Level.ERROR] == []


# -- the rule ----------------------------------------------------------------------------------------

PROFILES = {
    # an Ampere-like box: FP8 only through weight-only kernels, no FP4 at all
    "ampere": {
        "brand": "NVIDIA",
        "generation": "ampere",
        "display_name": "Ampere box",
        "gpu_count": 8,
        "vram_gb": 640,
        "precisions": {"native": ["bf16", "fp16", "int8"], "weight_only": ["fp8", "int4"]},
    },
    # a CDNA2-like box: neither FP8 nor FP4
    "cdna2": {
        "brand": "AMD",
        "generation": "cdna2",
        "display_name": "MI250X",
        "gpu_count": 8,
        "vram_gb": 512,
        "precisions": {"native": ["bf16", "fp16", "int8"], "weight_only": ["int4"]},
    },
    # one 24 GB card that cannot be clustered, without FP8 kernels
    "card": {
        "brand": "NVIDIA",
        "generation": "ampere",
        "display_name": "Small card",
        "gpu_count": 1,
        "vram_gb": 24,
        "scalable": False,
        "precisions": {"native": ["bf16"], "weight_only": ["int4"]},
    },
    # a profile that says nothing: the reference corpus's kind
    "plain": {"brand": "NVIDIA", "generation": "hopper", "gpu_count": 8, "vram_gb": 640},
}


def _ctx(profiles: dict = PROFILES) -> Context:
    base = H.context()
    return Context(profiles=profiles, strategies=base.strategies, kv_ids=base.kv_ids)


def _recipe(**variants) -> dict:
    r = H.recipe()
    r["variants"] = {"default": {"precision": "bf16", "vram_minimum_gb": 16}, **variants}
    return r


def test_weight_only_formats_are_offered():
    ctx = _ctx()
    fp8 = {"precision": "fp8", "vram_minimum_gb": 8}
    assert "ampere" in eligible_hardware(ctx, _recipe(fp8=fp8), fp8)


def test_a_format_the_hardware_cannot_run_is_not_offered():
    ctx = _ctx()
    fp8 = {"precision": "fp8", "vram_minimum_gb": 8}
    recipe = _recipe(fp8=fp8)
    assert "cdna2" not in eligible_hardware(ctx, recipe, fp8)
    assert "cdna2" not in hardware_list(ctx, recipe, fp8)
    assert "cdna2" in eligible_hardware(ctx, recipe, recipe["variants"]["default"])
    assert unavailable_hardware(ctx, recipe, fp8) == {
        "cdna2": "vLLM runs no FP8 kernel on MI250X, natively or weight-only",
        "card": "vLLM runs no FP8 kernel on Small card, natively or weight-only",
    }


def test_a_profile_without_precisions_rules_nothing_out():
    ctx = _ctx()
    mxfp4 = {"precision": "mxfp4", "vram_minimum_gb": 8}
    assert "plain" in eligible_hardware(ctx, _recipe(mxfp4=mxfp4), mxfp4)
    assert ctx.hardware("plain").precision_problem("mxfp4") is None


@pytest.mark.parametrize(
    ("precision", "runs_on_cdna2"),
    [
        ("bf16", True),
        ("int4", True),
        ("awq", True),  # 4-bit integer weights
        ("gptq", True),
        ("fp8", False),
        ("nvfp4", False),
        ("fp4", False),  # the reference corpus's name for NVFP4
        ("mxfp4", False),
        ("mxfp8", False),
        ("int2/4/8", True),  # names no single format: asks nothing
        (None, True),
    ],
)
def test_variant_precisions_map_to_the_format_they_need(precision, runs_on_cdna2):
    assert (_ctx().hardware("cdna2").precision_problem(precision) is None) is runs_on_cdna2


def test_substitution_on_a_fixed_box_skips_variants_it_cannot_run():
    """The largest variant that fits a box that cannot be clustered, among those it can run: the
    FP8 checkpoint fits the card but has no kernel there, so the 4-bit one is rendered."""
    recipe = _recipe(
        fp8={"precision": "fp8", "vram_minimum_gb": 20},
        awq={"precision": "awq", "vram_minimum_gb": 12},
    )
    recipe["variants"]["default"]["vram_minimum_gb"] = 60
    assert substitute_variant(recipe, "default", _ctx().hardware("card")) == "awq"


def test_recipe_constraints_and_precisions_both_give_reasons():
    ctx = _ctx()
    nvfp4 = {"precision": "nvfp4", "vram_minimum_gb": 8}
    assert unavailable_reason(nvfp4, ctx.hardware("plain")) == (
        "NVFP4 weights need NVIDIA Blackwell hardware"
    )
    assert unavailable_reason({"precision": "bf16"}, ctx.hardware("cdna2")) is None


def test_the_cli_says_why_a_variant_is_not_offered():
    recipe = _recipe(fp8={"precision": "fp8", "vram_minimum_gb": 8})
    with pytest.raises(ChoiceError, match=r"not offered on 'cdna2' \(vLLM runs no FP8 kernel"):
        render_choice(_ctx(), recipe, "fp8", "cdna2")


def test_the_model_document_publishes_the_reasons_only_with_precisions():
    recipe = _recipe(fp8={"precision": "fp8", "vram_minimum_gb": 8})
    ctx = _ctx()
    rec = RecipeInput("acme/Test-8B", recipe, synthesize_recipe(ctx, "acme/Test-8B", recipe, set()))
    doc = model_doc(rec, ctx.profiles, ctx)
    assert doc["unavailable_hardware"]["fp8"]["cdna2"].startswith("vLLM runs no FP8 kernel")
    assert "cdna2" not in doc["default_hardware"].values()
    plain = {"plain": PROFILES["plain"]}
    ctx = _ctx(plain)
    rec = RecipeInput("acme/Test-8B", recipe, synthesize_recipe(ctx, "acme/Test-8B", recipe, set()))
    assert "unavailable_hardware" not in model_doc(rec, plain, ctx)


# -- the project's profiles -------------------------------------------------------------------------


def test_project_profiles_follow_vllm_on_fp8_and_fp4():
    """Ampere runs FP8 checkpoints through FP8 Marlin (weight-only); MI250X (gfx90a) has no FP8
    path at all; Blackwell computes NVFP4; a TPU is offered BF16 only."""
    ctx = H.context()
    fp8 = {"precision": "fp8", "vram_minimum_gb": 8}
    recipe = H.recipe(
        variants={"default": {"precision": "bf16", "vram_minimum_gb": 16}, "fp8": fp8},
        meta={
            "title": "Test",
            "tasks": ["text"],
            "hardware": {h: "supported" for h in ("a100_80gb", "rtx_3090", "mi250x", "tpu_v5e")},
        },
    )
    offered = hardware_list(ctx, recipe, fp8)
    assert {"a100_80gb", "rtx_3090"} <= set(offered)
    assert not {"mi250x", "tpu_v5e"} & set(offered)
    assert Hardware("b200", ctx.profiles["b200"]).precision_problem("nvfp4") is None
    assert "nvfp4" in ctx.profiles["h100"]["precisions"]["weight_only"]  # FP4 Marlin
    assert ctx.hardware("a100_40gb").precision_problem("fp8") is None
    assert ctx.hardware("tpu_v5e").precision_problem("int4") is not None


def test_the_model_page_names_the_precision_reason_on_a_disabled_pill():
    from recipes_site.render.pages import unavailable_reasons
    from recipes_site.render.picker import picker_summary

    # a variant with a checkpoint of its own is a tree of the picker
    fp8 = {"precision": "fp8", "vram_minimum_gb": 8, "model_id": "acme/Test-8B-FP8"}
    recipe = _recipe(fp8=fp8)
    ctx = _ctx()
    rec = RecipeInput("acme/Test-8B", recipe, synthesize_recipe(ctx, "acme/Test-8B", recipe, set()))
    reasons = unavailable_reasons(rec, ctx, picker_summary(rec, ctx, None))
    assert reasons["fp8"]["cdna2"] == (
        "vLLM runs no FP8 kernel on MI250X, natively or weight-only (available with BF16 · 12 GiB)"
    )
    assert "cdna2" not in reasons["default"]
