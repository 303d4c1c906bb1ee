"""KV-cache arithmetic from a model's Hugging Face `config.json` facts (`model.hf_config`),
matched to vLLM 0.33's own accounting (the `KVCacheSpec` page sizes in
`vllm/v1/kv_cache_interface.py` and each model's attention layers). Pure functions, no I/O.
Key names are the config's own, so a contributor can paste them.

Per token and per layer a cache stores:

* GQA / MHA attention: K and V, `2 x kv_heads x head_dim` elements (`AttentionSpec`:
  `(head_size + head_size_v) x dtype`). Gemma 4's full-attention layers have their own shape:
  `global_head_dim`, and `num_global_key_value_heads` where `attention_k_eq_v` (vLLM still stores
  V, a copy of K, so K=V does not halve the cache); its last `num_kv_shared_layers` layers reuse
  an earlier layer's cache and hold none (gpu_model_runner.py:7096-7106).
* MLA (DeepSeek-V3, Kimi-K2): one latent plus the RoPE key, `kv_lora_rank + qk_rope_head_dim`
  elements, no V. Sparse MLA (DeepSeek-V3.2, GLM-5: `index_topk` set) adds the indexer's key
  cache, `index_head_dim` fp8 bytes + one fp32 scale per 128 (132 B, whatever the KV dtype), and
  its FP8 cache is the 656-byte `fp8_ds_mla` row (512 fp8 + 4 fp32 scales + 64 bf16 RoPE).

times the KV dtype width (`--kv-cache-dtype auto` = the model's 16-bit dtype, 2 bytes; `fp8*` = 1).
Full-attention layers grow with the sequence; sliding-window layers (`sliding_attention`, window
`sliding_window`) and chunked layers (`chunked_attention`, chunk `attention_chunk_size`) keep at
most their window per sequence. Linear-attention and state-space layers (`linear_attention`:
Qwen3.5/3.6 Gated DeltaNet; `mamba`: Nemotron-H Mamba-2) keep a fixed-size recurrent state per
sequence instead (`state_bytes_per_sequence_per_gpu`), which vLLM pads to the attention page and
keeps in several copies with prefix caching; MLP-only blocks (`mlp`, `moe`) hold nothing.
Nemotron-H states its layers as `hybrid_override_pattern` (`M` Mamba-2, `*` attention, `-` MLP,
`E` MoE), which is read as layer types.

Per GPU: tensor parallelism splits GQA KV heads across ranks (a rank keeps one head, replicated,
once TP exceeds the KV heads) and the recurrent states' heads; MLA's latent and the indexer cache
are replicated on every TP rank (`max_tp_shards=1`; only decode context parallelism shards
them); pipeline parallelism splits the layers; data parallelism keeps a full copy per rank.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

FULL, SLIDING, CHUNKED = "full_attention", "sliding_attention", "chunked_attention"
# layer types whose KV grows with the sequence (other spellings configs use for full attention)
FULL_ALIASES = frozenset({FULL, "attention", "global_attention", "full"})
LINEAR, MAMBA, MLP_ONLY, MOE_ONLY = "linear_attention", "mamba", "mlp", "moe"
# layer types that hold no per-token KV cache (a fixed-size recurrent state, or no attention at all)
NO_KV_LAYER_TYPES = frozenset({LINEAR, MAMBA, "mamba2", MLP_ONLY, MOE_ONLY})
KNOWN_LAYER_TYPES = FULL_ALIASES | {SLIDING, CHUNKED} | NO_KV_LAYER_TYPES
# Nemotron-H `hybrid_override_pattern` characters
HYBRID_PATTERN_TYPES = {"M": MAMBA, "*": FULL, "-": MLP_ONLY, "E": MOE_ONLY}

# --kv-cache-dtype values and their width in bytes; `auto` is the model's 16-bit dtype
KV_DTYPE_BYTES = {
    "auto": 2,
    "bfloat16": 2,
    "float16": 2,
    "half": 2,
    "fp8": 1,
    "fp8_e4m3": 1,
    "fp8_e5m2": 1,
    "fp8_inc": 1,
    "fp8_ds_mla": 1,
}
EXPERT_KEYS = ("num_experts", "num_local_experts", "n_routed_experts")

# Sparse MLA's FP8 row: vllm/model_executor/layers/attention/mla_attention.py:1386
#   state_content_bytes={"fp8_ds_mla": 656, "nvfp4_ds_mla": 352}
# laid out as 512 fp8 NoPE + 4 fp32 scales + 64 bf16 RoPE (v1/attention/backends/mla/flashmla_sparse.py:79-86);
# FLASHMLA_SPARSE serves every fp8 --kv-cache-dtype in that format (mla_attention.py:364-369).
FP8_DS_MLA_ROW_BYTES = 656
# The sparse-attention indexer's key cache, uint8 whatever the KV dtype: vllm/models/deepseek_v32/attention.py:91,96
#   self.quant_block_size = 128;  head_dim=self.head_dim + self.head_dim // self.quant_block_size * 4
INDEXER_QUANT_BLOCK = 128
DEFAULT_INDEX_HEAD_DIM = 128  # DeepSeek-V3.2 / GLM-5 config.json index_head_dim
# Recurrent-state dtypes: conv state in the model dtype (mamba_cache_dtype auto), the SSM/temporal
# state in `mamba_ssm_dtype` (Qwen3.5, vllm/model_executor/models/config.py:963-966), float32 by
# default for Nemotron-H (config.py:813 DEFAULT_MAMBA_SSM_CACHE_DTYPE = "float32").
STATE_DTYPE_BYTES = {"float32": 4, "fp32": 4, "bfloat16": 2, "float16": 2, "auto": 2}
MODEL_DTYPE_BYTES = 2
# Pages the KV manager reserves per sequence for a recurrent state without prefix caching
# (kv_cache_interface.py:1140-1141 `1 + spec`); with it see `state_copies`.
STATE_COPIES_NO_PREFIX_CACHING = 1
# The attention kernel block the hybrid page alignment rounds to (FlashAttention: multiples of 16;
# platforms/interface.py:1066-1101)
KERNEL_BLOCK = 16
# Tokens per KV block unless --block-size says otherwise: vllm/config/cache.py:185, 462-463
DEFAULT_BLOCK_SIZE = 16
# FlashInfer's Gated DeltaNet prefill exports states every 64 tokens: vllm/v1/attention/backends/gdn_attn.py:34
FLASHINFER_GDN_CHECKPOINT_ALIGNMENT = 64


class KvFactsError(ValueError):
    """The hf_config lacks (or contradicts) the facts the KV arithmetic needs."""


@dataclass(frozen=True)
class StateLayers:
    """The recurrent state of a model's linear-attention or Mamba-2 layers (whole model, TP 1)."""

    kind: str  # "gated_delta_net" or "mamba2"
    layers: int
    conv_dim: int  # channels of the short convolution
    conv_len: int  # kernel - 1 positions kept
    heads: int  # heads of the temporal state (split by TP)
    head_dims: tuple  # the temporal state's per-head shape
    ssm_bytes: int  # width of the temporal state's dtype
    n_groups: int = 0  # Mamba-2 B/C groups (replicated up to TP when TP does not divide them)
    state_size: int = 0  # Mamba-2 state size per group


