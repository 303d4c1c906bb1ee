"""Weight sizing: parameter counts, weight VRAM per precision, and fit on a hardware profile."""

from __future__ import annotations

import pytest

from recipes_site.sizing import (
    BYTES_PER_PARAM,
    declared_mismatch,
    fit,
    parse_parameter_count,
    placements,
    variant_sizing,
    weight_vram_gb,
)

H100 = {
    "brand": "NVIDIA",
    "generation": "hopper",
    "gpu_count": 8,
    "vram_gb": 640,
    "vram_per_gpu_gb": 80,
}
GB200 = {
    "brand": "NVIDIA",
    "generation": "blackwell",
    "gpu_count": 4,
    "vram_gb": 768,
    "vram_per_gpu_gb": 192,
}


# -- parameter counts ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, billions",
    [
        ("70B", 70.0),
        ("1.2B", 1.2),
        ("1T", 1000.0),
        ("500M", 0.5),
        ("2.5t", 2500.0),
        ("~30B", 30.0),
        (" 8 B ", 8.0),
        ("100K", 0.0001),
    ],
)
def test_parse_parameter_count(text, billions):
    assert parse_parameter_count(text) == pytest.approx(billions)


@pytest.mark.parametrize(
    "text", ["", "70", "B", "seventy B", "70 billion", "1,000B", "70BB", "-5B", None, True, [70]]
)
def test_parse_parameter_count_rejects_non_counts(text):
    assert parse_parameter_count(text) is None


def test_parse_parameter_count_numbers():
    assert parse_parameter_count(70) == 70.0  # already billions
    assert parse_parameter_count(7_000_000_000) == 7.0  # raw parameter count


# -- weight VRAM ------------------------------------------------------------------------------------


def test_70b_bf16_is_168_gb_without_float_artefact():
    # 70 x 2 x 1.2 = 168.00000000000003 in binary floating point; must not round up to 169
    assert weight_vram_gb(70, "bf16") == 168
    assert isinstance(weight_vram_gb(70, "bf16"), int)


@pytest.mark.parametrize(
    "precision, width",
    [
        ("bf16", 2),
        ("fp16", 2),
        ("fp8", 1),
        ("int8", 1),
        ("mxfp8", 1),
        ("awq", 1),
        ("gptq", 1),
        ("fp4", 0.5),
        ("nvfp4", 0.5),
        ("mxfp4", 0.5),
        ("int4", 0.5),
    ],
)
def test_precision_widths(precision, width):
    assert BYTES_PER_PARAM[precision] == width
    assert weight_vram_gb(100, precision) == round(100 * width * 1.2)


def test_weight_vram_examples():
    assert weight_vram_gb(70, "fp8") == 84
    assert weight_vram_gb(70, "nvfp4") == 42
    assert weight_vram_gb(1.2, "bf16") == 3  # 2.88 rounds up
    assert weight_vram_gb(1000, "fp8") == 1200


def test_weight_vram_unknown_precision_or_count():
    assert weight_vram_gb(70, "int2/4/8") is None
    assert weight_vram_gb(70, "q5_k_m") is None
    assert weight_vram_gb(None, "bf16") is None


def test_fp32_has_a_width():
    assert weight_vram_gb(7, "fp32") == 34  # 7 x 4 x 1.2 = 33.6


# -- fit on hardware ----------------------------------------------------------------------------------


def test_70b_bf16_on_h100_needs_two_gpus():
    f = fit(168, "h100", H100)
    assert f.min_gpus == 2  # 2 x 80 GiB = 171.8 GB >= 168 GB
    assert f.tensor_parallel == 2
    assert f.replicas_per_node == 4
    assert f.fits_one_node is True
    assert f.fits_one_gpu is False
    assert f.nodes_needed == 1
    assert f.gpu_count == 8
    assert f.vram_per_gpu_gib == 80


def test_1680_gb_on_h100_needs_three_nodes():
    f = fit(1680, "h100", H100)
    assert f.min_gpus == 20
    assert f.fits_one_node is False
    assert f.tensor_parallel is None
    assert f.replicas_per_node == 0
    assert f.nodes_needed == 3


def test_gib_aware_full_node():
    # 640 decimal GB fit in 8 x 80 GiB (687 GB), so one full node, not "does not fit"
    f = fit(640, "h100", H100)
    assert (f.min_gpus, f.tensor_parallel, f.replicas_per_node, f.fits_one_node) == (8, 8, 1, True)


def test_tensor_parallel_is_next_power_of_two():
    f = fit(500, "gb200", GB200)  # 192 GiB = 206.2 GB per GPU -> 3 GPUs -> TP 4
    assert (f.min_gpus, f.tensor_parallel, f.replicas_per_node) == (3, 4, 1)


def test_fit_one_gpu():
    f = fit(42, "h100", H100)
    assert (f.fits_one_gpu, f.min_gpus, f.tensor_parallel, f.replicas_per_node) == (True, 1, 1, 8)


