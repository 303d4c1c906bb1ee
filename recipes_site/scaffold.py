"""`recipes-site new ORG/REPO [--config config.json]`: a recipe skeleton, filled from the
model's Hugging Face `config.json` when one is given.

From the config it fills `model.hf_config` (the keys the KV-cache sizing reads), the context
length, dense vs MoE, and the parameter counts (parameters.py), computed from the shapes.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from recipes_site import sizing
from recipes_site.catalog.types import JS_SAFE
from recipes_site.kv_cache import FULL, FULL_ALIASES, SLIDING, num_experts
from recipes_site.parameters import (
    config_int,
    language_config,
    parameter_count,
    vision_extra_parameters,
)

# hf_config keys copied from config.json (the ones recipes-site reads), in this order
HF_CONFIG_KEYS = (
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "hidden_size",
    "max_position_embeddings",
    "vocab_size",
    "intermediate_size",
    "num_experts",
    "num_local_experts",
    "n_routed_experts",
    "moe_intermediate_size",
    "kv_lora_rank",
    "qk_rope_head_dim",
    "sliding_window",
    "attention_chunk_size",
    "layer_types",
    # parameter-count shapes
    "model_type",
    "tie_word_embeddings",
    "num_experts_per_tok",
    "n_shared_experts",
    "shared_expert_intermediate_size",
    "first_k_dense_replace",
    "interleave_moe_layer_step",
    "intermediate_size_mlp",
    "q_lora_rank",
    "qk_nope_head_dim",
    "v_head_dim",
    "attn_output_gate",
    "linear_num_key_heads",
    "linear_num_value_heads",
    "linear_key_head_dim",
    "linear_value_head_dim",
    "linear_conv_kernel_dim",
    "hybrid_override_pattern",
    "mamba_num_heads",
    "mamba_head_dim",
    "ssm_state_size",
    "n_groups",
    "conv_kernel",
    "hidden_size_per_layer_input",
    "vocab_size_per_layer_input",
    "type_vocab_size",
    # exact KV-cache and weight accounting (vLLM's own): Gemma 4 global layers and KV sharing, sparse
    # MLA's indexer, the recurrent state's dtype, a mixed-precision checkpoint's quantization
    "global_head_dim",
    "num_global_key_value_heads",
    "attention_k_eq_v",
    "num_kv_shared_layers",
    "index_topk",
    "index_head_dim",
    "index_n_heads",
    "mamba_ssm_dtype",
    "quantization_config",
)
# the quantization_config keys recipes-site reads (config.json's block carries many more)
QUANT_CONFIG_KEYS = ("quant_method", "modules_to_not_convert")
# quantization_config.quant_method (and ModelOpt quant_algo) -> recipe precision
QUANT_PRECISION = {
    "fp8": "fp8",
    "fbgemm_fp8": "fp8",
    "mxfp4": "mxfp4",
    "awq": "awq",
    "gptq": "gptq",
    "nvfp4": "nvfp4",
    "bitsandbytes": "int4",
    "mxfp8": "mxfp8",
}
DTYPE_PRECISION = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32"}


def format_count(n: float) -> str:
    """ "70.6B", "8.19B", "671B", "1.03T": three significant digits."""
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
    layers = config_int(cfg, "num_hidden_layers")
    pattern = config_int(cfg, "sliding_window_pattern")
    if layers and pattern and config_int(cfg, "sliding_window"):
        return [FULL if (i + 1) % pattern == 0 else SLIDING for i in range(layers)]
    return None


def hf_config_from(config: dict) -> dict:
    """The `model.hf_config` block for a recipe: the keys recipes-site reads, from config.json."""
    cfg = language_config(config)
    out = {}
    for key in HF_CONFIG_KEYS:
        value = derived_layer_types(cfg) if key == "layer_types" else cfg.get(key)
        if key == "quantization_config":
            value = (
                {k: value[k] for k in QUANT_CONFIG_KEYS if k in value}
                if isinstance(value, dict)
                else None
            )
            value = value or None
        if value is not None:
            out[key] = value
    if "layer_types" in out and all(t in FULL_ALIASES for t in out["layer_types"]):
        del out["layer_types"]  # all full attention: the list says nothing the count does not
    vision = vision_extra_parameters(config)
    if vision and "extra_parameters" not in cfg:
        out["extra_parameters"] = vision
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
    dtype = (
        config.get("torch_dtype")
        or config.get("dtype")
        or language_config(config).get("torch_dtype")
    )
    return DTYPE_PRECISION.get(str(dtype), "bf16")


# -- the recipe text ------------------------------------------------------------------------------------

# the guide's sections (CONTRIBUTING "Writing rules"; tests/test_catalog_guides.py holds the catalog to them)
GUIDE_SECTIONS = (
    (
        "Overview",
        "what {repo} is, and a table of its variants (checkpoint, weights, where it runs).",
    ),
    ("Prerequisites", "the vLLM release it needs, access to the repository, extra packages."),
    ("Launch", "the `vllm serve {hf_id}` commands that matter."),
    ("Client usage", "a request with curl or the OpenAI client."),
    ("Benchmarking", "a `vllm bench serve` run with input and output lengths like your traffic."),
    (
        "Troubleshooting",
        "memory first (KV cache, `--max-model-len`), then the model's own pitfalls.",
    ),
    (
        "References",
        "links to the model card and every source you used, including each variant's checkpoint.",
    ),
)


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
        elif isinstance(value, dict):
            lines.append(f"    {key}:")
            lines += [f"      {k}: {_yaml_value(v)}" for k, v in value.items()]
        elif key == "extra_parameters":
            lines.append(
                f"    {key}: {value}  # vision encoder, counted from config.json's vision_config"
            )
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
    multimodal = config is not None and isinstance(config.get("vision_config"), dict)
    vram = sizing.weight_vram_gb(counts.total / 1e9, precision) if counts else None
    if (
        config
    ):  # a mixed-precision checkpoint (gpt-oss: MXFP4 experts, BF16 rest) is sized per component
        exact = sizing.component_weights_gb(
            {"model": {"model_id": hf_id, "hf_config": hf_config_from(config)}},
            {"precision": precision},
        )
        vram = vram if exact is None else exact

    lines = [
        "# yaml-language-server: $schema=../../schema/recipe.schema.json",
        "meta:",
        f"  title: {_q(repo)}",
        f"  slug: {_q(repo.lower())}",
        f"  provider: {_q(org)}",
        f"  description: {_q('TODO: one or two sentences about ' + repo + '.')}",
        f"  date_added: {day}",
        f"  date_updated: {day}",
        f"  difficulty: {'intermediate' if moe else 'beginner'}",
        "  tasks:",
    ]
    lines += ["    - multimodal", "    - text"] if multimodal else ["    - text"]
    lines += [
        "",
        "model:",
        f"  model_id: {_q(hf_id)}",
        '  min_vllm_version: "0.10.0"  # TODO: the first vLLM release that serves this model',
    ]
    if config:
        lines.append(f"  architecture: {'moe' if moe else 'dense'}")
    if counts:
        lines += [
            f"  parameter_count: {_q(format_count(counts.total))}",
            f"  active_parameters: {_q(format_count(counts.active))}",
        ]
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
        lines.append(
            "    vram_minimum_gb: 0  # TODO: ceil(parameters in billions x bytes per parameter x 1.2)"
        )
        notes.append("vram_minimum_gb left at 0: give --config config.json or compute it by hand")
    lines += [
        f"    description: {_q('Original ' + precision.upper() + ' weights')}",
        "",
        "compatible_strategies:",
        "  - single_node_tp",
    ]
    if moe:
        lines += ["  - single_node_tep", "  - single_node_dep"]
    lines += ["", "guide: |"]
    for title, todo in GUIDE_SECTIONS:
        lines += [f"  ## {title}", "", f"  TODO: {todo.format(repo=repo, hf_id=hf_id)}", ""]
    return Scaffold(hf_id, "\n".join(lines) + "\n", notes)


# -- reading config.json: a file from the internet ----------------------------------------------------

# A config.json is kilobytes (the largest fixture in tests/fixtures/configs is 2 KB); the cap only
# stops a device or a huge file from being read whole.
MAX_CONFIG_BYTES = 8 << 20


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a number a config.json can hold")


def _out_of_range(value) -> str | None:
    """The key path of the first number beyond +-2**53 (JSON's exact integers), or None."""
    todo: list[tuple[str, object]] = [("", value)]
    while todo:
        where, node = todo.pop()
        if isinstance(node, dict):
            todo += [(f"{where}.{k}" if where else str(k), v) for k, v in node.items()]
        elif isinstance(node, list):
            todo += [(f"{where}[{i}]", v) for i, v in enumerate(node)]
        elif isinstance(node, (int, float)) and not isinstance(node, bool):
            if not -JS_SAFE <= node <= JS_SAFE:
                return where or "the document"
    return None


def read_config(path: Path) -> dict:
    """`path`'s JSON object, or a ValueError whose one line names the file and what is wrong.

    Only a regular file is read (a FIFO is opened without blocking, then refused), at most
    MAX_CONFIG_BYTES of it; NaN, Infinity, numbers beyond +-2**53 and nesting too deep for the
    parser are refused before any arithmetic sees them."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise ValueError(f"{path}: cannot open it ({exc.strerror})") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ValueError(f"{path}: not a regular file")
    with os.fdopen(fd, "rb") as f:
        data = f.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        raise ValueError(
            f"{path}: larger than {MAX_CONFIG_BYTES >> 20} MiB, too large for a config.json"
        )
    try:
        config = json.loads(data.decode("utf-8"), parse_constant=_refuse_constant)
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not UTF-8 text") from None
    except RecursionError:
        raise ValueError(f"{path}: nested too deeply for a config.json") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") from None
    except ValueError as exc:  # _refuse_constant
        raise ValueError(f"{path}: {exc}") from None
    if not isinstance(config, dict):
        raise ValueError(f"{path}: expected a JSON object")
    where = _out_of_range(config)
    if where is not None:
        raise ValueError(f"{path}: {where}: a number beyond +-2**53, not a model shape")
    return config


def write_scaffold(
    root: Path, hf_id: str, config_path: Path | None = None, force: bool = False
) -> tuple[Path, Scaffold]:
    """Write models/ORG/REPO.yaml under `root`; raises FileExistsError unless `force`. A symlink
    at the recipe's path, or an ORG folder that leads outside models/, is refused even with
    `force`: the scaffold never writes through a link into a file the user did not name."""
    config = read_config(Path(config_path)) if config_path else None
    result = scaffold(hf_id, config)
    models = Path(root) / "models"
    path = models / f"{hf_id}.yaml"
    if path.is_symlink():
        raise ValueError(f"{path}: is a symbolic link; remove it or write the recipe elsewhere")
    if path.exists() and not force:
        raise FileExistsError(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.parent.resolve().is_relative_to(models.resolve()):
        raise ValueError(f"{path.parent}: leads outside {models} through a symbolic link")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(result.text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    return path, result