@dataclass(frozen=True)
class KvLayout:
    """How one model's KV cache is shaped, independent of dtype and parallelism."""

    attention: str  # "gqa" (also MHA) or "mla"
    layers: int
    full_layers: int  # full-attention layers with a cache of their own
    windows: tuple  # ((window tokens, layer count, layer type), ...) for capped layers
    elements_per_layer: (
        int  # cached elements per token and full-attention layer (whole model, before TP)
    )
    kv_heads: int | None = None  # GQA only: KV heads of the full-attention layers
    head_dim: int | None = None  # GQA only: their head dimension
    notes: tuple = ()  # assumptions made while reading the config
    window_kv_heads: int | None = (
        None  # sliding/chunked layers' KV heads (Gemma 4: differ from full)
    )
    window_head_dim: int | None = None
    index_bytes_per_layer: int = 0  # sparse MLA: indexer key cache bytes per token and layer
    shared_layers: int = 0  # layers reading another layer's cache (Gemma 4 E models)
    states: tuple = ()  # (StateLayers, ...) of linear-attention / Mamba layers
    ds_mla_fp8: bool = True  # sparse MLA in FP8 stores the 656-byte fp8_ds_mla row (see `on_gpu`)

    @property
    def sparse(self) -> bool:
        return self.index_bytes_per_layer > 0

    @property
    def state_layers(self) -> int:
        return sum(s.layers for s in self.states)


def _num(cfg: dict, key: str):
    value = cfg.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def num_experts(cfg: dict) -> int | None:
    """Routed experts per MoE layer under any of the config spellings (None when absent)."""
    for key in EXPERT_KEYS:
        value = cfg.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def is_mla(cfg: dict) -> bool:
    return _num(cfg, "kv_lora_rank") is not None


def is_sparse_mla(cfg: dict) -> bool:
    """DeepSeek-V3.2 / GLM-5 sparse attention: vLLM builds the indexer when `index_topk` is set
    (vllm/model_executor/models/deepseek_v2.py:1138 `self.is_v32 = hasattr(config, "index_topk")`)."""
    return is_mla(cfg) and _num(cfg, "index_topk") is not None


def layer_kinds(cfg: dict) -> list[str] | None:
    """The type of every layer: `layer_types`, else Nemotron-H's `hybrid_override_pattern`
    (None when the config states neither)."""
    types = cfg.get("layer_types")
    if isinstance(types, list):
        return types
    pattern = cfg.get("hybrid_override_pattern")
    if isinstance(pattern, str) and pattern:
        return [HYBRID_PATTERN_TYPES.get(ch, ch) for ch in pattern]
    return None


def missing_facts(cfg: dict | None) -> list[str]:
    """What the KV arithmetic still needs from hf_config (empty when it can run)."""
    if not isinstance(cfg, dict) or not cfg:
        return [
            "model.hf_config (num_hidden_layers, num_attention_heads, num_key_value_heads, head_dim "
            "or hidden_size; kv_lora_rank and qk_rope_head_dim for MLA)"
        ]
    out = []
    if _num(cfg, "num_hidden_layers") is None:
        out.append("num_hidden_layers")
    if is_mla(cfg):
        if _num(cfg, "qk_rope_head_dim") is None:
            out.append("qk_rope_head_dim")
        return out
    if _num(cfg, "num_attention_heads") is None and _num(cfg, "num_key_value_heads") is None:
        out.append("num_key_value_heads")
    if _num(cfg, "head_dim") is None and (
        _num(cfg, "hidden_size") is None or _num(cfg, "num_attention_heads") is None
    ):
        out.append("head_dim (or hidden_size and num_attention_heads)")
    types = layer_kinds(cfg)
    layers = _num(cfg, "num_hidden_layers")
    if types is not None and layers is not None and len(types) != layers:
        key = (
            "layer_types" if isinstance(cfg.get("layer_types"), list) else "hybrid_override_pattern"
        )
        out.append(f"{key} with one entry per layer ({len(types)} given for {layers} layers)")
    return out


