"""Parameter counts of a language model from its Hugging Face `config.json` shapes:

* embeddings `vocab x hidden`, plus an untied output head of the same size;
* attention per layer: GQA/MHA `hidden x (heads + 2 x kv_heads) x head_dim + heads x head_dim x hidden`;
  MLA (DeepSeek-V3) `hidden x q_lora + q_lora x heads x (qk_nope + qk_rope)` (or
  `hidden x heads x (qk_nope + qk_rope)` without q_lora), `hidden x (kv_lora + qk_rope)`,
  `kv_lora x heads x (qk_nope + v_head)` and `heads x v_head x hidden`;
* gated MLP `3 x hidden x intermediate`; an MoE layer holds `experts` such MLPs of
  `moe_intermediate_size`, its shared experts and a `hidden x experts` router;
* RMSNorm weights (`hidden` per norm);
* Gated DeltaNet layers (`linear_attention`, `linear_*` shapes) and Mamba-2 blocks (Nemotron-H
  `hybrid_override_pattern`, `mamba_*` shapes) in place of attention; gated attention doubles q_proj;
  Gemma per-layer embeddings; BERT/XLM-R encoders by `model_type`; and `extra_parameters` (encoders
  and adapters as published) added as stated;
* the Qwen3-VL / Qwen3.5 vision transformer from a config.json's `vision_config` (see
  `qwen_vision_parameters`); `new` writes it into the recipe as `extra_parameters`.

Active parameters are the total minus the routed experts a token does not use
(`experts - num_experts_per_tok` per MoE layer). Vendors differ on whether the input embedding
counts as active (OpenAI's 5.1B for gpt-oss-120b leaves it out, Qwen's 3.3B for Qwen3-30B-A3B
keeps it); this count keeps it. Multi-token-prediction layers are not counted, nor are vision and
audio encoders of other families (state them as `extra_parameters`).
"""

from __future__ import annotations

from dataclasses import dataclass

from recipes_site.kv_cache import LINEAR, MAMBA, MLP_ONLY, MOE_ONLY, layer_kinds, num_experts

# model_type values with a structure the key set alone does not state
ENCODER_MODEL_TYPES = frozenset(
    {"bert", "roberta", "xlm-roberta", "xlm_roberta"}
)  # encoder-only, no LM head
TWO_MATRIX_MLP_MODEL_TYPES = frozenset({"nemotron_h"})  # squared-ReLU up/down MLP, no gate
SHARED_EXPERT_MODEL_TYPES = frozenset(
    {"llama4", "llama4_text"}
)  # one shared expert of intermediate_size

# vision_config.model_type of the Qwen3-VL vision transformer (also used by Qwen3.5 and Qwen3.6)
QWEN_VIT_MODEL_TYPES = frozenset(
    {"qwen3_vl", "qwen3_vl_moe", "qwen3_5", "qwen3_5_moe", "qwen3_5_vision", "qwen3_5_moe_vision"}
)


def language_config(config: dict) -> dict:
    """The language model's config: a multimodal model's `text_config` over its top-level keys."""
    text = config.get("text_config")
    if not isinstance(text, dict):
        return config
    merged = {
        k: v for k, v in config.items() if k not in ("text_config", "vision_config", "audio_config")
    }
    merged.update(text)
    return merged


def config_int(cfg: dict, key: str, default: int = 0) -> int:
    """`cfg[key]` when it is an int (not a bool), else `default`."""
    value = cfg.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


@dataclass(frozen=True)
class ParameterCount:
    total: int
    active: int
    embedding: int  # input embedding + untied output head
    attention: int
    dense_mlp: int
    routed_experts: int  # all routed experts of all MoE layers
    other: int  # shared experts, routers, norms
    notes: tuple = ()

    @property
    def expert_fraction(self) -> float:
        return self.routed_experts / self.total if self.total else 0.0


