"""How fast a layout serves: a calibrated roofline of decode and prefill (docs/speed.md).

A stage above plan.py: from a model's shapes (its `hf_config`, `ModelShape`), one GPU's speed facts
(the taxonomy's `memory_bandwidth_gbps`, dense `tflops` and `interconnect`, `GpuSpeed`) and a
layout (tensor-parallel size, replicas, KV tokens, `Layout`), `estimate` gives decode tokens/s per
request and in total at concurrency 1, 8, 32, 128 and the KV-bounded maximum, and the time to
first token of 1k and 8k-token prompts, each as a range:

    decode step = overhead + max(bytes read / (bandwidth x e_bw), FLOPs / (peak x e_fl)) + comm
      bytes read = (dense weights + routed experts x share touched by the batch) / TP
                   + batch x context x KV bytes per token per GPU
      FLOPs      = 2 x active parameters x batch / TP
      comm       = 2 all-reduces per layer: latency + 2 (TP-1)/TP x batch x hidden x 2 B / link
    prefill     = overhead + max(weights / bandwidth, (2 x active x L + 2 x layers x hidden x L^2)
                  / (TP x peak x e_fl)) + the prompt's all-reduces

`CALIBRATION` holds the four fitted constants (e_bw, e_fl, all-reduce latency, step overhead) and
the spread of measured / predicted over the public points of `data/speed_calibration.yaml`:
`scripts/speed_calibration.py` refits them and prints the per-point table. Every range published
is the point estimate times that spread, so each calibration point lies inside its own range.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from recipes_site.kv_cache import num_experts
from recipes_site.parameters import config_int, language_config, parameter_count

# concurrency levels every estimate reports (plus the KV-bounded maximum)
LEVELS = (1, 8, 32, 128)
# the request the levels and the KV-bounded maximum assume: 1k prompt, 1k output
PROMPT_TOKENS = 1024
OUTPUT_TOKENS = 1024
TTFT_PROMPTS = (1024, 8192)
ACTIVATION_BYTES = 2  # the bf16 hidden state every TP all-reduce carries

# bytes a decode step streams per weight parameter, by variant precision (MXFP4: 4-bit values and
# one 8-bit scale per 32, vllm/model_executor/layers/quantization/mxfp4.py; AWQ/GPTQ 4-bit values,
# their per-group scales left out)
STREAM_BYTES = {
    "fp32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "mxfp8": 1.0,
    "int8": 1.0,
    "awq": 0.5,
    "gptq": 0.5,
    "int4": 0.5,
    "nvfp4": 0.5625,  # 4-bit values + one FP8 scale per 16
    "fp4": 0.5625,
    "mxfp4": 0.53125,
}
# the dense-TFLOPs entry a variant's matrix multiplies run at when the GPU computes in that format
# natively; weight-only formats (AWQ/GPTQ, MXFP4 experts, FP8 on Ampere) widen to BF16
COMPUTE_DTYPE = {"fp8": "fp8", "mxfp8": "fp8", "int8": "int8", "nvfp4": "fp4", "fp4": "fp4"}

# vLLM 0.33's default --max-num-seqs of the API server: 1024 on GPUs of at least 70 GiB but the
# A100, else 256 (vllm/engine/arg_utils.py:2970-3006)
MAX_NUM_SEQS_LARGE, MAX_NUM_SEQS_SMALL = 1024, 256


@dataclass(frozen=True)
class Calibration:
    """The fitted constants and the spread of measured / predicted (speed terms: tokens/s, 1/TTFT)
    over the calibration points: `low` and `high` are its smallest and largest ratio."""

    bandwidth_efficiency: float
    compute_efficiency: float
    allreduce_latency_s: float
    step_overhead_s: float
    low: float
    high: float
    median_error: float  # median |predicted - measured| / measured
    worst_error: float
    points: int


# Fitted by scripts/speed_calibration.py (coordinate descent on the squared log error of the
# 24 points of data/speed_calibration.yaml); rerun it after changing the model or the points and
# paste what it prints here.
CALIBRATION = Calibration(
    bandwidth_efficiency=0.7585,
    compute_efficiency=0.4174,
    allreduce_latency_s=2.857e-05,
    step_overhead_s=0.001415,
    low=0.7013,
    high=1.295,
    median_error=0.07375,
    worst_error=0.2987,
    points=24,
)


@dataclass(frozen=True)
class ModelShape:
    """What the roofline reads of a model (`model_shape`)."""

    active_params: float  # parameters one token multiplies through (FLOPs)
    dense_bytes: float  # bytes every decode step streams whatever the batch (no routed experts)
    expert_bytes: float  # all routed experts' bytes
    experts: int  # routed experts per MoE layer (0: dense)
    experts_per_token: int
    layers: int
    hidden_size: int


@dataclass(frozen=True)
class GpuSpeed:
    """One accelerator's speed facts for a variant: memory bandwidth (GB/s), dense peak of the
    format its matrix multiplies run in (TFLOPS) and its link to the others (GB/s, both ways)."""

    bandwidth_gbps: float
    tflops: float
    link_gbps: float | None


@dataclass(frozen=True)
class Layout:
    """One replica's tensor-parallel size, the replicas side by side, each replica's KV cache
    (tokens it holds and bytes a token costs one GPU) and its --max-num-seqs."""

    tp: int
    replicas: int = 1
    kv_tokens: int | None = None
    kv_bytes_per_token_per_gpu: float = 0.0
    max_num_seqs: int = MAX_NUM_SEQS_SMALL


@dataclass(frozen=True)
class Estimate:
    """Point estimates of one layout (`estimate`): per concurrency level, tokens/s per request and
    in total; TTFT (seconds) per prompt length; the KV-bounded maximum concurrency."""

    levels: tuple[int, ...]
    per_user: tuple[float, ...]
    total: tuple[float, ...]
    ttft_s: tuple[float, ...]
    kv_max: int | None
    calibration: Calibration = field(default=CALIBRATION, repr=False)

    def per_user_range(self, i: int) -> tuple[float, float]:
        return speed_range(self.per_user[i], self.calibration)

    def total_range(self, i: int) -> tuple[float, float]:
        return speed_range(self.total[i], self.calibration)

    def ttft_range(self, i: int) -> tuple[float, float]:
        return time_range(self.ttft_s[i], self.calibration)


def speed_range(value: float, cal: Calibration = CALIBRATION) -> tuple[float, float]:
    """A speed (tokens/s) as the range the calibration points spread over."""
    return value * min(cal.low, 1.0), value * max(cal.high, 1.0)


def time_range(value: float, cal: Calibration = CALIBRATION) -> tuple[float, float]:
    """A time as the range the calibration points spread over (time is 1 / speed)."""
    return value / max(cal.high, 1.0), value / min(cal.low, 1.0)


# -- the model and the GPU ---------------------------------------------------------------------


def model_shape(cfg: dict | None, precision: str | None) -> ModelShape | None:
    """The `ModelShape` of a config.json's shapes served at a variant precision (None when the
    shapes do not give a parameter count, or give routed experts without the number a token uses,
    `num_experts_per_tok` / `experts_per_token`). A decode step streams every matrix but the input
    embedding (a lookup); MXFP4 checkpoints that leave modules unconverted (gpt-oss) keep those,
    and so everything but the routed experts, in BF16."""
    if not cfg:
        return None
    try:
        count = parameter_count(cfg)
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return None
    text = language_config(cfg)
    vocab, hidden = config_int(text, "vocab_size"), config_int(text, "hidden_size")
    layers = config_int(text, "num_hidden_layers")
    if not vocab or not hidden or not layers:
        return None
    width = STREAM_BYTES.get(precision or "", 2.0)
    experts = num_experts(text) or 0
    top_k = config_int(text, "num_experts_per_tok") or config_int(text, "experts_per_token")
    if experts <= 1 or not count.routed_experts:
        experts, top_k = 0, 0
    elif not top_k:
        return None  # the experts a token uses are unknown: no estimate rather than a wrong one
    routed_active = count.routed_experts * top_k / experts if experts else 0.0
    streamed = count.active - count.embedding + vocab * hidden  # the LM head, not the lookup
    dense_params = streamed - routed_active
    quant = text.get("quantization_config")
    experts_only = (
        precision == "mxfp4"
        and isinstance(quant, dict)
        and bool(quant.get("modules_to_not_convert"))
    )
    dense_width = 2.0 if experts_only else width
    return ModelShape(
        active_params=float(count.active - count.embedding + vocab * hidden),
        dense_bytes=dense_params * dense_width,
        expert_bytes=count.routed_experts * width,
        experts=experts,
        experts_per_token=top_k,
        layers=layers,
        hidden_size=hidden,
    )


def gpu_speed(profile: dict, precision: str | None) -> GpuSpeed | None:
    """A profile's `GpuSpeed` for a variant precision (None without a bandwidth or a BF16 peak).
    A format computes at its own peak only where the profile lists it as native."""
    bandwidth = profile.get("memory_bandwidth_gbps")
    tflops = profile.get("tflops") or {}
    if not isinstance(bandwidth, int | float) or not isinstance(tflops, dict):
        return None
    native = ((profile.get("precisions") or {}).get("native")) or []
    dtype = COMPUTE_DTYPE.get(precision or "")
    wanted = {"fp4": "nvfp4"}.get(dtype or "", dtype)
    peak = tflops.get(dtype) if dtype and wanted in native else None
    peak = peak or tflops.get("bf16")
    if not isinstance(peak, int | float) or peak <= 0 or bandwidth <= 0:
        return None
    link = (profile.get("interconnect") or {}).get("gbps")
    return GpuSpeed(float(bandwidth), float(peak), float(link) if link else None)


def max_num_seqs(profile: dict) -> int:
    """vLLM's default --max-num-seqs on the profile's GPU (see MAX_NUM_SEQS_LARGE)."""
    memory = profile.get("memory_total_gib") or profile.get("vram_per_gpu_gb") or 0
    is_a100 = "a100" in str(profile.get("display_name") or "").lower()
    return MAX_NUM_SEQS_LARGE if memory >= 70 and not is_a100 else MAX_NUM_SEQS_SMALL


# -- the roofline ---------------------------------------------------------------------------------


def experts_touched(shape: ModelShape, tokens: int) -> float:
    """Share of a layer's routed experts that `tokens` tokens route to, each picking
    `experts_per_token` of `experts` at random: 1 - (1 - k/E)^tokens."""
    if not shape.experts:
        return 0.0
    return 1.0 - (1.0 - shape.experts_per_token / shape.experts) ** max(1, tokens)


def _allreduce_s(shape: ModelShape, gpu: GpuSpeed, tp: int, tokens: int, cal: Calibration) -> float:
    """Two ring all-reduces per layer of `tokens` hidden states across `tp` GPUs."""
    if tp <= 1:
        return 0.0
    one_way = (gpu.link_gbps or 0.0) / 2 * 1e9
    payload = tokens * shape.hidden_size * ACTIVATION_BYTES
    transfer = 2 * (tp - 1) / tp * payload / one_way if one_way else 0.0
    return 2 * shape.layers * (cal.allreduce_latency_s + transfer)


def decode_step_s(
    shape: ModelShape,
    gpu: GpuSpeed,
    layout: Layout,
    batch: int,
    context: int,
    cal: Calibration = CALIBRATION,
) -> float:
    """Seconds of one decode step of `batch` requests holding `context` tokens each."""
    weights = shape.dense_bytes + shape.expert_bytes * experts_touched(shape, batch)
    read = weights / layout.tp + batch * context * layout.kv_bytes_per_token_per_gpu
    memory = read / (gpu.bandwidth_gbps * 1e9 * cal.bandwidth_efficiency)
    compute = (
        2 * shape.active_params * batch / layout.tp / (gpu.tflops * 1e12 * cal.compute_efficiency)
    )
    return (
        cal.step_overhead_s + max(memory, compute) + _allreduce_s(shape, gpu, layout.tp, batch, cal)
    )


def prefill_s(
    shape: ModelShape, gpu: GpuSpeed, layout: Layout, prompt: int, cal: Calibration = CALIBRATION
) -> float:
    """Seconds to the first token of one `prompt`-token request alone (causal attention counted)."""
    weights = shape.dense_bytes + shape.expert_bytes * experts_touched(shape, prompt)
    memory = weights / layout.tp / (gpu.bandwidth_gbps * 1e9 * cal.bandwidth_efficiency)
    flops = 2 * shape.active_params * prompt + 2 * shape.layers * shape.hidden_size * prompt**2
    compute = flops / layout.tp / (gpu.tflops * 1e12 * cal.compute_efficiency)
    return (
        cal.step_overhead_s
        + max(memory, compute)
        + _allreduce_s(shape, gpu, layout.tp, prompt, cal)
    )


def kv_bounded(layout: Layout, request_tokens: int = PROMPT_TOKENS + OUTPUT_TOKENS) -> int | None:
    """The most requests of `request_tokens` tokens the layout's KV caches hold at once (all
    replicas), None when unknown."""
    if layout.kv_tokens is None:
        return None
    return max(0, layout.kv_tokens // request_tokens) * layout.replicas


def estimate(
    shape: ModelShape,
    gpu: GpuSpeed,
    layout: Layout,
    cal: Calibration = CALIBRATION,
    levels: tuple[int, ...] = LEVELS,
) -> Estimate:
    """Decode speed per request and in total at each concurrency level (and at the KV-bounded
    maximum, appended when known and above zero) and TTFT of `TTFT_PROMPTS`, for any TP and
    replica count. Requests spread evenly over the replicas; a replica runs at most
    min(--max-num-seqs, what its KV cache holds) at once, the rest wait."""
    kv_max = kv_bounded(layout)
    wanted = list(levels)
    if kv_max:
        wanted.append(kv_max)
    per_replica_cap = layout.max_num_seqs
    if kv_max is not None:
        per_replica_cap = min(per_replica_cap, max(1, kv_max // layout.replicas))
    context = PROMPT_TOKENS + OUTPUT_TOKENS // 2
    per_user, total = [], []
    for level in wanted:
        running = min(level, per_replica_cap * layout.replicas)
        batch = math.ceil(running / layout.replicas)
        step = decode_step_s(shape, gpu, layout, batch, context, cal)
        per_user.append(1.0 / step)
        total.append(running / step)
    ttft = tuple(prefill_s(shape, gpu, layout, p, cal) for p in TTFT_PROMPTS)
    return Estimate(tuple(wanted), tuple(per_user), tuple(total), ttft, kv_max, cal)
