"""Weight sizing: how much memory a variant's weights need and how that maps onto a machine.

Two unit systems meet here on purpose. Weights are counted in decimal gigabytes
(`ceil(params x bytes_per_param x 1.2)`, the figure recipes declare as `vram_minimum_gb`),
while vendors' memory sizes (H100 "80 GB", H200 "141 GB") are binary gibibytes. Comparing the
two without converting would claim 70B BF16 (168 GB) needs three H100s; it fits on two
(2 x 80 GiB = 171.8 GB).

The reference site selects hardware and node counts with the declared `vram_minimum_gb`
against nominal node VRAM; synthesis keeps doing exactly that. The numbers here are advice
shown beside the command (GPUs needed, the smallest tensor-parallel size, replicas per node)
and the basis of the `validate` warning when the declared figure looks wrong.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from recipes_site.jsish import mapping
from recipes_site.parameters import parameter_count

OVERHEAD = 1.2
GIB_IN_GB = 2**30 / 1e9
MISMATCH_TOLERANCE = 0.15

BYTES_PER_PARAM = {
    "fp32": 4,
    "bf16": 2,
    "fp16": 2,
    "fp8": 1,
    "int8": 1,
    "awq": 1,
    "gptq": 1,
    "mxfp8": 1,
    "fp4": 0.5,
    "nvfp4": 0.5,
    "mxfp4": 0.5,
    "int4": 0.5,
}

# at most 15 digits on either side of the point: a longer run is no parameter count (a 320-digit
# one overflowed float arithmetic to inf), so it is text, shown as written and never sized
_COUNT = re.compile(r"^\s*~?\s*(\d{1,15}(?:\.\d{1,15})?)\s*([KMBT])\s*$", re.IGNORECASE)
_SCALE = {"K": 1e-6, "M": 1e-3, "B": 1.0, "T": 1e3}


def parse_parameter_count(text) -> float | None:
    """Billions of parameters from "70B", "1.2B", "1T", "500M"; None when it is not a count."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return float(text) / 1e9 if text > 1e6 else float(text)
    if not isinstance(text, str):
        return None
    m = _COUNT.match(text)
    if not m:
        return None
    return float(m.group(1)) * _SCALE[m.group(2).upper()]


def weight_vram_gb(params_billions: float | None, precision: str | None) -> int | None:
    """`ceil(params x bytes x 1.2)` in decimal GB; None for a precision without a byte width."""
    width = BYTES_PER_PARAM.get(precision) if precision is not None else None
    if width is None or params_billions is None:
        return None
    # round() first: a binary float a hair above an integer (fractional counts such as 2.3B)
    # must not be pushed to the next gigabyte
    return math.ceil(round(params_billions * width * OVERHEAD, 6))


def declared_mismatch(declared, computed) -> float | None:
    """Relative gap between a declared and a computed figure, or None when either is missing."""
    if not isinstance(declared, (int, float)) or isinstance(declared, bool) or not computed:
        return None
    return abs(declared - computed) / computed


@dataclass(frozen=True)
class Fit:
    """How one variant's weights land on one hardware profile."""

    hardware: str
    weights_gb: float
    gpu_count: int
    vram_per_gpu_gib: float
    fits_one_gpu: bool
    fits_one_node: bool
    min_gpus: int
    tensor_parallel: int | None  # smallest power of two holding the weights within one node
    replicas_per_node: int  # 0 when one node is not enough
    nodes_needed: int  # nodes for one copy of the weights

    def placement(self) -> dict:
        """The per-hardware facts (the weights figure and GPU facts live one level up)."""
        return {
            "fits_one_gpu": self.fits_one_gpu,
            "fits_one_node": self.fits_one_node,
            "min_gpus": self.min_gpus,
            "tensor_parallel": self.tensor_parallel,
            "replicas_per_node": self.replicas_per_node,
            "nodes_needed": self.nodes_needed,
        }

    def as_dict(self) -> dict:
        return {
            "weights_gb": self.weights_gb,
            "gpu_count": self.gpu_count,
            "vram_per_gpu_gib": self.vram_per_gpu_gib,
            "fits_one_gpu": self.fits_one_gpu,
            "fits_one_node": self.fits_one_node,
            "min_gpus": self.min_gpus,
            "tensor_parallel": self.tensor_parallel,
            "replicas_per_node": self.replicas_per_node,
            "nodes_needed": self.nodes_needed,
        }


_COUNT_SUFFIX = re.compile(r"\s*\(?(\d+)\s*[x×]\)?$")


def gpu_label(profile: dict, hw_id: str = "") -> str:
    """The name of one GPU of a profile: workstation profiles name the box ("RTX Pro 6000 8x"),
    and "8 × RTX Pro 6000 8x" would count the cards twice, so a trailing count that equals the
    profile's gpu_count is dropped ("8 × RTX Pro 6000")."""
    name = str(profile.get("display_name") or hw_id)
    m = _COUNT_SUFFIX.search(name)
    if m and int(m.group(1)) == (profile.get("gpu_count") or 1) and m.start() > 0:
        return name[: m.start()]
    return name


def per_gpu_gib(profile: dict) -> float:
    declared = profile.get("vram_per_gpu_gb")
    if isinstance(declared, (int, float)) and not isinstance(declared, bool) and declared > 0:
        return float(declared)
    count = profile.get("gpu_count") or 1
    return float(profile.get("vram_gb") or 0) / count