def _head_dim(cfg: dict) -> int | None:
    if _num(cfg, "head_dim") is not None:
        return cfg["head_dim"]
    hidden, heads = _num(cfg, "hidden_size"), _num(cfg, "num_attention_heads")
    return hidden // heads if hidden and heads else None


def full_attention_shape(cfg: dict) -> tuple[int, int | None]:
    """(KV heads, head dim) of the full-attention layers.

    Gemma 4 gives them their own: `global_head_dim`, and `num_global_key_value_heads` when
    `attention_k_eq_v` (HF Gemma4TextAttention: `head_dim = global_head_dim` on non-sliding layers,
    `num_key_value_heads = num_global_key_value_heads if attention_k_eq_v and not sliding`); vLLM
    builds each layer from that per-layer config (vllm/model_executor/models/gemma4.py:578-580).
    """
    kv_heads = _num(cfg, "num_key_value_heads") or cfg["num_attention_heads"]
    if cfg.get("attention_k_eq_v") is True and _num(cfg, "num_global_key_value_heads"):
        kv_heads = cfg["num_global_key_value_heads"]
    return kv_heads, _num(cfg, "global_head_dim") or _head_dim(cfg)


def _state_layers(cfg: dict, kinds: list[str], notes: list[str]) -> tuple:
    """The recurrent-state layers' shapes (vllm/model_executor/layers/mamba/mamba_utils.py)."""
    linear = sum(1 for k in kinds if k == LINEAR)
    mamba = sum(1 for k in kinds if k in (MAMBA, "mamba2"))
    ssm_dtype = cfg.get("mamba_ssm_dtype")
    if not isinstance(ssm_dtype, str):
        ssm_dtype = "float32" if cfg.get("model_type") == "nemotron_h" else "auto"
    ssm_bytes = STATE_DTYPE_BYTES.get(ssm_dtype, MODEL_DTYPE_BYTES)
    out = []
    if linear:
        nk, nv = _num(cfg, "linear_num_key_heads"), _num(cfg, "linear_num_value_heads")
        dk, dv = _num(cfg, "linear_key_head_dim"), _num(cfg, "linear_value_head_dim")
        if nk and nv and dk and dv:
            # mamba_utils.py:282-292  conv_dim = head_k_dim * num_k_heads * 2 + head_v_dim * num_v_heads;
            #   temporal_state_shape = (num_v_heads // tp, head_v_dim, head_k_dim)
            kernel = _num(cfg, "linear_conv_kernel_dim") or 4
            out.append(
                StateLayers(
                    "gated_delta_net",
                    linear,
                    dk * nk * 2 + dv * nv,
                    kernel - 1,
                    nv,
                    (dv, dk),
                    ssm_bytes,
                )
            )
        else:
            notes.append(
                "linear_attention state not counted: needs linear_num_key_heads, linear_num_value_heads, "
                "linear_key_head_dim, linear_value_head_dim"
            )
    if mamba:
        heads, head_dim = _num(cfg, "mamba_num_heads"), _num(cfg, "mamba_head_dim")
        state, groups = _num(cfg, "ssm_state_size"), _num(cfg, "n_groups")
        if heads and head_dim and state and groups:
            # mamba_utils.py:201-210  conv_dim = intermediate_size + 2 * n_groups * state_size (intermediate =
            #   mamba_num_heads * mamba_head_dim, nemotron_h.py:799); temporal = (num_heads // tp, head_dim, state_size)
            kernel = _num(cfg, "conv_kernel") or 4
            out.append(
                StateLayers(
                    "mamba2",
                    mamba,
                    heads * head_dim,
                    kernel - 1,
                    heads,
                    (head_dim, state),
                    ssm_bytes,
                    n_groups=groups,
                    state_size=state,
                )
            )
        else:
            notes.append(
                "mamba state not counted: needs mamba_num_heads, mamba_head_dim, ssm_state_size, n_groups"
            )
    return tuple(out)


def kv_layout(cfg: dict) -> KvLayout:
    """The cache shape described by `cfg`; raises KvFactsError when facts are missing."""
    missing = missing_facts(cfg)
    if missing:
        raise KvFactsError("hf_config lacks " + ", ".join(missing))
    layers = cfg["num_hidden_layers"]
    notes: list[str] = []
    if is_mla(cfg):
        index = 0
        if is_sparse_mla(cfg):
            dim = _num(cfg, "index_head_dim") or DEFAULT_INDEX_HEAD_DIM
            index = dim + dim // INDEXER_QUANT_BLOCK * 4
        return KvLayout(
            "mla",
            layers,
            layers,
            (),
            cfg["kv_lora_rank"] + cfg["qk_rope_head_dim"],
            index_bytes_per_layer=index,
        )
    kv_heads, head_dim = full_attention_shape(cfg)
    assert head_dim is not None  # missing_facts asks for head_dim or hidden_size
    window_heads = _num(cfg, "num_key_value_heads") or cfg["num_attention_heads"]
    window_dim = _head_dim(cfg)
    counts: dict[tuple, int] = {}
    full = layers
    types = layer_kinds(cfg)
    shared = 0
    states: tuple = ()
    if types is not None:
        full = 0
        # Gemma 3n / 4: the last num_kv_shared_layers layers read an earlier layer's cache (gemma4.py:403-406)
        shared = (
            min(len(types), cfg.get("num_kv_shared_layers") or 0)
            if isinstance(cfg.get("num_kv_shared_layers"), int)
            else 0
        )
        own = types[: len(types) - shared]
        states = _state_layers(cfg, own, notes)
        for kind in own:
            if kind in NO_KV_LAYER_TYPES:
                continue
            window = {
                SLIDING: _num(cfg, "sliding_window"),
                CHUNKED: _num(cfg, "attention_chunk_size"),
            }.get(kind)
            if window is not None:
                counts[(window, kind)] = counts.get((window, kind), 0) + 1
                continue
            full += 1
            if kind in (SLIDING, CHUNKED):
                key = "sliding_window" if kind == SLIDING else "attention_chunk_size"
                note = f"{kind} layers without {key} are counted as full attention"
            elif kind not in FULL_ALIASES:
                note = f"layer type {kind!r} is not known; counted as full attention"
            else:
                continue
            if note not in notes:
                notes.append(note)
    elif _num(cfg, "sliding_window") or _num(cfg, "attention_chunk_size"):
        notes.append("no layer_types: every layer is counted as full attention (an upper bound)")
    windows = tuple((w, n, kind) for (w, kind), n in counts.items())
    return KvLayout(
        "gqa",
        layers,
        full,
        windows,
        2 * kv_heads * head_dim,
        kv_heads,
        head_dim,
        tuple(notes),
        window_kv_heads=window_heads,
        window_head_dim=window_dim,
        shared_layers=shared,
        states=states,
    )