def test_fit_without_per_gpu_figure_divides_node_total():
    f = fit(168, "x", {"gpu_count": 8, "vram_gb": 640})
    assert f.vram_per_gpu_gib == 80
    assert f.min_gpus == 2


def test_fit_unknown():
    assert fit(0, "h100", H100) is None
    assert fit(100, "x", {"gpu_count": 8}) is None


def test_fit_as_dict_keys():
    assert list(fit(168, "h100", H100).as_dict()) == [
        "weights_gb",
        "gpu_count",
        "vram_per_gpu_gib",
        "fits_one_gpu",
        "fits_one_node",
        "min_gpus",
        "tensor_parallel",
        "replicas_per_node",
        "nodes_needed",
    ]


# -- per variant ------------------------------------------------------------------------------------


def test_variant_sizing_computed_when_not_declared():
    recipe = {"model": {"parameter_count": "70B"}}
    out = variant_sizing(recipe, {"precision": "bf16"}, {"h100": H100, "gb200": GB200})
    assert out["computed_vram_gb"] == 168
    assert out["declared_vram_gb"] is None
    assert out["basis_gb"] == 168
    assert list(out["hardware"]) == ["h100", "gb200"]
    assert out["hardware"]["h100"]["min_gpus"] == 2
    assert out["hardware"]["gb200"]["min_gpus"] == 1


def test_variant_sizing_prefers_declared():
    recipe = {"model": {"parameter_count": "70B"}}
    out = variant_sizing(recipe, {"precision": "bf16", "vram_minimum_gb": 1680}, {"h100": H100})
    assert (out["computed_vram_gb"], out["declared_vram_gb"], out["basis_gb"]) == (168, 1680, 1680)
    assert out["hardware"]["h100"]["nodes_needed"] == 3


def test_variant_sizing_unknown_count():
    out = variant_sizing(
        {"model": {"parameter_count": "lots"}}, {"precision": "bf16"}, {"h100": H100}
    )
    assert out == {
        "computed_vram_gb": None,
        "declared_vram_gb": None,
        "basis_gb": None,
        "hardware": {},
    }


def _fresh(weights, profiles: dict) -> dict:
    return {
        h: f.placement() for h, p in profiles.items() for f in [fit(weights, h, p)] if f is not None
    }


def test_placements_are_fit_placements_where_fit_has_one():
    per_gpu_one = {"gpu_count": 1, "vram_per_gpu_gb": 1.0}
    per_gpu_true = {
        "gpu_count": 1,
        "vram_per_gpu_gb": True,
    }  # == 1.0 in Python, but not a number to fit
    assert placements(10, {"x": per_gpu_one}) == _fresh(10, {"x": per_gpu_one}) != {}
    assert placements(10, {"x": per_gpu_true}) == _fresh(10, {"x": per_gpu_true}) == {}


def test_declared_mismatch():
    assert declared_mismatch(200, 168) == pytest.approx(32 / 168)
    assert declared_mismatch(None, 168) is None
    assert declared_mismatch(True, 168) is None
    assert declared_mismatch(100, None) is None


@pytest.mark.parametrize(
    "profile, expected",
    [
        ({"display_name": "RTX Pro 6000 8x", "gpu_count": 8}, "RTX Pro 6000"),
        ({"display_name": "RTX PRO 5000 Blackwell 4x", "gpu_count": 4}, "RTX PRO 5000 Blackwell"),
        ({"display_name": "RTX 5090 (2×)", "gpu_count": 2}, "RTX 5090"),
        ({"display_name": "H100", "gpu_count": 8}, "H100"),
        (
            {"display_name": "GB200 NVL4", "gpu_count": 4},
            "GB200 NVL4",
        ),  # a product name, not a count
        ({"display_name": "Box 2x", "gpu_count": 4}, "Box 2x"),  # a count that is not the profile's
    ],
)
def test_gpu_label_drops_only_the_profiles_own_count(profile, expected):
    """ "8 × RTX Pro 6000 8x" counted the cards twice in the header, the plan and its reason."""
    from recipes_site.sizing import gpu_label

    assert gpu_label(profile) == expected


def test_built_pages_never_multiply_a_box_name(tmp_path):
    """The card header (hardware documents) and the page's hardware table name one GPU of the box."""
    import json

    from recipes_site.build import build
    from recipes_site.catalog import PROJECT_ROOT

    out = tmp_path / "site"
    assert build(PROJECT_ROOT, out).ok
    doc = json.loads(
        (out / "api/v1/models/moonshotai/Kimi-K2.6/hw/rtx_pro_6000_8x.json").read_text(
            encoding="utf-8"
        )
    )
    summaries = {r["parts"]["summary"] for r in doc["renderings"]}
    assert summaries and all(s.startswith("8× RTX Pro 6000 ·") for s in summaries), summaries
    page = (out / "moonshotai/Kimi-K2.6/index.html").read_text(encoding="utf-8")
    assert '"gpu":"RTX Pro 6000"' in page and "× RTX Pro 6000 8x" not in page
