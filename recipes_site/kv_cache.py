"""KV-cache arithmetic from a model's Hugging Face `config.json` facts (`model.hf_config`).

Pure functions, no I/O. Key names are the config's own, so a contributor can paste them.

Per token and per layer a cache stores:

* GQA / MHA attention: K and V, `2 x num_key_value_heads x head_dim` elements;
* MLA (DeepSeek-V3, Kimi-K2): one compressed latent plus the decoupled RoPE key,
  `kv_lora_rank + qk_rope_head_dim` elements (no separate V);

times the KV dtype width (`--kv-cache-dtype auto` = the model's 16-bit dtype, 2 bytes;
`fp8*` = 1 byte). Full-attention layers grow with the sequence; sliding-window layers
(`sliding_attention`, window `sliding_window`) and chunked layers (`chunked_attention`, chunk
`attention_chunk_size`) keep at most their window per sequence. Linear-attention and state-space
layers (`linear_attention`: Qwen3.5/3.6 Gated DeltaNet; `mamba`: Nemotron-H Mamba-2) and MLP-only
blocks (`mlp`, `moe`: Nemotron-H) keep a fixed-size state, not a per-token cache: they count as
zero KV. Nemotron-H states its layers as `hybrid_override_pattern` (`M` Mamba-2, `*` attention,
`-` MLP, `E` MoE), which is read as layer types.

Per GPU: tensor parallelism splits GQA KV heads across ranks (a rank keeps one head, replicated,
once TP exceeds the KV heads); MLA's latent is replicated on every TP rank (only decode context
parallelism shards it); pipeline parallelism splits the layers; data parallelism keeps a full
copy per rank (each rank caches its own requests).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

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
    "auto": 2, "bfloat16": 2, "float16": 2, "half": 2,
    "fp8": 1, "fp8_e4m3": 1, "fp8_e5m2": 1, "fp8_inc": 1,
}
EXPERT_KEYS = ("num_experts", "num_local_experts", "n_routed_experts")


class KvFactsError(ValueError):
    """The hf_config lacks (or contradicts) the facts the KV arithmetic needs."""


@dataclass(frozen=True)
class KvLayout:
    """How one model's KV cache is shaped, independent of dtype and parallelism."""
    attention: str              # "gqa" (also MHA) or "mla"
    layers: int
    full_layers: int
    windows: tuple              # ((window tokens, layer count, layer type), ...) for capped layers
    elements_per_layer: int     # cached elements per token and layer (whole model, before TP)
    kv_heads: int | None = None     # GQA only
    head_dim: int | None = None     # GQA only
    notes: tuple = ()           # assumptions made while reading the config

    @property
    def window_layers(self) -> int:
        return sum(count for _, count, _ in self.windows)


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
        return ["model.hf_config (num_hidden_layers, num_attention_heads, num_key_value_heads, head_dim "
                "or hidden_size; kv_lora_rank and qk_rope_head_dim for MLA)"]
    out = []
    if _num(cfg, "num_hidden_layers") is None:
        out.append("num_hidden_layers")
    if is_mla(cfg):
        if _num(cfg, "qk_rope_head_dim") is None:
            out.append("qk_rope_head_dim")
        return out
    if _num(cfg, "num_attention_heads") is None and _num(cfg, "num_key_value_heads") is None:
        out.append("num_key_value_heads")
    if _num(cfg, "head_dim") is None and (_num(cfg, "hidden_size") is None or _num(cfg, "num_attention_heads") is None):
        out.append("head_dim (or hidden_size and num_attention_heads)")
    types = layer_kinds(cfg)
    layers = _num(cfg, "num_hidden_layers")
    if types is not None and layers is not None and len(types) != layers:
        key = "layer_types" if isinstance(cfg.get("layer_types"), list) else "hybrid_override_pattern"
        out.append(f"{key} with one entry per layer ({len(types)} given for {layers} layers)")
    return out


def _head_dim(cfg: dict) -> int | None:
    if _num(cfg, "head_dim") is not None:
        return cfg["head_dim"]
    hidden, heads = _num(cfg, "hidden_size"), _num(cfg, "num_attention_heads")
    return hidden // heads if hidden and heads else None