def moe_layer_indices(cfg: dict) -> list[int]:
    """Indices of the layers whose MLP is a mixture of experts."""
    layers = config_int(cfg, "num_hidden_layers")
    experts = num_experts(cfg) or 0
    if experts <= 1:
        return []
    if _pattern_layers(cfg):  # Nemotron-H: the `E` blocks
        return [i for i, kind in enumerate(layer_kinds(cfg) or []) if kind == MOE_ONLY]
    first_dense = config_int(cfg, "first_k_dense_replace")  # DeepSeek
    freq = config_int(cfg, "moe_layer_freq", 1) or 1  # DeepSeek
    step = config_int(cfg, "decoder_sparse_step", 1) or 1  # Qwen MoE
    interleave = config_int(cfg, "interleave_moe_layer_step", 1) or 1  # Llama 4
    dense_only = set(cfg.get("mlp_only_layers") or [])  # Qwen MoE
    return [
        i
        for i in range(layers)
        if i >= first_dense
        and i % freq == 0
        and (i + 1) % step == 0
        and (i + 1) % interleave == 0
        and i not in dense_only
    ]


def _pattern_layers(cfg: dict) -> bool:
    """True when the layers are Nemotron-H blocks (`hybrid_override_pattern`): each block is one
    mixer (Mamba-2, attention) or one MLP, not attention + MLP."""
    return not isinstance(cfg.get("layer_types"), list) and isinstance(
        cfg.get("hybrid_override_pattern"), str
    )


def _gqa_attention(cfg: dict, hidden: int, heads: int) -> int:
    kv_heads = config_int(cfg, "num_key_value_heads", heads) or heads
    head_dim = config_int(cfg, "head_dim") or hidden // heads
    gate = 2 if cfg.get("attn_output_gate") is True else 1  # Qwen3.5: q_proj also emits a gate
    return hidden * (gate * heads + 2 * kv_heads) * head_dim + heads * head_dim * hidden


def _linear_attention(cfg: dict, hidden: int) -> int:
    """One Gated DeltaNet layer (Qwen3-Next, Qwen3.5/3.6): q/k/v/z projections, the beta/alpha
    projections, the short convolution, per-head decay and step, the gated norm and out_proj."""
    k_heads, v_heads = cfg["linear_num_key_heads"], cfg["linear_num_value_heads"]
    k_dim, v_dim = cfg["linear_key_head_dim"], cfg["linear_value_head_dim"]
    kernel = config_int(cfg, "linear_conv_kernel_dim", 4)
    key, value = k_heads * k_dim, v_heads * v_dim
    return (
        hidden * (2 * key + 2 * value)
        + hidden * 2 * v_heads
        + (2 * key + value) * kernel
        + 2 * v_heads
        + v_dim
        + value * hidden
    )


def _mamba2(cfg: dict, hidden: int) -> int:
    """One Mamba-2 mixer (Nemotron-H): in_proj to (x, z, B, C, dt), the biased depthwise
    convolution over (x, B, C), A/D/dt_bias per head, the gated norm and out_proj."""
    heads, head_dim = cfg["mamba_num_heads"], cfg["mamba_head_dim"]
    inner = heads * head_dim
    conv_dim = inner + 2 * config_int(cfg, "n_groups", 1) * cfg["ssm_state_size"]
    kernel = config_int(cfg, "conv_kernel", 4)
    return (
        hidden * (inner + conv_dim + heads)
        + conv_dim * (kernel + 1)
        + 3 * heads
        + inner
        + inner * hidden
    )


def _encoder_count(cfg: dict) -> ParameterCount:
    """BERT / XLM-RoBERTa encoders: word, position and token-type embeddings, biased attention
    projections, a two-matrix MLP with biases, two LayerNorms per layer and the pooler; no output head."""
    hidden, vocab, layers = cfg["hidden_size"], cfg["vocab_size"], cfg["num_hidden_layers"]
    inter = cfg["intermediate_size"]
    positions = config_int(cfg, "max_position_embeddings")
    embedding = (vocab + positions + config_int(cfg, "type_vocab_size", 1)) * hidden + 2 * hidden
    attention = layers * 4 * (hidden * hidden + hidden)
    mlp = layers * (2 * hidden * inter + inter + hidden)
    other = layers * 4 * hidden + hidden * hidden + hidden + config_int(cfg, "extra_parameters")
    notes = (
        () if positions else ("max_position_embeddings missing: position embeddings not counted",)
    )
    total = embedding + attention + mlp + other
    return ParameterCount(
        total=total,
        active=total,
        embedding=embedding,
        attention=attention,
        dense_mlp=mlp,
        routed_experts=0,
        other=other,
        notes=notes,
    )