# -- the KV cache dtype a GPU really gets -----------------------------------------------------------


def cuda_family(generation: str | None, gpu_name: str | None) -> int | None:
    """The CUDA compute capability major of a hardware profile (None: not NVIDIA Hopper/Blackwell).

    Blackwell spans two families (NVIDIA "CUDA GPU compute capability" table): data-centre parts
    (B200/GB200 10.0, B300/GB300 10.3) are SM10x; workstation and consumer cards (RTX PRO Blackwell,
    GeForce RTX 50xx: 12.0) and GB10 (DGX Spark: 12.1) are SM12x."""
    if generation == "hopper":
        return 9
    if generation != "blackwell":
        return None
    name = (gpu_name or "").upper()
    return 12 if name.startswith("RTX") or "GB10)" in name or name.endswith("GB10") else 10


def resolved_kv_cache_dtype(cfg: dict | None, kv_cache_dtype: str, family: int | None) -> str:
    """The cache dtype vLLM 0.33 really runs a sparse-MLA model with (others: `kv_cache_dtype`).

    * GLM-5 (`GlmMoeDsaForCausalLM`) on SM10x turns `auto` into `fp8_e4m3`
      (vllm/model_executor/models/config.py:89-101).
    * SM12x serves sparse MLA with FLASHINFER_MLA_SPARSE_SM120 only (platforms/cuda.py:133-137), which
      runs `auto`, `fp8` and `fp8_e4m3` as `fp8_ds_mla` (layers/attention/mla_attention.py:370-375).
    """
    if not (isinstance(cfg, dict) and is_sparse_mla(cfg)):
        return kv_cache_dtype
    dtype = (kv_cache_dtype or "auto").lower()
    architectures = cfg.get("architectures") or ()
    glm_dsa = cfg.get("model_type") == "glm_moe_dsa" or "GlmMoeDsaForCausalLM" in architectures
    if family == 10 and dtype == "auto" and glm_dsa:
        return "fp8_e4m3"
    if family == 12 and dtype in ("auto", "fp8", "fp8_e4m3"):
        return "fp8_ds_mla"
    return kv_cache_dtype


def on_gpu(layout: KvLayout, kv_cache_dtype: str, family: int | None) -> KvLayout:
    """The layout as a GPU family stores it: on SM10x an FP8 sparse-MLA cache (other than an explicit
    `fp8_ds_mla`) goes to FLASHINFER_MLA_SPARSE, first for quantized caches (platforms/cuda.py:97-106),
    which keeps the plain 576-byte fp8 row (its dtypes: v1/attention/backends/mla/flashinfer_mla_sparse.py:84-90;
    only FLASHMLA_SPARSE and the SM120 backend map fp8 to fp8_ds_mla, mla_attention.py:359-376).
    Elsewhere FLASHMLA_SPARSE serves fp8 as the 656-byte fp8_ds_mla row."""
    if layout.sparse and family == 10 and (kv_cache_dtype or "").lower() != "fp8_ds_mla":
        return replace(layout, ds_mla_fp8=False)
    return layout


def default_block_size(layout: KvLayout, kv_cache_dtype: str, family: int | None) -> int:
    """Tokens per KV block without --block-size: 16 unless the attention backend vLLM picks does not
    take 16, then its smallest kernel block (platforms/interface.py:720-722, 766-778;
    v1/attention/backend.py:155-163).

    * GQA: FlashAttention / FlashInfer / Triton take multiples of 16: 16.
    * MLA on SM10x: FLASHINFER_MLA first (platforms/cuda.py:118-127), blocks of 32 or 64
      (backends/mla/flashinfer_mla.py:205): 32. Elsewhere FLASH_ATTN_MLA, multiples of 16
      (platforms/cuda.py:151-157, backends/mla/flashattn_mla.py:50): 16.
    * Sparse MLA: multiples of 64 (FLASH_ATTN_MLA_SPARSE, FLASHMLA_SPARSE, the SM120 and SM90
      FlashInfer backends: flashattn_mla_sparse.py:51, flashmla_sparse.py:158-165,
      flashinfer_mla_sparse.py:181, flashinfer_mla_sparse_sm90.py:157), except an FP8 cache on
      SM10x, which FLASHINFER_MLA_SPARSE serves in multiples of 32 (flashinfer_mla_sparse.py:93-94).
    """
    if layout.attention != "mla":
        return DEFAULT_BLOCK_SIZE
    fp8 = (kv_cache_dtype or "auto").lower().startswith("fp8")
    if layout.sparse:
        return 32 if family == 10 and fp8 and kv_cache_dtype.lower() != "fp8_ds_mla" else 64
    return 32 if family == 10 else DEFAULT_BLOCK_SIZE