def kv_layout(cfg: dict) -> KvLayout:
    """The cache shape described by `cfg`; raises KvFactsError when facts are missing."""
    missing = missing_facts(cfg)
    if missing:
        raise KvFactsError("hf_config lacks " + ", ".join(missing))
    layers = cfg["num_hidden_layers"]
    notes: list[str] = []
    if is_mla(cfg):
        return KvLayout("mla", layers, layers, (), cfg["kv_lora_rank"] + cfg["qk_rope_head_dim"])
    kv_heads = _num(cfg, "num_key_value_heads") or cfg["num_attention_heads"]
    head_dim = _head_dim(cfg)
    counts: dict[tuple, int] = {}
    full = layers
    types = layer_kinds(cfg)
    if types is not None:
        full = 0
        for kind in types:
            if kind in NO_KV_LAYER_TYPES:
                continue
            window = {SLIDING: _num(cfg, "sliding_window"), CHUNKED: _num(cfg, "attention_chunk_size")}.get(kind)
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
    return KvLayout("gqa", layers, full, windows, 2 * kv_heads * head_dim, kv_heads, head_dim, tuple(notes))


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


def kv_bytes_per_token(layout: KvLayout, dtype_bytes: int) -> int:
    """Whole-model bytes per token of the full-attention layers (the part that grows with context)."""
    return layout.full_layers * layout.elements_per_layer * dtype_bytes


def kv_bytes_per_sequence_window(layout: KvLayout, dtype_bytes: int) -> int:
    """Whole-model bytes one sequence keeps in its sliding/chunked layers at most (0 if none)."""
    return sum(window * count * layout.elements_per_layer * dtype_bytes for window, count, _ in layout.windows)


# -- per GPU ----------------------------------------------------------------------------------------

def elements_per_layer_per_gpu(layout: KvLayout, tp: int = 1, dcp: int = 1) -> float:
    """Cached elements per token and layer on one GPU of a TP group.

    GQA: `ceil(kv_heads / tp)` heads per rank while TP <= kv_heads, one replicated head beyond.
    MLA: the latent is replicated on every TP rank; decode context parallelism (`dcp`) shards it.
    """
    tp = max(1, tp)
    if layout.attention == "mla":
        return layout.elements_per_layer / max(1, dcp)
    heads = math.ceil(layout.kv_heads / tp) if tp <= layout.kv_heads else 1
    return 2 * heads * layout.head_dim / max(1, dcp)


def kv_bytes_per_token_per_gpu(layout: KvLayout, dtype_bytes: int, tp: int = 1, pp: int = 1, dcp: int = 1) -> float:
    """Bytes one GPU stores per token in its full-attention layers (the busiest pipeline stage)."""
    layers = math.ceil(layout.full_layers / max(1, pp))
    return layers * elements_per_layer_per_gpu(layout, tp, dcp) * dtype_bytes


def sequence_bytes_per_gpu(layout: KvLayout, dtype_bytes: int, tokens: int, tp: int = 1, pp: int = 1,
                           dcp: int = 1, prefill_chunk: int = 0) -> float:
    """Bytes one sequence of `tokens` tokens needs on one GPU.

    Windowed layers hold `min(tokens, window + prefill_chunk)` tokens: while prefilling in chunks
    the engine keeps the window plus the chunk being computed (vLLM reserves that much when it
    checks that one request of `--max-model-len` fits); `prefill_chunk=0` gives the window alone.
    """
    per_layer = elements_per_layer_per_gpu(layout, tp, dcp) * dtype_bytes
    total = kv_bytes_per_token_per_gpu(layout, dtype_bytes, tp, pp, dcp) * tokens
    for window, count, _ in layout.windows:
        total += math.ceil(count / max(1, pp)) * per_layer * min(tokens, window + prefill_chunk)
    return total


def longest_sequence(layout: KvLayout, dtype_bytes: int, budget_bytes: float, sequences: int = 1,
                     cap: int = 1 << 30, **per_gpu) -> int:
    """The longest length L (<= cap) such that `sequences` sequences of L tokens fit in `budget_bytes`
    on one GPU; 0 when not even one token fits."""
    if budget_bytes <= 0 or sequences <= 0:
        return 0

    def fits(tokens: int) -> bool:
        return sequences * sequence_bytes_per_gpu(layout, dtype_bytes, tokens, **per_gpu) <= budget_bytes

    if fits(cap):
        return cap
    lo, hi = 0, cap          # fits(lo) holds (0 tokens cost nothing), fits(hi) does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo


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
    kv_heads = _num(cfg, "num_key_value_heads")
    if kv_heads is not None and not is_mla(cfg):
        if tp <= kv_heads and kv_heads % tp:
            return f"TP {tp} does not divide the {kv_heads} KV heads"
        if tp > kv_heads and tp % kv_heads:
            return f"TP {tp} is not a multiple of the {kv_heads} KV heads"
    return None


def largest_valid_tp(cfg: dict | None, tp: int) -> int:
    """`tp` itself when the model accepts it, else the largest smaller size it accepts."""
    size = tp
    while size > 1 and tp_problem(cfg, size):
        size -= 1
    return size