def qwen_vision_parameters(vision: object) -> int | None:
    """Parameters of a Qwen3-VL-family vision transformer from its `vision_config`, or None when
    the config is another family. Every linear layer and LayerNorm carries a bias:

    * patch embedding: a Conv3d of `in_channels x temporal_patch_size x patch_size^2 x hidden`
      (+ bias), and `num_position_embeddings x hidden` learned positions;
    * per block: two LayerNorms, fused qkv `hidden x 3 hidden`, output `hidden x hidden`,
      MLP `hidden x intermediate` and back (GELU, no gate);
    * the merger folds `spatial_merge_size^2` patches (width `m = hidden x merge^2`): a LayerNorm
      over `hidden`, then `m x m` and `m x out_hidden_size`; each `deepstack_visual_indexes` entry
      adds one more merger whose LayerNorm is over `m`.

    Checked against the tensors of the published checkpoints: 415.3M for Qwen3-VL-4B's and
    576.4M for Qwen3-VL-8B's vision model."""
    if (
        not isinstance(vision, dict)
        or str(vision.get("model_type") or "") not in QWEN_VIT_MODEL_TYPES
    ):
        return None
    depth, hidden, inner, out = (
        config_int(vision, k)
        for k in ("depth", "hidden_size", "intermediate_size", "out_hidden_size")
    )
    if min(depth, hidden, inner, out) <= 0:
        return None
    patch = (
        config_int(vision, "in_channels", 3)
        * config_int(vision, "temporal_patch_size", 2)
        * config_int(vision, "patch_size", 16) ** 2
    )
    embed = patch * hidden + hidden + config_int(vision, "num_position_embeddings", 2304) * hidden
    block = (
        4 * hidden
        + (hidden * 3 * hidden + 3 * hidden)
        + (hidden * hidden + hidden)
        + (hidden * inner + inner)
        + (inner * hidden + hidden)
    )
    merged = hidden * config_int(vision, "spatial_merge_size", 2) ** 2
    fold = merged * merged + merged + merged * out + out
    deepstack = len(vision.get("deepstack_visual_indexes") or [])
    return embed + depth * block + (2 * hidden + fold) + deepstack * (2 * merged + fold)


def vision_extra_parameters(config: dict) -> int | None:
    """The `extra_parameters` a config.json's vision encoder adds, when recipes-site can count it."""
    return qwen_vision_parameters(config.get("vision_config"))