def kv_dtype_bytes(kv_cache_dtype: str | None) -> int:
    """Bytes per cached element for a `--kv-cache-dtype` value (None/auto: the 16-bit model dtype)."""
    if kv_cache_dtype is None:
        return 2
    width = KV_DTYPE_BYTES.get(kv_cache_dtype.lower())
    if width is None:
        if kv_cache_dtype.lower().startswith("fp8"):
            return 1
        raise ValueError(f"unknown --kv-cache-dtype {kv_cache_dtype!r}")
    return width


# -- bytes per token and layer ----------------------------------------------------------------------


def _rank_heads(heads: int, tp: int) -> int:
    """KV heads one TP rank keeps: a share while TP <= heads, one replicated head beyond
    (gemma4.py:388-393 `self.num_kv_heads = max(1, self.total_num_kv_heads // tp_size)`)."""
    tp = max(1, tp)
    return math.ceil(heads / tp) if tp <= heads else 1


def layer_bytes_per_token_per_gpu(
    layout: KvLayout, dtype_bytes: int, tp: int = 1, dcp: int = 1, kind: str = FULL
) -> float:
    """Bytes one GPU caches per token in one layer of `kind` (FULL, SLIDING or CHUNKED).

    GQA: `2 x heads x head_dim x dtype` (kv_cache_interface.py:586-594, `(head_size + head_size_v) *
    dtype_size` per head). MLA: `(kv_lora_rank + qk_rope_head_dim) x dtype`, or the 656-byte
    `fp8_ds_mla` row for sparse MLA in FP8, plus the indexer's key cache; replicated on every TP rank
    (`max_tp_shards=1`, mla_attention.py:1376-1378). Decode context parallelism shards either.
    """
    if layout.attention == "mla":
        if layout.sparse and dtype_bytes == 1 and layout.ds_mla_fp8:
            main = FP8_DS_MLA_ROW_BYTES
        else:
            main = layout.elements_per_layer * dtype_bytes
        return (main + layout.index_bytes_per_layer) / max(1, dcp)
    if kind in (SLIDING, CHUNKED):
        heads, dim = (
            layout.window_kv_heads or layout.kv_heads,
            layout.window_head_dim or layout.head_dim,
        )
    else:
        heads, dim = layout.kv_heads, layout.head_dim
    assert heads is not None and dim is not None  # kv_layout gives every GQA layout both
    return 2 * _rank_heads(heads, tp) * dim * dtype_bytes / max(1, dcp)


def kv_bytes_per_token(layout: KvLayout, dtype_bytes: int) -> int:
    """Whole-model bytes per token of the full-attention layers (the part that grows with context)."""
    return int(layout.full_layers * layer_bytes_per_token_per_gpu(layout, dtype_bytes))


def kv_bytes_per_sequence_window(layout: KvLayout, dtype_bytes: int) -> int:
    """Whole-model bytes one sequence keeps in its sliding/chunked layers at most (0 if none)."""
    return int(
        sum(
            window * count * layer_bytes_per_token_per_gpu(layout, dtype_bytes, kind=kind)
            for window, count, kind in layout.windows
        )
    )


# -- per GPU ----------------------------------------------------------------------------------------


def kv_bytes_per_token_per_gpu(
    layout: KvLayout, dtype_bytes: int, tp: int = 1, pp: int = 1, dcp: int = 1
) -> float:
    """Bytes one GPU stores per token in its full-attention layers (the busiest pipeline stage)."""
    layers = math.ceil(layout.full_layers / max(1, pp))
    return layers * layer_bytes_per_token_per_gpu(layout, dtype_bytes, tp, dcp)


def window_bytes_per_token_per_gpu(
    layout: KvLayout, dtype_bytes: int, tp: int = 1, pp: int = 1, dcp: int = 1
) -> list[tuple[int, int, str, float]]:
    """Per window: (window tokens, layers on the busiest stage, layer type, bytes per token of those
    layers on one GPU)."""
    out = []
    for window, count, kind in layout.windows:
        layers = math.ceil(count / max(1, pp))
        out.append(
            (
                window,
                layers,
                kind,
                layers * layer_bytes_per_token_per_gpu(layout, dtype_bytes, tp, dcp, kind),
            )
        )
    return out


# -- recurrent state (linear attention, Mamba) ------------------------------------------------------


def _divide(n: int, tp: int) -> int:
    return n // tp if n % tp == 0 else math.ceil(n / tp)


def state_bytes_per_layer_per_gpu(
    state: StateLayers, tp: int = 1, speculative_tokens: int = 0
) -> int:
    """One layer's recurrent state on one GPU: the conv state (model dtype, `conv_len + spec`
    positions) plus the temporal state (`ssm_bytes`); both split by TP (mamba_utils.py:186-293,
    MambaSpec page size = sum of prod(shape) x dtype, kv_cache_interface.py:1110-1114)."""
    tp = max(1, tp)
    conv_dim = state.conv_dim
    if state.kind == "mamba2":
        # extra groups replicate B/C when TP does not divide n_groups (mamba_utils.py:197, 261-269)
        groups = state.n_groups + (0 if state.n_groups % tp == 0 else tp - state.n_groups)
        conv_dim = state.conv_dim + 2 * groups * state.state_size
    conv = _divide(conv_dim, tp) * (state.conv_len + speculative_tokens) * MODEL_DTYPE_BYTES
    temporal = _divide(state.heads, tp) * math.prod(state.head_dims) * state.ssm_bytes
    return conv + temporal