def fit(weights_gb: float, hw_id: str, profile: dict) -> Fit | None:
    """How `weights_gb` of weights land on `profile` (None when either is unknown)."""
    gpus = int(profile.get("gpu_count") or 1)
    gib = per_gpu_gib(profile)
    if not weights_gb or gib <= 0:
        return None
    capacity_gb = gib * GIB_IN_GB
    min_gpus = max(1, math.ceil(round(weights_gb / capacity_gb, 6)))
    tp = 1
    while tp < min_gpus:
        tp *= 2
    in_node = tp <= gpus
    return Fit(
        hardware=hw_id,
        weights_gb=weights_gb,
        gpu_count=gpus,
        vram_per_gpu_gib=gib,
        fits_one_gpu=min_gpus == 1,
        fits_one_node=min_gpus <= gpus,
        min_gpus=min_gpus,
        tensor_parallel=tp if in_node else None,
        replicas_per_node=gpus // tp if in_node else 0,
        nodes_needed=math.ceil(min_gpus / gpus),
    )


# -- mixed-precision checkpoints, sized per component ------------------------------------------------

# MXFP4 stores 4-bit values plus one E8M0 (1-byte) scale per block of 32: 0.5 + 1/32 bytes per
# parameter (vllm/model_executor/layers/quantization/mxfp4.py:212 `mxfp4_block = 32`, the weight
# tensors `hidden_size // 2` and scales `hidden_size // mxfp4_block`, mxfp4.py:224-236).
MXFP4_BYTES_PER_PARAM = 0.5 + 1 / 32
# quant_method -> bytes per routed-expert parameter, for checkpoints whose other weights stay in the
# 16-bit model dtype: vLLM's MXFP4 config quantizes only the routed experts and loads every linear
# layer unquantized (mxfp4.py:94-107), as gpt-oss ships them (attention, router, embeddings in BF16).
EXPERTS_ONLY_QUANT_BYTES = {"mxfp4": MXFP4_BYTES_PER_PARAM}
MODEL_DTYPE_BYTES = 2


def mixed_precision_method(recipe: dict, variant: dict) -> str | None:
    """The `hf_config.quantization_config.quant_method` a variant's weights are sized by, or None.

    Only the checkpoint that config.json describes (the variant serving `model.model_id`) and only
    when the variant's precision is that method: other checkpoints may quantize differently."""
    model = recipe.get("model") or {}
    method = mapping(mapping(model.get("hf_config")).get("quantization_config")).get("quant_method")
    if method not in EXPERTS_ONLY_QUANT_BYTES or variant.get("precision") != method:
        return None
    checkpoint = variant.get("model_id")
    return method if checkpoint in (None, model.get("model_id")) else None


def component_weights_bytes(recipe: dict, variant: dict) -> float | None:
    """Bytes of a mixed-precision checkpoint's weights, component by component (routed experts in
    the quantized format, everything else in the 16-bit model dtype); None unless the recipe
    declares one (`mixed_precision_method`) and hf_config has the shapes to count."""
    method = mixed_precision_method(recipe, variant)
    if method is None:
        return None
    try:
        count = parameter_count(recipe["model"]["hf_config"])
    except (KeyError, TypeError, ZeroDivisionError):
        return None
    experts = count.routed_experts
    return experts * EXPERTS_ONLY_QUANT_BYTES[method] + (count.total - experts) * MODEL_DTYPE_BYTES


def component_weights_gb(recipe: dict, variant: dict) -> int | None:
    """`component_weights_bytes` as a weight figure (`ceil(GB x 1.2)`, as `weight_vram_gb`), or None."""
    exact = component_weights_bytes(recipe, variant)
    return None if exact is None else math.ceil(round(exact / 1e9 * OVERHEAD, 6))


def variant_weights_gb(recipe: dict, variant: dict) -> tuple[int | None, int | float | None]:
    """(computed, declared) weight figures of a variant, either None when unknown. A declared
    mixed-precision checkpoint is computed per component (`component_weights_bytes`)."""
    params = parse_parameter_count((recipe.get("model") or {}).get("parameter_count"))
    computed = weight_vram_gb(params, variant.get("precision")) if params else None
    exact = component_weights_gb(recipe, variant)
    if exact is not None:
        computed = exact
    return computed, declared_vram_gb(variant)


def declared_vram_gb(variant: dict) -> int | float | None:
    """The variant's `vram_minimum_gb` when it is a number (None otherwise)."""
    declared = variant.get("vram_minimum_gb")
    return (
        declared if isinstance(declared, (int, float)) and not isinstance(declared, bool) else None
    )


def variant_sizing(recipe: dict, variant: dict, profiles: dict) -> dict:
    """Sizing of one variant on every profile, keyed by hardware id (declared figure preferred)."""
    computed, declared = variant_weights_gb(recipe, variant)
    basis = declared or computed
    return {
        "computed_vram_gb": computed,
        "declared_vram_gb": declared,
        "basis_gb": basis,
        "hardware": placements(basis, profiles) if basis else {},
    }


def placements(weights_gb: float, profiles: dict) -> dict:
    """`fit(...).placement()` of a weights figure on every profile where it has one, by hardware id."""
    out = {}
    for hw_id, profile in profiles.items():
        found = fit(weights_gb, hw_id, profile)
        if found is not None:
            out[hw_id] = found.placement()
    return out