def parameter_count(config: dict) -> ParameterCount:
    """Parameters of the language model described by a config.json (raises KeyError when a
    shape it needs is missing). An hf_config's `extra_parameters` (encoders and adapters the
    decoder shapes cannot describe, as the model's publisher states them) is added as is."""
    cfg = language_config(config)
    notes = []
    model_type = str(cfg.get("model_type") or "")
    if model_type in ENCODER_MODEL_TYPES:
        return _encoder_count(cfg)
    hidden, vocab, layers = cfg["hidden_size"], cfg["vocab_size"], cfg["num_hidden_layers"]
    heads = cfg["num_attention_heads"]
    tied = cfg.get("tie_word_embeddings")
    if tied is None:
        tied = model_type.startswith("gemma")  # gemma ties them by default
    embedding = vocab * hidden * (1 if tied else 2)

    if config_int(cfg, "kv_lora_rank"):
        q_lora, kv_lora = config_int(cfg, "q_lora_rank"), cfg["kv_lora_rank"]
        nope, rope = config_int(cfg, "qk_nope_head_dim", 128), cfg["qk_rope_head_dim"]
        v_head = config_int(cfg, "v_head_dim", nope)
        q = (
            (hidden * q_lora + q_lora + q_lora * heads * (nope + rope))
            if q_lora
            else hidden * heads * (nope + rope)
        )
        kv = hidden * (kv_lora + rope) + kv_lora + kv_lora * heads * (nope + v_head)
        attention_layer = q + kv + heads * v_head * hidden
    else:
        attention_layer = _gqa_attention(cfg, hidden, heads)

    kinds = layer_kinds(cfg) or []
    pattern = _pattern_layers(cfg)
    linear = sum(1 for k in kinds if k == LINEAR)
    mamba = sum(1 for k in kinds if k in (MAMBA, "mamba2"))
    no_attention = linear + mamba + sum(1 for k in kinds if k in (MLP_ONLY, MOE_ONLY))
    attention = (layers - no_attention) * attention_layer
    if linear:
        attention += linear * _linear_attention(cfg, hidden)
    if mamba:
        attention += mamba * _mamba2(cfg, hidden)

    moe_layers = moe_layer_indices(cfg)
    experts = num_experts(cfg) or 0
    mlp_layers = sum(1 for k in kinds if k in (MLP_ONLY, MOE_ONLY)) if pattern else layers
    dense_layers = mlp_layers - len(moe_layers)
    intermediate = config_int(cfg, "intermediate_size")
    dense_width = (config_int(cfg, "intermediate_size_mlp") if moe_layers else 0) or intermediate
    mlp_matrices = 2 if model_type in TWO_MATRIX_MLP_MODEL_TYPES else 3
    dense_mlp = dense_layers * mlp_matrices * hidden * dense_width
    routed = shared = router = 0
    active_experts = 0
    if moe_layers:
        expert_width = config_int(cfg, "moe_intermediate_size") or intermediate
        expert = mlp_matrices * hidden * expert_width
        shared_width = (
            config_int(cfg, "shared_expert_intermediate_size")
            or config_int(cfg, "n_shared_experts") * expert_width
        )
        if not shared_width and model_type in SHARED_EXPERT_MODEL_TYPES:
            shared_width = intermediate  # Llama 4: one shared expert
        top_k = config_int(cfg, "num_experts_per_tok") or config_int(cfg, "experts_per_token")
        if not top_k:
            notes.append("num_experts_per_tok missing: active parameters assume every expert")
            top_k = experts
        routed = len(moe_layers) * experts * expert
        shared = len(moe_layers) * mlp_matrices * hidden * shared_width
        router = len(moe_layers) * hidden * experts
        active_experts = len(moe_layers) * top_k * expert
    norms = layers * (1 if pattern else 2) * hidden + hidden

    per_layer_width = config_int(cfg, "hidden_size_per_layer_input")  # Gemma 3n / Gemma 4 E models
    per_layer = 0
    if per_layer_width:
        table = (config_int(cfg, "vocab_size_per_layer_input") or vocab) * layers * per_layer_width
        embedding += table
        per_layer = (
            hidden * layers * per_layer_width
            + per_layer_width
            + layers * (2 * hidden * per_layer_width + hidden)
        )
    extra = config_int(cfg, "extra_parameters")
    if not extra and isinstance(config.get("vision_config"), dict):
        extra = vision_extra_parameters(config) or 0
        notes.append(
            "vision encoder counted from vision_config" if extra else "vision encoder not counted"
        )
    total = embedding + attention + dense_mlp + routed + shared + router + norms + per_layer + extra
    if config_int(cfg, "num_nextn_predict_layers"):
        notes.append("multi-token-prediction layers not counted")
    return ParameterCount(
        total=total,
        active=total - routed + active_experts,
        embedding=embedding,
        attention=attention,
        dense_mlp=dense_mlp,
        routed_experts=routed,
        other=shared + router + norms + per_layer + extra,
        notes=tuple(notes),
    )