def state_copies(
    prefix_caching: bool = True, speculative_tokens: int = 0, checkpoint_blocks: int = 1
) -> int:
    """Blocks a recurrent-state layer holds per sequence (MambaSpec.max_memory_usage_bytes,
    kv_cache_interface.py:1135-1141): `2 + spec + checkpoint` in prefix caching's "align" mode (vLLM's
    default for hybrids, models/config.py:763-765), `1 + spec` without prefix caching.
    `checkpoint_blocks` is 1 when the layers export prefill checkpoints: Mamba-2 always
    (mamba_mixer2.py:1116-1118), Gated DeltaNet on the FlashInfer prefill path
    (gdn/qwen_gdn_linear_attn.py:692-696, 741-748)."""
    if not prefix_caching:
        return STATE_COPIES_NO_PREFIX_CACHING + speculative_tokens
    return 2 + speculative_tokens + checkpoint_blocks


def gdn_checkpoint_alignment(layout: KvLayout, cfg: dict | None, generation: str | None) -> int:
    """Token alignment the platform gives the attention block of a Gated DeltaNet hybrid in "align"
    mode: FlashInfer's GDN prefill (chosen on Hopper, and on Blackwell when linear_key_head_dim is
    128 with a CUDA 13 runtime, as the vLLM images ship: gdn/qwen_gdn_linear_attn.py:244-262)
    exports checkpoints every 64 tokens (v1/attention/backends/gdn_attn.py:34
    FLASHINFER_GDN_CHECKPOINT_ALIGNMENT = 64), and the attention block is made a multiple of it
    (platforms/interface.py:1088-1093 `lcm(kernel_block_alignment_size, alignment)`). 1 elsewhere
    (Triton/FLA: no checkpoint exported)."""
    if not any(s.kind == "gated_delta_net" for s in layout.states):
        return 1
    if generation == "hopper":
        return FLASHINFER_GDN_CHECKPOINT_ALIGNMENT
    if (
        generation == "blackwell"
        and isinstance(cfg, dict)
        and cfg.get("linear_key_head_dim") == 128
    ):
        return FLASHINFER_GDN_CHECKPOINT_ALIGNMENT
    return 1


def state_checkpoint_blocks(layout: KvLayout, state_alignment: int) -> int:
    """1 when the state layers export a prefill checkpoint block in "align" mode: Mamba-2 always
    (mamba_mixer2.py:1116-1118), Gated DeltaNet on the FlashInfer path only, where its alignment
    is set (gdn/qwen_gdn_linear_attn.py:741-748, 753-760); else 0."""
    if any(s.kind == "mamba2" for s in layout.states) or state_alignment > 1:
        return 1
    return 0


# -- vLLM's KV cache groups and blocks --------------------------------------------------------------

STATE = "state"


@dataclass(frozen=True)
class CacheTerm:
    """The layers of one kind on one GPU and the KV cache groups they fill."""

    kind: str  # FULL, SLIDING, CHUNKED or STATE
    window: int  # sliding window or attention chunk (0 for FULL and STATE)
    layers: int  # layers of this kind on the GPU
    groups: int  # KV cache groups of `group_size` layers they fill (the last one padded)
    block_size: int  # tokens per block (0 for STATE)


