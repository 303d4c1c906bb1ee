"""KV-cache-aware sizing: what one GPU's memory holds for one rendered deployment.

The budget of one GPU is what vLLM 0.33 does at startup (vllm/v1/worker/gpu_worker.py:641-757),
all in GiB:

    budget   = memory_total x gpu_memory_utilization   (0.92, vLLM's default, unless the command or --gpu-memory-utilization says otherwise)
    kv cache = budget - weights per GPU - overhead

* memory_total: what torch reports for one GPU (`gpu_memory`: taxonomy.yaml's
  `memory_total_gib`, else `memory_reported_mib`, else the nominal `vram_per_gpu_gb`).
* weights: the larger of the declared `vram_minimum_gb` (1.2 runtime factor divided out) and a
  per-component count from hf_config (`component_bytes`), split by TP x PP; under expert
  parallelism the routed experts (their share of the parameters) are split by TP x DP instead.
* overhead (`overhead`, `Overhead`): non-torch memory after vLLM's snapshot, the larger of the
  dummy forward pass at `max_num_batched_tokens` and the sampler warm-up, the CUDA graph
  estimate and the padding of repacked MXFP4 experts. Each constant cites vLLM's source or the
  startup log it was measured on; tests/test_startup_logs_replay.py replays real startup logs.

From the KV cache: the tokens it holds, the requests of a given length that fit, the longest
`--max-model-len` that fits one request, and whether the recipe's own context does. Without
`model.hf_config` only the weight side is known: `fit` lists the missing facts and reports the
weights-only sizing of `sizing.py`.

The engine uses `engine_sizing` (a safe `--max-model-len` for recipes whose context does not fit,
and `--gpu-memory-utilization 0.95` where vLLM's default cannot start the command) and `engine_tp` (no TP size the attention heads do not allow); both return their input unchanged
for recipes without hf_config, so the compat corpus renders exactly as the reference does.

The API's `kv_sizing` (`kv_sizing`, `panel_entry`) publishes the fit of every rendering; the model
page's sizing panel evaluates the page formulas documented at `panel_entry` on those numbers
(`panel_figures` is their Python form).

This module is memory arithmetic only, below synthesis (which sizes its commands with it); the
plans of rendered commands (plan.py) and the `recipes-site fit` report (fit_report.py) sit above.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from recipes_site import data, kv_cache, sizing
from recipes_site.data import vllm_spelling
from recipes_site.parameters import language_config, parameter_count

GIB = 2**30
MIB = 2**20
# The vLLM release the plans model, as (major, minor) of the one release named in data/
# (version-specific terms take a `version`; log replays pass their own).
VLLM_VERSION = tuple(int(part) for part in data.VLLM_VERSION.split(".")[:2])
# `vllm serve`'s default --gpu-memory-utilization: vLLM 0.33.0 vllm/config/cache.py:215
# (`gpu_memory_utilization: float = Field(default=0.92, gt=0, le=1)`), taken over by
# vllm/engine/arg_utils.py:614 (EngineArgs.gpu_memory_utilization = CacheConfig.gpu_memory_utilization).
GPU_MEMORY_UTILIZATION = 0.92
# Earlier releases used 0.9 (docs of v0.6.4: "If unspecified, will use the default value of 0.9").
# v0.25.0's CacheConfig already declares 0.92 (quoted in a public vLLM study note); the exact
# release that changed it is not known here, so 0.92 is taken from 0.25 on.
OLDER_GPU_MEMORY_UTILIZATION = 0.9
UTILIZATION_092_SINCE = (0, 25)
SAFE_LEN_STEP = 1024
# A command that cannot start at the default may pass this, never more: the value the recipes'
# own notes suggest for a dedicated node (models/deepseek-ai/DeepSeek-R1-0528.yaml, DeepSeek-V3.2),
# leaving 5 % for the CUDA context, NCCL and cuBLAS, which vLLM creates outside the budget.
RAISED_GPU_MEMORY_UTILIZATION = 0.95

# vLLM's scheduler defaults for `vllm serve` (usage context OPENAI_API_SERVER), by the memory
# torch reports: vllm/engine/arg_utils.py:2973-3006 of 0.33.0.
LARGE_GPU_GIB = 70  # 8192 tokens, 1024 sequences (not A100, not GB10)
HUGE_GPU_GIB = 160  # 16384 tokens, 1024 sequences

# -- the terms of the budget (GiB or bytes per GPU), each from vLLM 0.33.0 or a stated fit -------------
# Sampler warm-up (`_dummy_sampler_run`, vllm/v1/worker/gpu_model_runner.py:5866) over
# min(max_num_batched_tokens, max_num_seqs) rows of logits, bytes per row and vocabulary entry:
# the model-dtype logits (2 B, `compute_logits`), their float32 copy (4 B, vllm/v1/sample/sampler.py
# "Convert logits to float32"), the float32 probabilities and float32 exponential noise of
# `forward_native` (vllm/v1/sample/ops/topk_topp_sampler.py:309, :366 and :590-593).
SAMPLER_BYTES_PER_LOGIT = 2 + 4 + 4 + 4
# Before the Triton top-k/top-p kernels (vLLM PR #33538, merged 2026-02; `apply_top_k_top_p_triton`,
# topk_topp_sampler.py:514) the PyTorch path sorted the float32 logits: + 4 B sorted values + 8 B
# int64 indices (topk_topp_sampler.py:545), 26 B traced. FITTED to 38 B on the corpus entries
# gpt-oss-120b-h100pcie-tp1-v0101 and gpt-oss-120b-h100-tp1-u095-mnbt1024 (vLLM 0.10, 1024 x
# 201,088 logits): the 12 B more absorb what those releases allocated besides (the cuBLAS handles
# that 0.33 creates before its snapshot, gpu_worker.py:519-528, and FlashInfer's first call).
SORTING_SAMPLER_BYTES_PER_LOGIT = 38
TRITON_SAMPLER_SINCE = (0, 16)  # first release after PR #33538
# The fused-MoE workspace is a persistent buffer of the WorkspaceManager (vllm/v1/worker/workspace.py;
# vllm/model_executor/layers/fused_moe/modular_kernel.py:1181-1212), sized at the dummy pass's token
# count and kept: it adds to the sampler's peak instead of overlapping it (gpu_worker.py:690-697),
# and CUDA graphs share it. Releases before the workspace manager (vLLM PR #27532, 2025-11, built on
# it) allocated the MoE caches per call.
MOE_WORKSPACE_SINCE = (0, 12)
# CUDA graph memory has been profiled and taken from the KV cache since v0.21.0
# (vllm/v1/worker/gpu_worker.py:787, "CUDA graph memory profiling is enabled (default since v0.21.0)").
CUDA_GRAPH_PROFILING_SINCE = (0, 21)
# `profile_cudagraph_memory` (gpu_model_runner.py:6268): the first capture of each mode (its
# private pool: one forward pass at the largest capture size) plus, for every further graph, the
# second capture's growth, at least 1 MiB (gpu_model_runner.py:6365-6368). FITTED to 13 MiB per
# graph on the corpus entry qwen35-35b-a3b-h100class-tp4-v0260-breakdown (vLLM 0.26: "Estimated
# CUDA graph memory" 1.34 GiB for 51 FULL and 51 PIECEWISE graphs).
CUDA_GRAPH_BYTES_PER_GRAPH = 13 * MIB
# Non-torch memory allocated after vLLM's start-up snapshot. The CUDA context, NCCL and custom
# all-reduce buffers and the cuBLAS handles come BEFORE it (vllm/v1/worker/gpu_worker.py:500-531)
# and so stay outside the budget (in the 1 - utilization reserve); what remains (attention-backend
# and Triton modules) is MEASURED: vLLM 0.26 logs "0.13 GiB for non-torch memory"
# (gpu_worker.py "Actual usage is ..."; corpus entry qwen35-35b-a3b-h100class-tp4-v0260-breakdown).
NON_TORCH_GIB = 0.13
FALLBACK_ACTIVATIONS_GIB = 2.0  # activation peak when hf_config lacks the shapes
ASSUMED_TOP_K = 8  # routed experts per token when hf_config does not say


# -- the deployment shape, read from a command ---------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """The parts of one `vllm serve` command that decide memory."""

    tp: int = 1
    pp: int = 1
    dp: int = 1
    dcp: int = 1
    expert_parallel: bool = False
    kv_cache_dtype: str = "auto"
    gpu_memory_utilization: float = GPU_MEMORY_UTILIZATION
    max_model_len: int | None = None
    max_num_batched_tokens: int | None = None
    max_num_seqs: int | None = None
    enforce_eager: bool = False
    # KV layout switches (kv_cache.cache_groups)
    block_size: int | None = None
    async_scheduling: bool | None = None  # None: vLLM decides (on, but not under Ray)
    executor: str | None = None  # --distributed-executor-backend
    prefix_caching: bool = True
    speculative: tuple = ()  # (method, num_speculative_tokens, draft model or None) of --speculative-config

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.dp


SHAPE_FLAGS = {
    "--tensor-parallel-size": "tp",
    "-tp": "tp",
    "--pipeline-parallel-size": "pp",
    "-pp": "pp",
    "--data-parallel-size": "dp",
    "-dp": "dp",
    "--decode-context-parallel-size": "dcp",
    "-dcp": "dcp",
    "--kv-cache-dtype": "kv_cache_dtype",
    "--gpu-memory-utilization": "gpu_memory_utilization",
    "--max-model-len": "max_model_len",
    "--max-num-batched-tokens": "max_num_batched_tokens",
    "--max-num-seqs": "max_num_seqs",
    "--block-size": "block_size",
    "--distributed-executor-backend": "executor",
    "--speculative-config": "speculative",
}
SHAPE_SWITCHES = {
    "--enable-expert-parallel": "expert_parallel",
    "-ep": "expert_parallel",
    "--enforce-eager": "enforce_eager",
    "--async-scheduling": "async_scheduling",
    "--enable-prefix-caching": "prefix_caching",
}
# switches whose `--no-` form turns them off (vLLM's BooleanOptionalAction flags)
SHAPE_NEGATIONS = {
    "--no-async-scheduling": "async_scheduling",
    "--no-enable-prefix-caching": "prefix_caching",
}
_INTS = {
    "tp",
    "pp",
    "dp",
    "dcp",
    "max_model_len",
    "max_num_batched_tokens",
    "max_num_seqs",
    "block_size",
}


def speculative_config(argv) -> dict | None:
    """The JSON object of the first `--speculative-config` (None when absent or not an object)."""
    for i, tok in enumerate(argv):
        flag, eq, inline = str(tok).partition("=")
        if flag == "--speculative-config":
            text = inline if eq else (str(argv[i + 1]) if i + 1 < len(argv) else "")
            try:
                value = json.loads(text)
            except ValueError:
                return None
            return value if isinstance(value, dict) else None
    return None


def speculative_of(value: str) -> tuple:
    """`Shape.speculative` of one `--speculative-config` value: (method, num_speculative_tokens,
    draft model); () when it is not a JSON object."""
    spec = speculative_config(["--speculative-config", value])
    if not spec:
        return ()
    method = spec.get("method")
    tokens = spec.get("num_speculative_tokens")
    model = spec.get("model")
    return (
        method if isinstance(method, str) else None,
        tokens if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens > 0 else 0,
        model if isinstance(model, str) else None,
    )


def _parse_len(text: str) -> int | None:
    """vLLM accepts 32768, 32k, 1m for --max-model-len; None for `auto` and the like."""
    t = text.strip().lower()
    scale = 1
    if t.endswith(("k", "m")):
        scale = 1000 if t.endswith("k") else 1000**2
        t = t[:-1]
    try:
        return int(float(t) * scale) if scale != 1 else int(t)
    except ValueError:
        return None


def shape_from_argv(argv) -> Shape:
    """The memory-relevant settings of a serve command (the last occurrence of a flag wins), its
    tokens read as vLLM reads them (`--max_model_len` is `--max-model-len`, data.vllm_spelling)."""
    tokens = [vllm_spelling(str(t)) for t in argv]
    found: dict = {}
    for i, tok in enumerate(tokens):
        flag, eq, inline = tok.partition("=")
        if flag in SHAPE_SWITCHES and not eq:
            found[SHAPE_SWITCHES[flag]] = True
            continue
        if flag in SHAPE_NEGATIONS and not eq:
            found[SHAPE_NEGATIONS[flag]] = False
            continue
        if flag not in SHAPE_FLAGS:
            continue
        value = inline if eq else (tokens[i + 1] if i + 1 < len(tokens) else None)
        if value is None:
            continue
        name = SHAPE_FLAGS[flag]
        if name in _INTS:
            number = _parse_len(value)
            if number is not None and number > 0:
                found[name] = number
            elif name == "max_model_len":
                found.pop(name, None)
        elif name == "gpu_memory_utilization":
            try:
                found[name] = float(value)
            except ValueError:
                pass
        elif name == "speculative":
            found[name] = speculative_of(value)
        else:
            found[name] = value
    return Shape(**found)


# -- the GPU as vLLM sees it ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GpuMemory:
    """One GPU of a hardware profile: its nominal size (display) and the total vLLM multiplies by
    --gpu-memory-utilization (`memory_total_gib`, else `memory_reported_mib`, else nominal)."""

    nominal_gib: float
    total_gib: float
    compute_capability: tuple[int, int] | None = None
    rocm: bool = False
    device_name: str = ""

    @property
    def small_scheduler_tier(self) -> bool:
        """A100s and GB10 (DGX Spark, cc 12.1) keep the small defaults whatever their memory
        (vllm/engine/arg_utils.py:2961-2987)."""
        return self.compute_capability == (12, 1) or "a100" in self.device_name.lower()


def gpu_memory(profile: dict) -> GpuMemory:
    nominal = sizing.per_gpu_gib(profile)
    total = profile.get("memory_total_gib")
    reported = profile.get("memory_reported_mib")
    if not isinstance(total, (int, float)) or isinstance(total, bool) or total <= 0:
        total = reported / 1024 if isinstance(reported, int) and reported > 0 else nominal
    cc = None
    text = profile.get("compute_capability")
    if isinstance(text, str) and "." in text:
        major, _, minor = text.partition(".")
        if major.isdigit() and minor.isdigit():
            cc = (int(major), int(minor))
    name = str(profile.get("display_name") or "")
    return GpuMemory(nominal, float(total), cc, profile.get("brand") == "AMD", name)


def as_gpu(gpu: GpuMemory | float) -> GpuMemory:
    return gpu if isinstance(gpu, GpuMemory) else GpuMemory(float(gpu), float(gpu))


def default_utilization(version: tuple = VLLM_VERSION) -> float:
    return (
        GPU_MEMORY_UTILIZATION if version >= UTILIZATION_092_SINCE else OLDER_GPU_MEMORY_UTILIZATION
    )


# -- the non-KV memory of one GPU ------------------------------------------------------------------------


@dataclass(frozen=True)
class Overhead:
    """What vLLM's start-up profiling takes from the budget besides the weights
    (vllm/v1/worker/gpu_worker.py:641-757: requested memory minus the profile's non-KV memory
    minus the CUDA graph estimate)."""

    non_torch_gib: float  # allocations outside torch after the start-up snapshot
    activations_gib: float  # transient peak of the dummy forward pass (MoE workspaces included)
    sampler_gib: float  # the sampler warm-up over max_num_seqs rows of logits
    cuda_graphs_gib: float  # profile_cudagraph_memory's estimate (0 with --enforce-eager)
    weights_padding_gib: float = 0.0  # repacked/padded weights beyond the checkpoint's size
    moe_workspace_gib: float = 0.0  # the persistent fused-MoE workspace (MOE_WORKSPACE_SINCE)
    max_num_batched_tokens: int = 0
    max_num_seqs: int = 0

    @property
    def peak_gib(self) -> float:
        """The transient peak: the forward pass and the sampler run one after the other."""
        return max(self.activations_gib, self.sampler_gib)

    @property
    def total_gib(self) -> float:
        return (
            self.non_torch_gib
            + self.moe_workspace_gib
            + self.peak_gib
            + self.cuda_graphs_gib
            + self.weights_padding_gib
        )

    def as_dict(self) -> dict:
        return {
            "non_torch_gib": round(self.non_torch_gib, 3),
            "activations_gib": round(self.activations_gib, 3),
            "sampler_gib": round(self.sampler_gib, 3),
            "cuda_graphs_gib": round(self.cuda_graphs_gib, 3),
            "weights_padding_gib": round(self.weights_padding_gib, 3),
            "moe_workspace_gib": round(self.moe_workspace_gib, 3),
            "max_num_batched_tokens": self.max_num_batched_tokens,
            "max_num_seqs": self.max_num_seqs,
            "total_gib": round(self.total_gib, 3),
        }


def scheduler_defaults(gpu: GpuMemory | float) -> tuple[int, int]:
    """vLLM's default (max_num_batched_tokens, max_num_seqs) for `vllm serve` on such a GPU, by
    the memory torch reports (vllm/engine/arg_utils.py:2973-3006)."""
    g = as_gpu(gpu)
    if g.total_gib >= HUGE_GPU_GIB:
        return 16384, 1024
    if g.total_gib >= LARGE_GPU_GIB and not g.small_scheduler_tier:
        return 8192, 1024
    return 2048, 256


def scheduler_limits(
    shape: Shape, gpu: GpuMemory | float, max_model_len: int | None
) -> tuple[int, int]:
    """The (max_num_batched_tokens, max_num_seqs) vLLM settles on: the command's, else the
    defaults capped at max_num_seqs x max_model_len, and max_num_seqs at the token budget
    (vllm/engine/arg_utils.py:3166-3234)."""
    tokens_default, seqs_default = scheduler_defaults(gpu)
    seqs = shape.max_num_seqs or seqs_default
    tokens = shape.max_num_batched_tokens
    if tokens is None:
        tokens = tokens_default
        if max_model_len:
            tokens = min(seqs * max_model_len, tokens)
    if shape.max_num_seqs is None:
        seqs = min(seqs, tokens)
    return tokens, seqs


def _int(cfg: dict, key: str) -> int:
    value = cfg.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _moe_shape(cfg: dict) -> tuple[int, int, int] | None:
    """(experts, moe_intermediate_size, top_k) of a mixture-of-experts config, else None."""
    experts = kv_cache.num_experts(cfg) or 0
    if experts <= 1:
        return None
    inter = _int(cfg, "moe_intermediate_size") or _int(cfg, "intermediate_size")
    top_k = _int(cfg, "num_experts_per_tok") or _int(cfg, "moe_topk") or ASSUMED_TOP_K
    return experts, inter, top_k


def moe_workspace_bytes(cfg: dict, tokens: int, tp: int) -> float:
    """The fused-MoE workspace for `tokens` tokens in 16 bits: workspace13 `(M, top_k,
    max(N / 2, K))` and workspace2 `(M, top_k, max(N, K))` with N = 2 x moe_intermediate / TP and
    K = hidden_size (experts/triton_moe.py:240-255; 0 without experts)."""
    moe = _moe_shape(cfg)
    if moe is None:
        return 0.0
    _, inter, top_k = moe
    hidden, n = _int(cfg, "hidden_size"), 2 * inter / max(1, tp)
    return tokens * top_k * (max(n / 2, hidden) + max(n, hidden)) * 2


def forward_peak_bytes(cfg: dict, tokens: int, tp: int, *, moe_workspace: bool = False) -> float:
    """Transient peak of one decoder layer in the dummy forward pass of `tokens` tokens (16-bit
    activations): the residual and hidden states, plus the larger of attention (q/k/v and output)
    and the MLP (gate_up and activated intermediate; for MoE the float32 router logits and, unless
    the persistent workspace holds them (`moe_workspace`), the fused-MoE caches)."""
    hidden = _int(cfg, "hidden_size")
    heads = _int(cfg, "num_attention_heads") or 1
    kv_heads = _int(cfg, "num_key_value_heads") or heads
    head_dim = _int(cfg, "head_dim") or (hidden // heads if heads else 0)
    tp = max(1, tp)
    states = 2 * tokens * hidden * 2
    attention = tokens * (2 * heads / tp + 2 * max(1, kv_heads // tp)) * head_dim * 2  # q+o, k+v
    moe = _moe_shape(cfg)
    if moe is not None:
        mlp = tokens * moe[0] * 4 + (0 if moe_workspace else moe_workspace_bytes(cfg, tokens, tp))
    else:
        inter = _int(cfg, "intermediate_size") or 4 * hidden
        mlp = tokens * 3 * inter / tp * 2
    return states + max(attention, mlp)


def cuda_graph_sizes(max_num_seqs: int, gpu: GpuMemory) -> list[int]:
    """The decode capture sizes: [1, 2, 4] + range(8, 256, 8) + range(256, max + 1, 16) with max =
    min(2 x max_num_seqs, 512, or 1024 on data-centre Blackwell) (vllm/config/vllm.py:2398-2411)."""
    blackwell = gpu.compute_capability is not None and gpu.compute_capability[0] == 10
    largest = min(2 * max_num_seqs, 1024 if blackwell else 512)
    sizes = [1, 2, 4] + list(range(8, 256, 8)) + list(range(256, largest + 1, 16))
    return [s for s in sizes if s <= largest]


def overhead(
    cfg: dict | None,
    shape: Shape,
    gpu: GpuMemory | float,
    *,
    max_model_len: int | None = None,
    version: tuple = VLLM_VERSION,
) -> Overhead:
    """Memory one GPU spends besides the checkpoint's weights and the KV cache (GiB).

    * non-torch: `NON_TORCH_GIB` (measured; the CUDA context, NCCL and cuBLAS are outside the budget).
    * activations: the dummy forward pass at `max_num_batched_tokens` (`forward_peak_bytes`).
    * sampler: `min(max_num_batched_tokens, max_num_seqs)` rows of `vocab_size` logits at
      `SAMPLER_BYTES_PER_LOGIT` (older releases: the sorting sampler's bytes).
    * CUDA graphs (vLLM >= 0.21, not --enforce-eager): one forward pass at the largest capture
      size plus `CUDA_GRAPH_BYTES_PER_GRAPH` for each further FULL and PIECEWISE graph.
    """
    cfg = language_config(cfg) if cfg else {}
    g = as_gpu(gpu)
    tokens, seqs = scheduler_limits(shape, g, max_model_len or shape.max_model_len)
    hidden, vocab = cfg.get("hidden_size"), cfg.get("vocab_size")
    if not (isinstance(hidden, int) and isinstance(vocab, int)):
        graphs = 0.0 if shape.enforce_eager or version < CUDA_GRAPH_PROFILING_SINCE else 1.0
        return Overhead(
            NON_TORCH_GIB,
            FALLBACK_ACTIVATIONS_GIB,
            0.0,
            graphs,
            max_num_batched_tokens=tokens,
            max_num_seqs=seqs,
        )
    persistent = version >= MOE_WORKSPACE_SINCE
    workspace = moe_workspace_bytes(cfg, tokens, shape.tp) if persistent else 0.0
    activations = forward_peak_bytes(cfg, tokens, shape.tp, moe_workspace=persistent)
    per_logit = (
        SAMPLER_BYTES_PER_LOGIT
        if version >= TRITON_SAMPLER_SINCE
        else SORTING_SAMPLER_BYTES_PER_LOGIT
    )
    rows = min(tokens, seqs)
    sampler = rows * vocab * per_logit + 2 * tokens * hidden * 2  # + the kept hidden states
    graphs = 0.0
    if not shape.enforce_eager and version >= CUDA_GRAPH_PROFILING_SINCE:
        sizes = cuda_graph_sizes(seqs, g)
        first = forward_peak_bytes(cfg, sizes[-1], shape.tp, moe_workspace=persistent)
        graphs = first + CUDA_GRAPH_BYTES_PER_GRAPH * (2 * len(sizes) - 1)  # FULL and PIECEWISE
    return Overhead(
        NON_TORCH_GIB,
        activations / GIB,
        sampler / GIB,
        graphs / GIB,
        moe_workspace_gib=workspace / GIB,
        max_num_batched_tokens=tokens,
        max_num_seqs=seqs,
    )


# -- weights per GPU -----------------------------------------------------------------------------------


# Weights as loaded, per component (vLLM loads a checkpoint's tensors as stored): embeddings and
# an untied LM head (tie_word_embeddings false) stay in the 16-bit model dtype; quantized layers
# take these bytes per parameter with their scales. MXFP4 and NVFP4 checkpoints quantize the MLPs
# (dense and routed experts) and keep attention 16-bit: openai/gpt-oss's config.json
# `modules_to_not_convert` (self_attn, router, embeddings, lm_head), and the corpus entry
# gemma-4-31b-nvfp4-h100-tp1-mnbt4096 (nvidia/Gemma-4-31B-IT-NVFP4 loads 31.18 GiB; MLP-only
# counts 30.9, all-linear 20.3). FP8, INT8 and INT4 (AWQ/GPTQ/AutoRound) quantize every linear
# layer. MXFP4: one E8M0 scale per 32 values (sizing.MXFP4_BYTES_PER_PARAM); NVFP4: one FP8 E4M3
# scale per 16; INT4: a 16-bit scale and 4-bit zero per group of 128; FP8/INT8 block or channel
# scales (under 0.1 %) are not counted.
QUANTIZED_BYTES_PER_PARAM = {
    "fp8": 1.0,
    "int8": 1.0,
    "mxfp8": 1 + 1 / 32,
    "mxfp4": sizing.MXFP4_BYTES_PER_PARAM,
    "nvfp4": 0.5 + 1 / 16,
    "fp4": 0.5 + 1 / 16,
    "int4": 0.5 + 2.5 / 128,
    "awq": 0.5 + 2.5 / 128,
    "gptq": 0.5 + 2.5 / 128,
}
MLP_ONLY_FORMATS = frozenset({"mxfp4", "nvfp4", "fp4"})
MODEL_DTYPE_BYTES = 2


def component_bytes(recipe: dict, precision: str | None) -> float | None:
    """The weights of a `precision` checkpoint of the recipe's model as vLLM loads them, counted
    per component from hf_config (`parameters.parameter_count`); None when hf_config cannot
    count them or the precision is not one format."""
    cfg = (recipe.get("model") or {}).get("hf_config")
    if not isinstance(cfg, dict) or not precision:
        return None
    try:
        count = parameter_count(cfg)
    except (KeyError, TypeError, ZeroDivisionError):
        return None
    if precision in ("bf16", "fp16"):
        return count.total * MODEL_DTYPE_BYTES
    per_param = QUANTIZED_BYTES_PER_PARAM.get(precision)
    if per_param is None or not count.total:
        return None
    if precision in MLP_ONLY_FORMATS:
        quantized = count.dense_mlp + count.routed_experts
    else:
        quantized = count.total - count.embedding
    return quantized * per_param + (count.total - quantized) * MODEL_DTYPE_BYTES


def weights_bytes(recipe: dict, variant: dict) -> tuple[float | None, str]:
    """Bytes of the variant's weights and where the figure comes from: a declared mixed-precision
    checkpoint's size per component (`sizing.component_weights_bytes`); else the larger of the
    declared `vram_minimum_gb` (its 1.2 factor divided out) and the per-component count of
    `component_bytes` (the 1.2-factor formula leaves 16-bit embeddings and scales out)."""
    exact = sizing.component_weights_bytes(recipe, variant)
    if exact is not None:
        return exact, "hf_config components"
    declared = sizing.declared_vram_gb(variant)
    counted = component_bytes(recipe, variant.get("precision"))
    if declared:
        stated = declared / sizing.OVERHEAD * 1e9
        if counted is not None and counted > stated:
            return counted, "hf_config components"
        return stated, "vram_minimum_gb"  # the figure that wins (no count parsed)
    if counted is not None:
        return counted, "hf_config components"
    computed, _ = sizing.variant_weights_gb(recipe, variant)
    if not computed:
        return None, "unknown"
    return computed / sizing.OVERHEAD * 1e9, "parameter_count"


def expert_fraction(cfg: dict | None) -> float | None:
    """Share of the parameters in routed experts (None when hf_config cannot tell)."""
    if not cfg or (kv_cache.num_experts(cfg) or 0) <= 1:
        return 0.0 if cfg else None
    try:
        return parameter_count(cfg).expert_fraction
    except (KeyError, TypeError, ZeroDivisionError):
        return None


def mxfp4_alignment(gpu: GpuMemory, version: tuple = VLLM_VERSION) -> tuple[int, int] | None:
    """(intermediate, hidden) alignment vLLM pads MXFP4 MoE weights to for the backend it picks
    on `gpu` (vllm/model_executor/layers/fused_moe/oracle/mxfp4.py:837-915; backend order
    :402-435): ROCm AITER 256/256; SM10x FlashInfer TRT-LLM 128/256; SM12x Marlin (preferred over
    Triton there) and SM8x Marlin (the OpenAI Triton kernels need SM90+,
    experts/gpt_oss_triton_kernels_moe.py:41-53) 128/256; SM90 the Triton kernels, 64 on the
    intermediate only. Releases before 0.33 ran Marlin on Hopper too (the corpus's 0.10/0.11 H100
    logs print marlin_utils_fp4's "Weight-only FP4 compression will be used leveraging the Marlin
    kernel")."""
    if gpu.rocm:
        return 256, 256
    cc = gpu.compute_capability
    if cc is None:
        return None
    if cc[0] in (8, 10, 12) or (cc[0] == 9 and version < VLLM_VERSION):
        return 128, 256
    if cc[0] == 9:
        return 64, 1
    return None


def mxfp4_padding_bytes(
    cfg: dict | None, expert_bytes: float, shape: Shape, gpu: GpuMemory, version: tuple
) -> float:
    """Bytes per GPU by which padded MXFP4 expert weights (and their scales) exceed the
    checkpoint's: each expert's `moe_intermediate_size` shard and `hidden_size` rounded up to the
    backend's alignment (`mxfp4_alignment`)."""
    align = mxfp4_alignment(gpu, version)
    if not cfg or not expert_bytes or align is None:
        return 0.0
    cfg = language_config(cfg)
    hidden = _int(cfg, "hidden_size")
    inter = _int(cfg, "moe_intermediate_size") or _int(cfg, "intermediate_size")
    if not hidden or not inter:
        return 0.0
    ep = shape.expert_parallel and shape.dp * shape.tp > 1
    part = inter if ep else inter / max(1, shape.tp)
    if part != int(part):
        return 0.0
    factor = _round_up(int(part), align[0]) * _round_up(hidden, align[1]) / (part * hidden)
    split = shape.tp * shape.pp * (shape.dp if ep else 1)
    return expert_bytes / split * (factor - 1)


def _round_up(value: int, step: int) -> int:
    return -(-value // step) * step


def weights_per_gpu(total: float, shape: Shape, fraction: float | None) -> float:
    """Weights on one GPU: split by TP x PP; routed experts split by TP x DP under expert parallelism."""
    split = shape.tp * shape.pp
    if not shape.expert_parallel or shape.dp == 1:
        return total / split
    f = 1.0 if fraction is None else fraction
    return total * (1 - f) / split + total * f / (split * shape.dp)


# -- the fit of one deployment -------------------------------------------------------------------------


def context_length(recipe: dict) -> int | None:
    model = recipe.get("model") or {}
    value = model.get("context_length") or (model.get("hf_config") or {}).get(
        "max_position_embeddings"
    )
    return value if isinstance(value, int) and value > 0 else None


def safe_length(tokens: int) -> int:
    return tokens // SAFE_LEN_STEP * SAFE_LEN_STEP


@dataclass
class FitResult:
    model: str
    variant: str
    precision: str | None
    hardware: str
    vram_per_gpu_gib: float  # nominal (display)
    shape: Shape
    budget_gib_per_gpu: float  # memory_total_gib x gpu_memory_utilization
    weights_gb: float | None  # whole model, decimal GB
    weights_source: str
    weights_gib_per_gpu: float | None
    overhead: Overhead
    kv_cache_gib_per_gpu: float | None
    context_length: int | None
    evaluated_len: int | None
    attention: str | None = None
    kv_dtype_bytes: int | None = None
    kv_bytes_per_token: int | None = None
    kv_bytes_per_sequence_window: int | None = None
    kv_bytes_per_token_per_gpu: float | None = None
    windows_per_gpu: list = field(
        default_factory=list
    )  # [{"window", "bytes_per_token"}] for the page formula
    state_bytes_per_sequence_per_gpu: int = (
        0  # recurrent state of linear-attention / Mamba layers, per request
    )
    prefill_chunk: int = 0
    kv_block_size: int = kv_cache.DEFAULT_BLOCK_SIZE  # tokens per full-attention block (x DCP)
    kv_bytes_per_block_per_gpu: int = 0  # one such block across the full-attention groups
    null_block_bytes: int = 0  # the pool block vLLM holds back (CacheGroups.block_bytes)
    max_tokens: int | None = None
    max_concurrency: int | None = None
    max_concurrency_per_rank: int | None = None
    context_fits: bool | None = None
    memory_total_gib: float | None = None  # what torch reports, the budget's base
    max_model_len: int | None = None
    safe_max_model_len: int | None = None
    concurrency: int | None = None
    max_model_len_at_concurrency: int | None = None
    missing_facts: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    strategy: str | None = None
    nodes: int = 1
    weights_only: dict | None = None
    plan: dict | None = None  # plan.rendering_plan of the command `recipes-site command` prints
    plan_reason: str | None = None  # the plan's verdict in words (plan.reason)
    replicas: list | None = None  # that command pinned to its own GPUs and port, filling one node
    speed: dict | None = None  # speed_layouts.rendering_speed of the plan (fit_report)
    layouts: dict | None = None  # speed_layouts.node_layouts: one instance or replicas (fit_report)

    @property
    def tp(self) -> int:
        return self.shape.tp

    def as_dict(self) -> dict:
        out = {
            "model": self.model,
            "variant": self.variant,
            "precision": self.precision,
            "hardware": self.hardware,
            "strategy": self.strategy,
            "nodes": self.nodes,
            "tp": self.shape.tp,
            "pp": self.shape.pp,
            "dp": self.shape.dp,
            "dcp": self.shape.dcp,
            "expert_parallel": self.shape.expert_parallel,
            "gpus": self.shape.gpus,
            "kv_cache_dtype": self.shape.kv_cache_dtype,
            "kv_dtype_bytes": self.kv_dtype_bytes,
            "gpu_memory_utilization": self.shape.gpu_memory_utilization,
            "vram_per_gpu_gib": self.vram_per_gpu_gib,
            "memory_total_gib": self.memory_total_gib,
            "budget_gib_per_gpu": _r(self.budget_gib_per_gpu),
            "weights_gb": _r(None if self.weights_gb is None else self.weights_gb),
            "weights_source": self.weights_source,
            "weights_gib_per_gpu": _r(self.weights_gib_per_gpu),
            "overhead": self.overhead.as_dict(),
            "kv_cache_gib_per_gpu": _r(self.kv_cache_gib_per_gpu),
            "attention": self.attention,
            "kv_bytes_per_token": self.kv_bytes_per_token,
            "kv_bytes_per_sequence_window": self.kv_bytes_per_sequence_window,
            "kv_bytes_per_token_per_gpu": None
            if self.kv_bytes_per_token_per_gpu is None
            else round(self.kv_bytes_per_token_per_gpu, 3),
            "windows_per_gpu": self.windows_per_gpu,
            "prefill_chunk": self.prefill_chunk,
            "block_size": self.kv_block_size,
            "kv_bytes_per_block_per_gpu": self.kv_bytes_per_block_per_gpu,
            "null_block_bytes": self.null_block_bytes,
            "state_bytes_per_sequence_per_gpu": self.state_bytes_per_sequence_per_gpu,
            "max_tokens": self.max_tokens,
            "context_length": self.context_length,
            "evaluated_len": self.evaluated_len,
            "context_fits": self.context_fits,
            "max_concurrency": self.max_concurrency,
            "max_concurrency_per_rank": self.max_concurrency_per_rank,
            "max_model_len": self.max_model_len,
            "safe_max_model_len": self.safe_max_model_len,
            "concurrency": self.concurrency,
            "max_model_len_at_concurrency": self.max_model_len_at_concurrency,
            "missing_facts": self.missing_facts,
            "notes": self.notes,
        }
        if self.weights_only is not None:
            out["weights_only"] = self.weights_only
        if self.plan is not None:
            out["plan"], out["plan_reason"] = self.plan, self.plan_reason
        if self.replicas:
            out["replicas"] = self.replicas
        if self.speed is not None:
            out["speed"] = self.speed
        if self.layouts is not None:
            out["layouts"] = self.layouts
        return out


def _r(value, digits: int = 3):
    return None if value is None else round(value, digits)


@dataclass(frozen=True)
class ModelFacts:
    """What a fit reads of a recipe and one of its variants, whatever the hardware and the command
    (`model_facts`): plan.py computes them once per variant, not once per plan."""

    cfg: dict | None
    model_id: str
    precision: str | None
    weights_bytes: float | None
    weights_source: str
    expert_fraction: float | None
    context_length: int | None
    missing_facts: tuple  # kv_cache.missing_facts: what the KV arithmetic still needs
    layout: kv_cache.KvLayout | None  # kv_cache.kv_layout, when nothing is missing
    quantized_expert_bytes: float = 0.0  # routed experts of a component-sized MXFP4 checkpoint


def model_facts(recipe: dict, variant_key: str) -> ModelFacts:
    """The `ModelFacts` of a recipe's variant (the default variant's for an unknown key)."""
    model = recipe.get("model") or {}
    cfg = model.get("hf_config") if isinstance(model.get("hf_config"), dict) else None
    variants = recipe.get("variants") or {}
    variant = variants.get(variant_key) or variants.get("default") or {}
    total, source = weights_bytes(recipe, variant)
    missing = tuple(kv_cache.missing_facts(cfg))
    return ModelFacts(
        cfg=cfg,
        model_id=model.get("model_id") or "",
        precision=variant.get("precision"),
        weights_bytes=total,
        weights_source=source,
        expert_fraction=expert_fraction(cfg),
        context_length=context_length(recipe),
        missing_facts=missing,
        layout=None if missing or cfg is None else kv_cache.kv_layout(cfg),
        quantized_expert_bytes=_quantized_expert_bytes(recipe, variant)
        if variant.get("precision") == "mxfp4" and source == "hf_config components"
        else 0.0,
    )


def _quantized_expert_bytes(recipe: dict, variant: dict) -> float:
    try:
        count = parameter_count(recipe["model"]["hf_config"])
    except (KeyError, TypeError, ZeroDivisionError):
        return 0.0
    return count.routed_experts * sizing.MXFP4_BYTES_PER_PARAM


class MemorySplit(NamedTuple):
    """How one GPU's memory splits for a deployment (`memory_split`), all in GiB but the per-token
    KV figures (bytes; left empty when hf_config lacks the facts, `ModelFacts.layout` None)."""

    vram_per_gpu_gib: float
    budget_gib_per_gpu: float
    weights_gb: float | None  # whole model, decimal GB
    weights_gib_per_gpu: float | None
    overhead: Overhead
    kv_cache_gib_per_gpu: float | None
    context_length: int | None
    kv_dtype_bytes: int | None = None
    kv_dtype_note: str | None = None  # why a KV dtype was counted as 2 bytes
    kv_bytes_per_token_per_gpu: float | None = None
    windows_per_gpu: tuple = ()  # window_terms: the windowed groups, for the page formula
    prefill_chunk: int = 0
    state_bytes_per_sequence_per_gpu: int = 0
    kv_groups: kv_cache.CacheGroups | None = None  # vLLM's KV cache groups on one GPU
    kv_block_size: int = kv_cache.DEFAULT_BLOCK_SIZE  # tokens per full-attention block (x DCP)
    kv_bytes_per_block_per_gpu: int = 0  # one such block across the full-attention groups
    kv_cache_dtype: str | None = (
        None  # the cache dtype vLLM really runs (kv_cache.resolved_kv_cache_dtype)
    )
    kv_layout: kv_cache.KvLayout | None = None  # the layout as that dtype lays it out on this GPU


def max_concurrent_batches(shape: Shape) -> int:
    """Batches in flight at once: PP + 1 under async scheduling with the V2 model runner, vLLM 0.33's
    default (vllm/config/vllm.py:587-598, 731-766); PP without async scheduling, which vLLM turns off
    under an executor that does not support it, such as Ray (vllm.py:1685-1719; only the
    multiprocessing and single-process executors, the torchrun launcher included, support it:
    v1/executor/multiproc_executor.py:666, uniproc_executor.py:157)."""
    asynchronous = shape.async_scheduling
    if asynchronous is None:
        asynchronous = (
            shape.executor != "ray"
        )  # the default executor is mp (config/parallel.py:1054-1095)
    return shape.pp + 1 if asynchronous else shape.pp


def draft_layers(cfg: dict | None, shape: Shape) -> tuple[int, str | None]:
    """Full-attention layers a --speculative-config adds to the KV cache, and a note when estimated.

    MTP drafts run the checkpoint's own next-token layers (`num_nextn_predict_layers`, DeepSeek /
    GLM; `mtp_num_hidden_layers`, Qwen3.5/3.6), each with the target's attention
    (vllm/model_executor/models/deepseek_mtp.py, qwen3_5_mtp.py); an EAGLE / EAGLE-3 draft model is
    one decoder layer, counted with the target's shape (its own config is not in the recipe)."""
    if not shape.speculative or not isinstance(cfg, dict):
        return 0, None
    method, _, model = shape.speculative
    if method in ("eagle", "eagle3") and model:
        return 1, f"{method} draft KV cache counted as one layer of the target's shape"
    if method in ("mtp", "deepseek_mtp", "qwen3_5_mtp", "qwen3_next_mtp", "glm4_moe_mtp") or (
        method is None and not model
    ):
        for key in ("num_nextn_predict_layers", "mtp_num_hidden_layers"):
            value = cfg.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                return value, None
    return 0, None


def window_terms(groups: kv_cache.CacheGroups) -> tuple:
    """The windowed groups as the page formula reads them: per window, the tokens it holds at most
    (the window, minus one for a sliding one, plus the tokens in flight), its block size, the bytes
    of one block of all its groups, the block a sliding window adds, and bytes per token."""
    out = []
    for t in groups.terms:
        if t.kind not in (kv_cache.SLIDING, kv_cache.CHUNKED):
            continue
        sliding = t.kind == kv_cache.SLIDING
        block_bytes = groups.term_bytes_per_block(t)
        out.append(
            {
                "window": t.window,
                "layers": t.layers,
                "kind": t.kind,
                "tokens": t.window - (1 if sliding else 0) + groups.in_flight,
                "block_size": t.block_size,
                "block_bytes": block_bytes,
                "extra_blocks": 1 if sliding else 0,
                "bytes_per_token": round(block_bytes / t.block_size, 3),
            }
        )
    return tuple(out)


def memory_split(
    facts: ModelFacts,
    vram: float,
    shape: Shape,
    *,
    profile: dict | None = None,
    version: tuple = VLLM_VERSION,
) -> MemorySplit:
    """Budget, weights, overhead and KV cache of one GPU with `vram` GiB (nominal) for a deployment
    shaped `shape`, and the KV cache's bytes per token: where `fit_deployment` starts, and all that
    a plan (plan.py) reads of a fit. `profile` (the hardware) gives the memory torch reports
    (`gpu_memory`); without it `vram` is taken as that total.

    The budget is what vLLM requests, `ceil(total x gpu_memory_utilization)` of the memory torch
    reports (vllm/v1/worker/utils.py:716-724); the KV cache is what the budget leaves after the
    weights as loaded and `overhead` (vllm/v1/worker/gpu_worker.py:753-757)."""
    g = gpu_memory(profile) if profile else as_gpu(vram)
    budget = g.total_gib * shape.gpu_memory_utilization
    total = facts.weights_bytes
    per_gpu = None if total is None else weights_per_gpu(total, shape, facts.expert_fraction) / GIB
    over = overhead(
        facts.cfg,
        shape,
        g,
        max_model_len=shape.max_model_len or facts.context_length,
        version=version,
    )
    padding = mxfp4_padding_bytes(facts.cfg, facts.quantized_expert_bytes, shape, g, version)
    if padding:
        over = replace(over, weights_padding_gib=padding / GIB)
    kv_gib = None if per_gpu is None else budget - per_gpu - over.total_gib
    split = MemorySplit(
        vram,
        budget,
        None if total is None else total / 1e9,
        per_gpu,
        over,
        kv_gib,
        facts.context_length,
    )
    layout = facts.layout
    if layout is None:
        return split
    return split._replace(
        **kv_layout_of(facts, layout, shape, profile or {}, over.max_num_batched_tokens)
    )


def kv_layout_of(
    facts: ModelFacts, layout: kv_cache.KvLayout, shape: Shape, profile: dict, batched: int
) -> dict:
    """The KV side of `memory_split`: the cache dtype the GPU really gets, vLLM's KV cache groups and
    the page formula's inputs (`batched`: the scheduler's max_num_batched_tokens, which sets the
    tokens in flight in windowed layers)."""
    family = kv_cache.cuda_family(profile.get("generation"), profile.get("display_name"))
    dtype = kv_cache.resolved_kv_cache_dtype(facts.cfg, shape.kv_cache_dtype, family)
    layout = kv_cache.on_gpu(layout, dtype, family)
    note = None
    try:
        dtype_bytes = kv_cache.kv_dtype_bytes(dtype)
    except ValueError as exc:
        note, dtype_bytes = f"{exc}; counted as 2 bytes", 2
    alignment = kv_cache.gdn_checkpoint_alignment(layout, facts.cfg, profile.get("generation"))
    drafts, _ = draft_layers(facts.cfg, shape)
    spec_tokens = shape.speculative[1] if shape.speculative else 0
    groups = kv_cache.cache_groups(
        layout,
        dtype_bytes,
        shape.tp,
        shape.pp,
        shape.dcp,
        in_flight=max_concurrent_batches(shape) * batched if layout.windows else 0,
        speculative_tokens=spec_tokens if layout.states else 0,
        prefix_caching=shape.prefix_caching,
        state_alignment=alignment if shape.prefix_caching else 1,
        checkpoint_blocks=kv_cache.state_checkpoint_blocks(layout, alignment),
        draft_layers=drafts,
        block_size=shape.block_size or kv_cache.default_block_size(layout, dtype, family),
    )
    full = groups.term(kv_cache.FULL) if groups else None
    state = groups.term(kv_cache.STATE) if groups else None
    block = (full.block_size if full else kv_cache.DEFAULT_BLOCK_SIZE) * max(1, shape.dcp)
    full_block_bytes = groups.term_bytes_per_block(full) if groups and full else 0
    return {
        "kv_dtype_bytes": dtype_bytes,
        "kv_dtype_note": note,
        "kv_cache_dtype": dtype,
        "kv_layout": layout,
        "kv_bytes_per_token_per_gpu": full_block_bytes / block,
        "windows_per_gpu": window_terms(groups) if groups else (),
        "prefill_chunk": batched if layout.windows else 0,
        "state_bytes_per_sequence_per_gpu": (
            groups.state_blocks * groups.term_bytes_per_block(state) if groups and state else 0
        ),
        "kv_groups": groups,
        "kv_block_size": block,
        "kv_bytes_per_block_per_gpu": full_block_bytes,
    }


def kv_cache_tokens(split: MemorySplit, kv_bytes: float, max_model_len: int | None) -> int | None:
    """The tokens vLLM reports its KV cache holds ("GPU KV cache size: N tokens",
    `CacheGroups.tokens`) for `kv_bytes` per GPU and the served `max_model_len`; None when the
    layout is unknown."""
    groups = split.kv_groups
    if groups is None:
        return None
    if not max_model_len:
        return groups.num_blocks(kv_bytes) * (split.kv_block_size or kv_cache.DEFAULT_BLOCK_SIZE)
    return groups.tokens(kv_bytes, max_model_len)


def fit_deployment(
    recipe: dict,
    variant_key: str,
    hw_id: str,
    profile: dict,
    shape: Shape,
    *,
    evaluate_len: int | None = None,
    concurrency: int | None = None,
    version: tuple = VLLM_VERSION,
) -> FitResult:
    """The memory budget of one GPU of a deployment shaped `shape` on `profile`, and what its KV
    cache holds. `evaluate_len` is the request length for the concurrency figures (default: the
    command's --max-model-len, else the recipe's context); `concurrency` asks for the longest
    length at which that many requests fit; `version` the vLLM release (log replays)."""
    f = model_facts(recipe, variant_key)
    cfg = f.cfg
    gpu = gpu_memory(profile)
    m = memory_split(f, sizing.per_gpu_gib(profile), shape, profile=profile, version=version)
    vram, budget, kv_gib = m.vram_per_gpu_gib, m.budget_gib_per_gpu, m.kv_cache_gib_per_gpu
    notes: list[str] = []
    if shape.expert_parallel and shape.dp > 1 and f.expert_fraction is None:
        notes.append(
            "expert share unknown: weights assumed to split evenly across the expert-parallel group"
        )
    ctx_len = m.context_length
    result = FitResult(
        model=f.model_id,
        variant=variant_key,
        precision=f.precision,
        hardware=hw_id,
        vram_per_gpu_gib=vram,
        memory_total_gib=gpu.total_gib,
        shape=shape,
        budget_gib_per_gpu=budget,
        weights_gb=m.weights_gb,
        weights_source=f.weights_source,
        weights_gib_per_gpu=m.weights_gib_per_gpu,
        overhead=m.overhead,
        kv_cache_gib_per_gpu=kv_gib,
        context_length=ctx_len,
        evaluated_len=evaluate_len or shape.max_model_len or ctx_len,
        concurrency=concurrency,
        notes=notes,
    )
    if f.weights_bytes is None:
        result.missing_facts.append("variant vram_minimum_gb or model.parameter_count")
    if f.missing_facts:
        result.missing_facts += f.missing_facts
        result.notes.append("weights-only sizing: the KV cache per token needs the missing facts")
        return result
    if m.kv_dtype_note:
        result.notes.append(m.kv_dtype_note)
    dtype_bytes, layout, groups = m.kv_dtype_bytes, m.kv_layout, m.kv_groups
    assert dtype_bytes is not None and layout is not None  # no fact missing: the KV cache is sized
    if m.kv_cache_dtype and m.kv_cache_dtype != shape.kv_cache_dtype:
        result.notes.append(
            f"--kv-cache-dtype {shape.kv_cache_dtype} runs as {m.kv_cache_dtype} on {hw_id} "
            "(vLLM's choice for sparse MLA on this GPU family)"
        )
    if draft_note := draft_layers(cfg, shape)[1]:
        result.notes.append(draft_note)
    result.notes += list(layout.notes)
    result.attention = layout.attention
    result.kv_dtype_bytes = dtype_bytes
    result.kv_bytes_per_token = kv_cache.kv_bytes_per_token(layout, dtype_bytes)
    result.kv_bytes_per_sequence_window = kv_cache.kv_bytes_per_sequence_window(layout, dtype_bytes)
    per_token = m.kv_bytes_per_token_per_gpu
    result.kv_bytes_per_token_per_gpu = per_token
    chunk = m.prefill_chunk
    result.prefill_chunk = chunk
    result.kv_block_size = m.kv_block_size
    result.kv_bytes_per_block_per_gpu = m.kv_bytes_per_block_per_gpu
    result.null_block_bytes = groups.block_bytes if groups else 0
    result.windows_per_gpu = [dict(w) for w in m.windows_per_gpu]
    result.state_bytes_per_sequence_per_gpu = m.state_bytes_per_sequence_per_gpu
    if tp_note := kv_cache.tp_problem(cfg, shape.tp):
        result.notes.append(f"{tp_note}: vLLM refuses this TP size")
    if layout.attention == "mla" and shape.tp > 1 and shape.dcp == 1:
        result.notes.append(
            "MLA: every TP rank holds the whole latent cache (decode context parallelism shards it)"
        )
    if kv_gib is None:
        return result
    kv_bytes = kv_gib * GIB
    if kv_bytes <= 0:
        result.notes.append(
            f"no room for a KV cache: weights and overhead exceed the "
            f"{budget:.1f} GiB budget of each GPU"
        )
        result.max_tokens = result.max_concurrency = result.max_concurrency_per_rank = 0
        result.max_model_len = result.safe_max_model_len = 0
        result.context_fits = False
        return result
    cap = ctx_len or (1 << 24)
    # the block pool keeps one block back (the null block): vLLM checks a request of max_model_len
    # against the rest (kv_cache_planning.py:1533-1556)
    room = kv_bytes - result.null_block_bytes
    longest = kv_cache.longest_in(groups, room, 1, cap)
    result.max_model_len = longest
    result.context_fits = ctx_len is not None and longest >= ctx_len
    result.safe_max_model_len = ctx_len if result.context_fits else safe_length(longest)
    if (
        evaluate_len is None
        and shape.max_model_len is None
        and not result.context_fits
        and result.safe_max_model_len
    ):
        result.evaluated_len = result.safe_max_model_len  # the length the engine renders
    served = shape.max_model_len or (ctx_len if result.context_fits else result.safe_max_model_len)
    result.max_tokens = kv_cache_tokens(m, kv_bytes, served)
    length = result.evaluated_len
    if length:
        need = groups.bytes_per_request(length) if groups else 0
        per_rank = max(0, int(room // need)) if need else 0
        result.max_concurrency_per_rank = per_rank
        result.max_concurrency = per_rank * shape.dp
    if concurrency:
        per_rank_requests = math.ceil(concurrency / shape.dp)
        result.max_model_len_at_concurrency = kv_cache.longest_in(
            groups, room, per_rank_requests, cap
        )
    return result


# -- the engine's use ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class EngineSizing:
    args: tuple = ()  # tokens the engine appends to the serve command
    notes: tuple = ()  # why


NO_CHANGE = EngineSizing()


def hf_config_of(recipe: dict) -> dict | None:
    cfg = (
        (recipe.get("model") or {}).get("hf_config")
        if isinstance(recipe.get("model"), dict)
        else None
    )
    return cfg if isinstance(cfg, dict) and cfg else None


def engine_tp(recipe: dict, tp: int) -> int:
    """The TP size to render: `tp`, or the largest smaller size the model's heads allow."""
    cfg = hf_config_of(recipe)
    if cfg is None or not isinstance(tp, int):
        return tp
    return kv_cache.largest_valid_tp(cfg, tp)


def recipe_speculatives(recipe: dict) -> list[tuple]:
    """The `Shape.speculative` of every `--speculative-config` the recipe's features pass."""
    found: list[tuple] = []

    def walk(node) -> None:
        if isinstance(node, dict):
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            found.extend(
                spec
                for i, tok in enumerate(node[:-1])
                if tok == "--speculative-config" and (spec := speculative_of(node[i + 1]))
            )
            for value in node:
                walk(value)

    walk(recipe.get("features"))
    return found


def engine_sizing(
    recipe: dict, variant_key: str, hw_id: str, profile: dict, tokens, drafts: tuple = ()
) -> EngineSizing:
    """For a recipe with hf_config whose context does not fit one request in the KV cache of the
    process described by `tokens`: a `--max-model-len` rounded down to a multiple of 1024, and why.
    Nothing for recipes without hf_config, or when the context (or the command's own
    --max-model-len) fits.

    The length holds whether or not the reader switches on a speculative-decoding feature of the
    recipe: a command without --speculative-config is sized for the one of `drafts` (the
    `--speculative-config` values a reader can switch on for it) that leaves the shortest length,
    since the page toggles that feature without re-sizing the command."""
    cfg = hf_config_of(recipe)
    if cfg is None or kv_cache.missing_facts(cfg):
        return NO_CHANGE
    shape = shape_from_argv(tokens)
    wanted = shape.max_model_len or context_length(recipe)
    if not wanted:
        return NO_CHANGE
    shapes = [shape]
    if not shape.speculative:
        options = [speculative_of(d) for d in drafts]
        shapes = [replace(shape, speculative=s) for s in options if s] or shapes
    fits = [
        (fit_deployment(recipe, variant_key, hw_id, profile, s, evaluate_len=wanted), s)
        for s in shapes
    ]
    result, shape = min(fits, key=lambda pair: _room(pair[0]))
    if result.kv_cache_gib_per_gpu is None or result.max_model_len is None:
        return NO_CHANGE
    if result.max_model_len >= wanted:
        return NO_CHANGE
    gpu = profile.get("display_name") or hw_id
    where = (
        f"{result.kv_cache_gib_per_gpu:.1f} GiB of KV cache per {gpu} GPU (budget "
        f"{result.budget_gib_per_gpu:.1f} GiB at --gpu-memory-utilization {shape.gpu_memory_utilization:g}, "
        f"weights {result.weights_gib_per_gpu:.1f} GiB, overhead {result.overhead.total_gib:.1f} GiB, TP {shape.tp})"
    )
    safe = safe_length(result.max_model_len)
    if safe < SAFE_LEN_STEP:
        raised = _with_raised_utilization(
            recipe, variant_key, hw_id, profile, tokens, shape, wanted
        )
        if raised is not None:
            return raised
        return EngineSizing((), (f"a {wanted:,}-token request does not fit: {where}",))
    return EngineSizing(
        ("--max-model-len", str(safe)),
        (
            f"--max-model-len {safe}: one {wanted:,}-token request does not fit in {where}; "
            f"{result.max_model_len:,} tokens do",
        ),
    )


def _room(result: FitResult) -> float:
    """How long a request a fit holds, for picking the tightest: -1 when it holds no KV cache."""
    if result.kv_cache_gib_per_gpu is None or result.max_model_len is None:
        return -1.0
    return float(result.max_model_len)


def sets_flag(tokens, flag: str) -> bool:
    """Whether a serve command passes `flag` (in any spelling vLLM accepts)."""
    return any(vllm_spelling(str(t)).partition("=")[0] == flag for t in tokens)


def _with_raised_utilization(
    recipe: dict, variant_key: str, hw_id: str, profile: dict, tokens, shape: Shape, wanted: int
) -> EngineSizing | None:
    """When the command leaves --gpu-memory-utilization at vLLM's default and cannot start with it:
    `--gpu-memory-utilization 0.95` (and a `--max-model-len` if the context still does not fit)
    when that makes it start, so the verdict never relies on a value the command does not pass."""
    if sets_flag(tokens, "--gpu-memory-utilization") or shape.gpu_memory_utilization >= (
        RAISED_GPU_MEMORY_UTILIZATION
    ):
        return None
    raised = replace(shape, gpu_memory_utilization=RAISED_GPU_MEMORY_UTILIZATION)
    result = fit_deployment(recipe, variant_key, hw_id, profile, raised, evaluate_len=wanted)
    if result.max_model_len is None or safe_length(result.max_model_len) < SAFE_LEN_STEP:
        return None
    flag = ("--gpu-memory-utilization", f"{RAISED_GPU_MEMORY_UTILIZATION:g}")
    why = (
        f"--gpu-memory-utilization {RAISED_GPU_MEMORY_UTILIZATION:g}: at vLLM's default "
        f"{shape.gpu_memory_utilization:g} no request fits "
        f"({result.kv_cache_gib_per_gpu:.1f} GiB of KV cache per GPU at {RAISED_GPU_MEMORY_UTILIZATION:g})"
    )
    if result.max_model_len >= wanted:
        return EngineSizing(flag, (why,))
    safe = safe_length(result.max_model_len)
    return EngineSizing(
        (*flag, "--max-model-len", str(safe)),
        (why, f"--max-model-len {safe}: {result.max_model_len:,} tokens fit at that utilization"),
    )


# -- the API's kv_sizing and the model page's sizing panel ----------------------------------------------


def memory_process(rendering):
    """The process whose GPUs the fit describes: the decode pool of a PD deployment, else the main one."""
    if rendering.decode is not None:
        return rendering.decode.process
    return rendering.main_process


def rendering_fit(recipe: dict, rendering, profile: dict) -> FitResult:
    """The fit of one rendering exactly as the engine renders it: the shape of its main process (the
    decode pool of a PD deployment), including the engine's own `--max-model-len`."""
    proc = memory_process(rendering)
    shape = shape_from_argv(proc.argv if proc else ())
    result = fit_deployment(recipe, rendering.variant, rendering.hardware, profile, shape)
    result.strategy, result.nodes = rendering.strategy, rendering.node_count
    return result


def panel_entry(r: FitResult) -> dict:
    """What the model page's sizing panel reads of one deployment (and the API publishes as
    `kv_sizing.<variant>.<hw>.deployments[]`): the budget split per GPU and the numbers of the page
    formulas below, so the page never re-derives a rule.

    Page formulas (site.js `kvFit` transcribes them literally; tests/browser/test_browser_sizing.py
    checks them against `fit_deployment`). For an entry `e`, a request length `L` and `C` requests,
    blocks as vLLM allocates them (`kv_cache.CacheGroups`), all zero for L = 0:

        seq(L)       = e.kv_bytes_per_block_per_gpu x ceil(L / e.block_size)
                         (block_size 16 and kv_bytes_per_token_per_gpu x block_size when absent)
                       + sum over w in e.windows_per_gpu of
                         w.block_bytes x (ceil(min(L, w.tokens) / w.block_size) + w.extra_blocks)
                       + e.state_bytes_per_sequence_per_gpu (when present: the recurrent state)
        needed(L, C) = ceil(C / e.dp) x seq(L)            KV bytes per GPU (DP ranks share the requests)
        room         = e.kv_cache_bytes_per_gpu - e.null_block_bytes   (the block vLLM holds back)
        fits(L, C)   = needed(L, C) <= room
        requests(L)  = floor(room / seq(L)) x e.dp
        longest(C)   = the largest L <= e.context_length with fits(L, C), by bisection (0 if none)

    They are `CacheGroups.bytes_per_request` and `kv_cache.longest_in` with the groups folded into
    the block figures; `requests(L)` is `max_concurrency` and `longest(C)`
    `max_model_len_at_concurrency` of `fit_deployment(evaluate_len=L, concurrency=C)`.
    """
    s = r.shape
    kv_bytes = (
        None if r.kv_cache_gib_per_gpu is None else max(0, math.floor(r.kv_cache_gib_per_gpu * GIB))
    )
    return {
        "strategy": r.strategy,
        "node_count": r.nodes,
        "variant": r.variant,
        "tp": s.tp,
        "pp": s.pp,
        "dp": s.dp,
        "expert_parallel": s.expert_parallel,
        "kv_cache_dtype": s.kv_cache_dtype,
        "gpu_memory_utilization": s.gpu_memory_utilization,
        "vram_gib_per_gpu": _r(r.vram_per_gpu_gib),
        "memory_total_gib_per_gpu": _r(r.memory_total_gib or r.vram_per_gpu_gib),
        "budget_gib_per_gpu": _r(r.budget_gib_per_gpu),
        "weights_gib_per_gpu": _r(r.weights_gib_per_gpu),
        "overhead_gib_per_gpu": _r(r.overhead.total_gib),
        "overhead_breakdown": r.overhead.as_dict(),
        "vllm_version": data.VLLM_VERSION,  # the release named on the pages and in the API
        "kv_cache_gib_per_gpu": _r(r.kv_cache_gib_per_gpu),
        "kv_cache_bytes_per_gpu": kv_bytes,
        "null_block_bytes": r.null_block_bytes,
        "kv_bytes_per_token": r.kv_bytes_per_token,
        "kv_bytes_per_sequence_window": r.kv_bytes_per_sequence_window,
        "kv_bytes_per_token_per_gpu": r.kv_bytes_per_token_per_gpu,
        "block_size": r.kv_block_size,
        "kv_bytes_per_block_per_gpu": r.kv_bytes_per_block_per_gpu,
        "windows_per_gpu": [published_window(w) for w in r.windows_per_gpu],
        "prefill_chunk": r.prefill_chunk,
        "context_length": r.context_length,
        "evaluated_len": r.evaluated_len,
        "max_tokens": r.max_tokens,
        "max_concurrency": r.max_concurrency,
        "max_model_len": r.max_model_len,
        "safe_max_model_len": r.safe_max_model_len,
        "context_fits": r.context_fits,
        "missing_facts": r.missing_facts,
        "notes": r.notes,
        **(
            {"state_bytes_per_sequence_per_gpu": r.state_bytes_per_sequence_per_gpu}
            if r.state_bytes_per_sequence_per_gpu
            else {}
        ),
    }


PUBLISHED_WINDOW_KEYS = (
    "window",
    "tokens",
    "block_size",
    "block_bytes",
    "extra_blocks",
    "bytes_per_token",
)


def published_window(w: dict) -> dict:
    """What the API and the plans publish of a `window_terms` entry."""
    return {key: w[key] for key in PUBLISHED_WINDOW_KEYS}


def panel_figures(entry: dict, length: int, concurrency: int = 1) -> dict:
    """The page formulas of `panel_entry`, evaluated on an entry (the reference that site.js `kvFit`
    transcribes): KV bytes per GPU that `concurrency` requests of `length` tokens need, whether they
    fit, how many requests of `length` fit, and the longest length at which `concurrency` fit."""
    kv = entry.get("kv_cache_bytes_per_gpu")
    per_token = entry.get("kv_bytes_per_token_per_gpu")
    if kv is None or per_token is None:
        return {"needed_bytes": None, "fits": None, "requests": None, "longest": None}

    def seq(tokens: int) -> float:
        if tokens <= 0:
            return 0
        block = entry.get("block_size") or kv_cache.DEFAULT_BLOCK_SIZE
        full = entry.get("kv_bytes_per_block_per_gpu")
        return (
            (per_token * block if full is None else full) * math.ceil(tokens / block)
            + sum(
                w["block_bytes"]
                * (math.ceil(min(tokens, w["tokens"]) / w["block_size"]) + w["extra_blocks"])
                for w in entry.get("windows_per_gpu") or ()
            )
            + (entry.get("state_bytes_per_sequence_per_gpu") or 0)
        )

    def needed(tokens: int, requests: int) -> float:
        return math.ceil(requests / entry["dp"]) * seq(tokens)

    room = kv - (entry.get("null_block_bytes") or 0)

    def longest(requests: int) -> int:
        cap = entry.get("context_length") or (1 << 24)
        if room <= 0 or requests <= 0:
            return 0
        if needed(cap, requests) <= room:
            return cap
        lo, hi = 0, cap
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if needed(mid, requests) <= room:
                lo = mid
            else:
                hi = mid
        return lo

    one = seq(length)
    need = needed(length, concurrency)
    return {
        "needed_bytes": need,
        "fits": need <= room,
        "requests": max(0, int(room // one)) * entry["dp"] if one > 0 else 0,
        "longest": longest(concurrency),
    }


def kv_sizing(ctx, recipe: dict, rendered) -> dict | None:
    """`kv_sizing` of the API model document: per variant tree and hardware, the panel entry of every
    rendering there (`deployments`). The plan of each rendering (with its replicas) rides in the
    hardware documents (plan.py). None for recipes without `model.hf_config` (their documents stay
    as the reference's)."""
    if hf_config_of(recipe) is None:
        return None
    out: dict = {}
    for tree in rendered.trees:
        per_hw = out.setdefault(tree.variant, {})
        for res in tree.by_hardware:
            profile = ctx.profiles.get(res.hardware) or {}
            deployments = [
                panel_entry(rendering_fit(recipe, r, profile))
                for r in (res.recommended,) + res.alternatives
            ]
            per_hw[res.hardware] = {"deployments": deployments}
    return out
