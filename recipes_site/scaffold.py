"""`recipes-site new ORG/REPO [--config config.json]`: a recipe skeleton, filled from the
model's Hugging Face `config.json` when one is given.

From the config it fills `model.hf_config` (the keys the KV-cache sizing reads), the context
length, dense vs MoE, and the parameter counts, computed from the shapes:

* embeddings `vocab x hidden`, plus an untied output head of the same size;
* attention per layer: GQA/MHA `hidden x (heads + 2 x kv_heads) x head_dim + heads x head_dim x hidden`;
  MLA (DeepSeek-V3) `hidden x q_lora + q_lora x heads x (qk_nope + qk_rope)` (or
  `hidden x heads x (qk_nope + qk_rope)` without q_lora), `hidden x (kv_lora + qk_rope)`,
  `kv_lora x heads x (qk_nope + v_head)` and `heads x v_head x hidden`;
* gated MLP `3 x hidden x intermediate`; an MoE layer holds `experts` such MLPs of
  `moe_intermediate_size`, its shared experts and a `hidden x experts` router;
* RMSNorm weights (`hidden` per norm).

Active parameters are the total minus the routed experts a token does not use
(`experts - num_experts_per_tok` per MoE layer). Vendors differ on whether the input embedding
counts as active (OpenAI's 5.1B for gpt-oss-120b leaves it out, Qwen's 3.3B for Qwen3-30B-A3B
keeps it); this count keeps it. Multi-token-prediction layers and vision encoders are not counted.
"""
from __future__ import annotations

import datetime as _dt
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from recipes_site import sizing
from recipes_site.kv_cache import CHUNKED, FULL, SLIDING, num_experts

# hf_config keys copied from config.json (the ones recipes-site reads), in this order
HF_CONFIG_KEYS = (
    "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim", "hidden_size",
    "max_position_embeddings", "vocab_size", "intermediate_size", "num_experts", "num_local_experts",
    "n_routed_experts", "moe_intermediate_size", "kv_lora_rank", "qk_rope_head_dim", "sliding_window",
    "attention_chunk_size", "layer_types",
)

# quantization_config.quant_method (and ModelOpt quant_algo) -> recipe precision
QUANT_PRECISION = {"fp8": "fp8", "fbgemm_fp8": "fp8", "mxfp4": "mxfp4", "awq": "awq", "gptq": "gptq",
                   "nvfp4": "nvfp4", "bitsandbytes": "int4", "mxfp8": "mxfp8"}
DTYPE_PRECISION = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32"}


# -- parameter counts ----------------------------------------------------------------------------------

def language_config(config: dict) -> dict:
    """The language model's config: a multimodal model's `text_config` over its top-level keys."""
    text = config.get("text_config")
    if not isinstance(text, dict):
        return config
    merged = {k: v for k, v in config.items() if k not in ("text_config", "vision_config", "audio_config")}
    merged.update(text)
    return merged


def _int(cfg: dict, key: str, default: int = 0) -> int:
    value = cfg.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


@dataclass(frozen=True)
class ParameterCount:
    total: int
    active: int
    embedding: int          # input embedding + untied output head
    attention: int
    dense_mlp: int
    routed_experts: int     # all routed experts of all MoE layers
    other: int              # shared experts, routers, norms
    notes: tuple = ()

    @property
    def expert_fraction(self) -> float:
        return self.routed_experts / self.total if self.total else 0.0


def moe_layer_indices(cfg: dict) -> list[int]:
    """Indices of the layers whose MLP is a mixture of experts."""
    layers = _int(cfg, "num_hidden_layers")
    experts = num_experts(cfg) or 0
    if experts <= 1:
        return []
    first_dense = _int(cfg, "first_k_dense_replace")                 # DeepSeek
    freq = _int(cfg, "moe_layer_freq", 1) or 1                       # DeepSeek
    step = _int(cfg, "decoder_sparse_step", 1) or 1                  # Qwen MoE
    interleave = _int(cfg, "interleave_moe_layer_step", 1) or 1      # Llama 4
    dense_only = set(cfg.get("mlp_only_layers") or [])               # Qwen MoE
    return [i for i in range(layers)
            if i >= first_dense and i % freq == 0 and (i + 1) % step == 0 and (i + 1) % interleave == 0
            and i not in dense_only]