@dataclass(frozen=True)
class CacheGroups:
    """How vLLM 0.33 lays out one GPU's KV cache (v1/core/kv_cache_planning.py).

    Every layer's page (one block of one layer) is unified to the largest: smaller attention pages
    get a larger block size, state pages are padded (kv_cache_planning.py:346-395,
    platforms/interface.py:1095-1130). Layers are grouped `group_size` at a time, `group_size` being
    the smallest kind's layer count, or the largest one's when it is under 1.5x the smallest
    (kv_cache_planning.py:521-542). All groups draw from one pool of blocks of `group_size` pages
    (`num_blocks = available memory // bytes per block`, kv_cache_planning.py:587-593, 684-686), and
    a request takes, per group, the blocks of its kind's `max_memory_usage_bytes`
    (kv_cache_utils.py:1061-1095): full attention `cdiv(L, block)`, a sliding window
    `cdiv(min(window - 1 + in_flight, L), block) + 1`, a chunk `cdiv(min(chunk + in_flight, L), block)`
    (kv_cache_interface.py:861-957), a recurrent state `state_blocks`.
    """

    page_bytes: int
    group_size: int
    terms: tuple  # (CacheTerm, ...)
    in_flight: int = 0  # tokens scheduled but not settled (VllmConfig.max_in_flight_tokens)
    state_blocks: int = 0
    dcp: int = 1

    @property
    def block_bytes(self) -> int:
        """Bytes of one block of the pool: `group_size` layer pages."""
        return self.page_bytes * self.group_size

    def term_blocks(self, term: CacheTerm, tokens: int) -> int:
        """Blocks one group of `term` holds for a request of `tokens` tokens."""
        if tokens <= 0:
            return 0
        if term.kind == STATE:
            return self.state_blocks
        if term.kind == SLIDING:
            return -(-min(term.window - 1 + self.in_flight, tokens) // term.block_size) + 1
        if term.kind == CHUNKED:
            return -(-min(term.window + self.in_flight, tokens) // term.block_size)
        # FullAttentionSpec.max_memory_usage_bytes: cdiv(cdiv(L, dcp), block) (kv_cache_interface.py:643-648)
        return -(-tokens // (term.block_size * self.dcp))

    def blocks_per_request(self, tokens: int) -> int:
        return sum(t.groups * self.term_blocks(t, tokens) for t in self.terms)

    def bytes_per_request(self, tokens: int) -> int:
        return self.blocks_per_request(tokens) * self.block_bytes

    def num_blocks(self, kv_bytes: float) -> int:
        return max(0, int(kv_bytes // self.block_bytes)) if self.block_bytes else 0

    def tokens(self, kv_bytes: float, max_model_len: int) -> int:
        """What vLLM logs as "GPU KV cache size: N tokens": max_concurrency x max_model_len, where
        max_concurrency = num_blocks / blocks per request of max_model_len
        (kv_cache_utils.py:1113-1121, 1132-1150)."""
        per_request = self.blocks_per_request(max_model_len)
        if per_request <= 0:
            return 0
        return int(self.num_blocks(kv_bytes) / per_request * max_model_len)

    def term(self, kind: str, window: int = 0) -> CacheTerm | None:
        return next((t for t in self.terms if t.kind == kind and t.window == window), None)

    def term_bytes_per_block(self, term: CacheTerm) -> int:
        """Bytes one block of each of a term's groups takes, all its groups together."""
        return term.groups * self.block_bytes


def cache_groups(
    layout: KvLayout,
    dtype_bytes: int,
    tp: int = 1,
    pp: int = 1,
    dcp: int = 1,
    *,
    in_flight: int = 0,
    speculative_tokens: int = 0,
    prefix_caching: bool = True,
    state_alignment: int = 1,
    checkpoint_blocks: int | None = None,
    draft_layers: int = 0,
    block_size: int = DEFAULT_BLOCK_SIZE,
) -> CacheGroups | None:
    """vLLM's KV cache groups of the busiest GPU (None for a model without any cache).

    `state_alignment`: the token alignment of the attention block of a hybrid (see
    `gdn_checkpoint_alignment`; `checkpoint_blocks` defaults to `state_checkpoint_blocks`);
    `draft_layers`: full-attention layers a speculative draft adds
    (MTP / EAGLE heads share the pool and, equal in spec, the target's groups:
    kv_cache_interface.py:216-218 `is_draft` is excluded from equality)."""
    pp = max(1, pp)
    kinds: list[tuple[str, int, int, int]] = []  # (kind, window, layers, bytes per token per layer)
    full = math.ceil(layout.full_layers / pp) + draft_layers
    if full:
        kinds.append((FULL, 0, full, int(layer_bytes_per_token_per_gpu(layout, dtype_bytes, tp))))
    for window, count, kind in layout.windows:
        per = int(layer_bytes_per_token_per_gpu(layout, dtype_bytes, tp, kind=kind))
        kinds.append((kind, window, math.ceil(count / pp), per))
    state_layers = math.ceil(layout.state_layers / pp)
    state_page = (
        max(state_bytes_per_layer_per_gpu(s, tp, speculative_tokens) for s in layout.states)
        if layout.states
        else 0
    )
    if not kinds and not state_layers:
        return None
    block = block_size
    if state_layers and kinds:
        # platforms/interface.py:1064-1106: the attention block grows (in multiples of the kernel
        # alignment, itself a multiple of the checkpoint alignment in "align" mode) until one attention
        # page holds a state
        kernel = max(KERNEL_BLOCK, block_size, 128 if layout.attention == "mla" else 0)
        align = math.lcm(kernel, state_alignment)
        attn_one = kinds[0][3]
        block = max(block, align * -(-state_page // (align * attn_one)))
    pages = [block * per for _, _, _, per in kinds] + ([state_page] if state_layers else [])
    page = max(pages)
    counts = [n for _, _, n, _ in kinds] + ([state_layers] if state_layers else [])
    group = min(counts)
    if max(counts) < group * 1.5:
        group = max(counts)
    terms = []
    for kind, window, n, per in kinds:
        own = block * per
        # a smaller page takes a larger block when it divides the largest (kv_cache_planning.py:391-395)
        size = block * (page // own) if page % own == 0 else block
        terms.append(CacheTerm(kind, window, n, -(-n // group), size))
    if state_layers:
        terms.append(CacheTerm(STATE, 0, state_layers, -(-state_layers // group), 0))
    return CacheGroups(
        page,
        group,
        tuple(terms),
        in_flight,
        state_copies(
            prefix_caching,
            speculative_tokens,
            state_checkpoint_blocks(layout, state_alignment)
            if checkpoint_blocks is None
            else checkpoint_blocks,
        )
        if state_layers
        else 0,
        max(1, dcp),
    )


@dataclass(frozen=True)
class HybridPages:
    """vLLM's page plan for a model mixing attention and recurrent-state layers on one GPU (the
    state side of `cache_groups`)."""

    block_size: int  # attention tokens per block
    attention_page: int  # bytes of one attention layer's block
    state_page: int  # bytes of one layer's state, unpadded
    padded_state_page: int  # what vLLM allocates per state layer
    group_size: int  # layers per KV-cache group
    state_groups: int  # groups of state layers (each group_size layers, padding included)


def hybrid_pages(
    layout: KvLayout,
    dtype_bytes: int,
    tp: int = 1,
    pp: int = 1,
    speculative_tokens: int = 0,
    state_alignment: int = 1,
) -> HybridPages | None:
    """The page plan of a hybrid model (None when it has no recurrent-state layers)."""
    if not layout.states:
        return None
    groups = cache_groups(
        layout,
        dtype_bytes,
        tp,
        pp,
        speculative_tokens=speculative_tokens,
        state_alignment=state_alignment,
    )
    assert groups is not None  # the layout has state layers
    state = groups.term(STATE)
    assert state is not None
    attention = next((t for t in groups.terms if t.kind != STATE), None)
    return HybridPages(
        attention.block_size if attention else 0,
        groups.page_bytes if attention else 0,
        max(state_bytes_per_layer_per_gpu(s, tp, speculative_tokens) for s in layout.states),
        groups.page_bytes,
        groups.group_size,
        state.groups,
    )


def state_bytes_per_sequence_per_gpu(
    layout: KvLayout,
    dtype_bytes: int,
    tp: int = 1,
    pp: int = 1,
    copies: int | None = None,
    speculative_tokens: int = 0,
    padded: bool = True,
    state_alignment: int = 1,
) -> int:
    """Bytes of recurrent state one sequence holds on one GPU, whatever its length: `copies` blocks
    (default: vLLM's, prefix caching on) of every state group on the busiest stage, as
    `cache_groups` lays them out (`padded=False`: the raw state, one copy per layer). 0 for models
    without such layers."""
    if not layout.states:
        return 0
    if not padded:
        return sum(
            math.ceil(s.layers / max(1, pp))
            * state_bytes_per_layer_per_gpu(s, tp, speculative_tokens)
            for s in layout.states
        )
    groups = cache_groups(
        layout,
        dtype_bytes,
        tp,
        pp,
        speculative_tokens=speculative_tokens,
        state_alignment=state_alignment,
    )
    assert groups is not None
    state = groups.term(STATE)
    assert state is not None
    blocks = groups.state_blocks if copies is None else copies
    return blocks * state.groups * groups.block_bytes


def sequence_bytes_per_gpu(
    layout: KvLayout,
    dtype_bytes: int,
    tokens: int,
    tp: int = 1,
    pp: int = 1,
    dcp: int = 1,
    in_flight: int = 0,
    **groups_args,
) -> int:
    """Bytes one sequence of `tokens` tokens takes on one GPU: the blocks `cache_groups` gives it.

    Windowed layers hold the window plus the tokens in flight (`in_flight`: the scheduled but
    unsettled tokens vLLM reserves, `max_in_flight_tokens`), in whole blocks; recurrent-state layers
    their fixed per-sequence blocks."""
    groups = cache_groups(layout, dtype_bytes, tp, pp, dcp, in_flight=in_flight, **groups_args)
    return 0 if groups is None else groups.bytes_per_request(tokens)


def longest_in(
    groups: CacheGroups | None, budget_bytes: float, sequences: int = 1, cap: int = 1 << 30
) -> int:
    """The longest length L (<= cap) such that `sequences` requests of L tokens fit in `budget_bytes`
    on one GPU laid out as `groups`; 0 when not even one token fits."""
    if budget_bytes <= 0 or sequences <= 0:
        return 0
    if groups is None:
        return cap

    def fits(tokens: int) -> bool:
        return sequences * groups.bytes_per_request(tokens) <= budget_bytes

    if fits(cap):
        return cap
    lo, hi = 0, cap  # fits(lo) holds (0 tokens cost nothing), fits(hi) does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo


def longest_sequence(
    layout: KvLayout,
    dtype_bytes: int,
    budget_bytes: float,
    sequences: int = 1,
    cap: int = 1 << 30,
    tp: int = 1,
    pp: int = 1,
    dcp: int = 1,
    in_flight: int = 0,
    **groups_args,
) -> int:
    """`longest_in` of the layout's `cache_groups`."""
    groups = cache_groups(layout, dtype_bytes, tp, pp, dcp, in_flight=in_flight, **groups_args)
    return longest_in(groups, budget_bytes, sequences, cap)


# -- tensor-parallel sizes --------------------------------------------------------------------------


def tp_problem(cfg: dict | None, tp: int) -> str | None:
    """Why vLLM would refuse tensor-parallel size `tp` for this model (None when it is fine).

    TP must divide the attention heads; below the KV heads it must divide them, above them it
    must be a multiple of them (each KV head is then replicated on TP / kv_heads ranks).
    """
    if not isinstance(cfg, dict) or not isinstance(tp, int) or tp <= 1:
        return None
    heads = _num(cfg, "num_attention_heads")
    if heads is not None and heads % tp:
        return f"TP {tp} does not divide the {heads} attention heads"
    if is_mla(cfg):
        return None
    kv_counts = [(_num(cfg, "num_key_value_heads"), "KV heads")]
    if cfg.get("attention_k_eq_v") is True:  # Gemma 4's full-attention layers (gemma4.py:388-393)
        kv_counts.append((_num(cfg, "num_global_key_value_heads"), "global KV heads"))
    for kv_heads, label in kv_counts:
        if kv_heads is None:
            continue
        if tp <= kv_heads and kv_heads % tp:
            return f"TP {tp} does not divide the {kv_heads} {label}"
        if tp > kv_heads and tp % kv_heads:
            return f"TP {tp} is not a multiple of the {kv_heads} {label}"
    # recurrent-state heads are split evenly (mamba_utils.py:282-292 `divide(num_v_heads, tp_world_size)`)
    for key in ("linear_num_value_heads", "linear_num_key_heads", "mamba_num_heads"):
        state_heads = _num(cfg, key)
        if state_heads is not None and state_heads % tp:
            return f"TP {tp} does not divide the {state_heads} {key}"
    return None


def largest_valid_tp(cfg: dict | None, tp: int) -> int:
    """`tp` itself when the model accepts it, else the largest smaller size it accepts."""
    size = tp
    while size > 1 and tp_problem(cfg, size):
        size -= 1
    return size