def parameter_count(config: dict) -> ParameterCount:
    """Parameters of the language model described by a config.json (raises KeyError when a
    shape it needs is missing)."""
    cfg = language_config(config)
    notes = []
    hidden, vocab, layers = cfg["hidden_size"], cfg["vocab_size"], cfg["num_hidden_layers"]
    heads = cfg["num_attention_heads"]
    tied = cfg.get("tie_word_embeddings")
    if tied is None:
        tied = str(cfg.get("model_type", "")).startswith("gemma")    # gemma ties them by default
    embedding = vocab * hidden * (1 if tied else 2)

    if _int(cfg, "kv_lora_rank"):
        q_lora, kv_lora = _int(cfg, "q_lora_rank"), cfg["kv_lora_rank"]
        nope, rope = _int(cfg, "qk_nope_head_dim", 128), cfg["qk_rope_head_dim"]
        v_head = _int(cfg, "v_head_dim", nope)
        q = (hidden * q_lora + q_lora + q_lora * heads * (nope + rope)) if q_lora else hidden * heads * (nope + rope)
        kv = hidden * (kv_lora + rope) + kv_lora + kv_lora * heads * (nope + v_head)
        attention_layer = q + kv + heads * v_head * hidden
    else:
        kv_heads = _int(cfg, "num_key_value_heads", heads) or heads
        head_dim = _int(cfg, "head_dim") or hidden // heads
        attention_layer = hidden * (heads + 2 * kv_heads) * head_dim + heads * head_dim * hidden

    moe_layers = moe_layer_indices(cfg)
    experts = num_experts(cfg) or 0
    dense_layers = layers - len(moe_layers)
    intermediate = _int(cfg, "intermediate_size")
    dense_mlp = dense_layers * 3 * hidden * intermediate
    routed = shared = router = 0
    active_experts = 0
    if moe_layers:
        expert_width = _int(cfg, "moe_intermediate_size") or intermediate
        expert = 3 * hidden * expert_width
        shared_width = _int(cfg, "shared_expert_intermediate_size") or _int(cfg, "n_shared_experts") * expert_width
        top_k = _int(cfg, "num_experts_per_tok") or _int(cfg, "experts_per_token")
        if not top_k:
            notes.append("num_experts_per_tok missing: active parameters assume every expert")
            top_k = experts
        routed = len(moe_layers) * experts * expert
        shared = len(moe_layers) * 3 * hidden * shared_width
        router = len(moe_layers) * hidden * experts
        active_experts = len(moe_layers) * top_k * expert
    norms = layers * 2 * hidden + hidden
    attention = layers * attention_layer
    total = embedding + attention + dense_mlp + routed + shared + router + norms
    if isinstance(config.get("vision_config"), dict):
        notes.append("vision encoder not counted")
    if _int(cfg, "num_nextn_predict_layers"):
        notes.append("multi-token-prediction layers not counted")
    return ParameterCount(total=total, active=total - routed + active_experts, embedding=embedding,
                          attention=attention, dense_mlp=dense_mlp, routed_experts=routed,
                          other=shared + router + norms, notes=tuple(notes))


def format_count(n: float) -> str:
    """"70.6B", "8.19B", "671B", "1.03T": three significant digits."""
    billions = n / 1e9
    if billions >= 1000:
        value, unit = billions / 1000, "T"
    elif billions >= 1:
        value, unit = billions, "B"
    else:
        value, unit = billions * 1000, "M"
    digits = max(0, 2 - int(math.floor(math.log10(value)))) if value > 0 else 0
    text = f"{value:.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text + unit


# -- hf_config and precision from a config.json --------------------------------------------------------

def derived_layer_types(cfg: dict) -> list[str] | None:
    """`layer_types` when the config states it, or derives it from an older spelling
    (`sliding_window_pattern`: every N-th layer global, as Gemma 2/3 configs write it)."""
    types = cfg.get("layer_types")
    if isinstance(types, list):
        return types
    layers = _int(cfg, "num_hidden_layers")
    pattern = _int(cfg, "sliding_window_pattern")
    if layers and pattern and _int(cfg, "sliding_window"):
        return [FULL if (i + 1) % pattern == 0 else SLIDING for i in range(layers)]
    return None


def hf_config_from(config: dict) -> dict:
    """The `model.hf_config` block for a recipe: the keys recipes-site reads, from config.json."""
    cfg = language_config(config)
    out = {}
    for key in HF_CONFIG_KEYS:
        value = derived_layer_types(cfg) if key == "layer_types" else cfg.get(key)
        if value is not None:
            out[key] = value
    if "layer_types" in out and not any(t in (SLIDING, CHUNKED) for t in out["layer_types"]):
        del out["layer_types"]          # all full attention: the list says nothing the count does not
    return out


def precision_from(config: dict) -> str:
    quant = config.get("quantization_config")
    if isinstance(quant, dict):
        method = str(quant.get("quant_method", "")).lower()
        algo = str(quant.get("quant_algo", "")).lower()
        if method == "modelopt" and algo:
            return "nvfp4" if "fp4" in algo else "fp8" if "fp8" in algo else "bf16"
        if method in QUANT_PRECISION:
            return QUANT_PRECISION[method]
    dtype = config.get("torch_dtype") or config.get("dtype") or language_config(config).get("torch_dtype")
    return DTYPE_PRECISION.get(str(dtype), "bf16")


# -- the recipe text ------------------------------------------------------------------------------------

@dataclass
class Scaffold:
    hf_id: str
    text: str
    notes: list = field(default_factory=list)


def _q(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _yaml_value(value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_yaml_value(v) for v in value) + "]"
    if isinstance(value, str):
        return value if value.replace("_", "").isalnum() else _q(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)


def _hf_config_lines(hf: dict) -> list[str]:
    lines = ["  hf_config:"]
    for key, value in hf.items():
        if key == "layer_types" and isinstance(value, list):
            lines.append(f"    {key}:")
            lines += [f"      - {_yaml_value(v)}" for v in value]
        else:
            lines.append(f"    {key}: {_yaml_value(value)}")
    return lines


def scaffold(hf_id: str, config: dict | None = None, today: _dt.date | None = None) -> Scaffold:
    """The YAML text of a new recipe for `hf_id` (ORG/REPO), filled from `config` when given."""
    org, _, repo = hf_id.partition("/")
    if not org or not repo or "/" in repo:
        raise ValueError(f"expected ORG/REPO, got {hf_id!r}")
    day = (today or _dt.date.today()).isoformat()
    notes: list[str] = []
    cfg = language_config(config) if config else {}
    counts = None
    if config:
        try:
            counts = parameter_count(config)
            notes += list(counts.notes)
        except (KeyError, TypeError, ZeroDivisionError) as exc:
            notes.append(f"parameter count not computed: config.json lacks {exc}")
    moe = (num_experts(cfg) or 0) > 1
    precision = precision_from(config) if config else "bf16"
    multimodal = bool(config) and isinstance(config.get("vision_config"), dict)
    vram = sizing.weight_vram_gb(counts.total / 1e9, precision) if counts else None

    lines = ["# yaml-language-server: $schema=../../schema/recipe.schema.json", "meta:",
             f"  title: {_q(repo)}", f"  slug: {_q(repo.lower())}", f"  provider: {_q(org)}",
             f"  description: {_q('TODO: one or two sentences about ' + repo + '.')}",
             f"  date_added: {day}", f"  date_updated: {day}",
             f"  difficulty: {'intermediate' if moe else 'beginner'}", "  tasks:"]
    lines += ["    - multimodal", "    - text"] if multimodal else ["    - text"]
    lines += ["", "model:", f"  model_id: {_q(hf_id)}",
              '  min_vllm_version: "0.10.0"  # TODO: the first vLLM release that serves this model']
    if config:
        lines.append(f"  architecture: {'moe' if moe else 'dense'}")
    if counts:
        lines += [f"  parameter_count: {_q(format_count(counts.total))}",
                  f"  active_parameters: {_q(format_count(counts.active))}"]
    if isinstance(cfg.get("max_position_embeddings"), int):
        lines.append(f"  context_length: {cfg['max_position_embeddings']}")
    lines += ["  base_args: []", "  base_env: {}"]
    hf = hf_config_from(config) if config else {}
    if hf:
        lines += _hf_config_lines(hf)
    lines += ["", "variants:", "  default:", f"    precision: {precision}"]
    if vram is not None:
        lines.append(f"    vram_minimum_gb: {vram}")
    else:
        lines.append("    vram_minimum_gb: 0  # TODO: ceil(parameters in billions x bytes per parameter x 1.2)")
        notes.append("vram_minimum_gb left at 0: give --config config.json or compute it by hand")
    lines += [f"    description: {_q('Original ' + precision.upper() + ' weights')}", "",
              "compatible_strategies:", "  - single_node_tp"]
    if moe:
        lines += ["  - single_node_tep", "  - single_node_dep"]
    lines += ["", "guide: |", "  ## Overview", "",
              f"  TODO: what {repo} is, how to launch it, a test request and practical tips.", ""]
    return Scaffold(hf_id, "\n".join(lines) + "\n", notes)


def write_scaffold(root: Path, hf_id: str, config_path: Path | None = None, force: bool = False) -> tuple[Path, Scaffold]:
    """Write models/ORG/REPO.yaml under `root`; raises FileExistsError unless `force`."""
    config = json.loads(Path(config_path).read_text(encoding="utf-8")) if config_path else None
    if config is not None and not isinstance(config, dict):
        raise ValueError(f"{config_path}: expected a JSON object")
    result = scaffold(hf_id, config)
    path = Path(root) / "models" / f"{hf_id}.yaml"
    if path.exists() and not force:
        raise FileExistsError(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(result.text, encoding="utf-8")
    return path, result
