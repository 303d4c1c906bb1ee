"""Pydantic models of every YAML file of a recipes root.

Field names are the YAML keys. Every model forbids unknown keys and validates strictly (no
"805" -> 805, no 8 -> "8"); every optional key defaults to None so that "absent" and "{}" stay
distinguishable (the synthesis relies on JavaScript truthiness, where ``{}`` is truthy).

Keys that name hardware profiles or strategies are plain ``str`` here, because which names are
valid depends on the catalog's taxonomy and strategy files; ``checks.py`` verifies them.

Unions are tagged by the Python type of the value (see :func:`one_of`), so an error is reported
once, at the right key, with a readable "expected ..." instead of one error per union member.
"""
# (no `from __future__ import annotations`: pydantic would compile and eval every annotation string)

import datetime as _dt
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    StringConstraints,
    Tag,
    model_validator,
)
from pydantic_core import PydanticCustomError

from recipes_site.catalog import ids as _ids

SCHEMA_ID = "https://recipes-site.local/schema/recipe.schema.json"
JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

# The strategy and kv-store ids of the reference corpus (for schema examples only; the real set
# comes from strategies/*.yaml and kv_store/*.yaml and is checked in checks.py).
REFERENCE_STRATEGY_IDS = (
    "single_node_tp",
    "single_node_tep",
    "single_node_dep",
    "multi_node_tp",
    "multi_node_tep",
    "multi_node_dep",
    "multi_node_tp_pp",
    "multi_node_tp_dp",
    "pd_cluster",
    "kv_store_centralized_mooncake",
    "kv_store_distributed_mooncake",
)

UNION_ERROR = "union_mismatch"
ID_ERROR = "invalid_id"
DATE_ERROR = "invalid_date"
TAG_PREFIX = "__as_"

# ---- enumerations -------------------------------------------------------------------------------

Precision = Literal[
    "bf16",
    "fp16",
    "fp32",
    "fp8",
    "fp4",
    "nvfp4",
    "mxfp4",
    "mxfp8",
    "int4",
    "int8",
    "int2/4/8",
    "awq",
    "gptq",
]
Task = Literal["text", "multimodal", "omni", "embedding"]
Architecture = Literal["dense", "moe"]
Difficulty = Literal["beginner", "intermediate", "advanced", "hard"]
HardwareLevel = Literal["verified", "supported", "unsupported"]
InstallMode = Literal["pip", "docker"]
PoolMode = Literal["tp", "tep", "dep"]
DeployType = Literal["single_node", "multi_node", "pd_cluster"]
KvDeployType = Literal["kv_store_lb"]
ParallelFlag = Literal["--tensor-parallel-size", "--data-parallel-size"]
MultiNodeParallelism = Literal["tp_pp", "tp_dp"]

# ---- building blocks ----------------------------------------------------------------------------


def value_kind(value: Any) -> str:
    """The YAML-level kind of a loaded value: str, int, float, bool, null, map or list."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, dict):
        return "map"
    if isinstance(value, list):
        return "list"
    return type(value).__name__


def one_of(description: str, **members: Any) -> Any:
    """A union chosen by the kind of the value (``int=..., map=...``); other kinds fail once with
    ``description`` (e.g. "an integer or a mapping of hardware key to integer").

    A call is no type to mypy, so each alias made with it is written twice: the plain union
    under ``TYPE_CHECKING``, what pydantic validates in the ``else`` branch."""
    tagged = tuple(Annotated[tp, Tag(TAG_PREFIX + kind)] for kind, tp in members.items())

    def pick(value: Any) -> str | None:
        kind = value_kind(value)
        if kind == "int" and "int" not in members and "float" in members:
            kind = "float"
        return TAG_PREFIX + kind if kind in members else None

    return Annotated[
        Union[tagged],  # noqa: UP007 (a union of a runtime tuple)
        Discriminator(pick, custom_error_type=UNION_ERROR, custom_error_message=description),
    ]


Args = list[StrictStr]
EnvName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]


def _real_date(value: str) -> str:
    """2026-02-30 matches YYYY-MM-DD but is no day: refuse it instead of publishing 2026-03-02."""
    try:
        _dt.date.fromisoformat(value)
    except ValueError:
        raise PydanticCustomError(
            DATE_ERROR, "'{value}' is not a real date", {"value": value[:10]}
        ) from None
    return value


def _id_validator(what: str, **rules: bool):
    def check(value: str) -> str:
        problem = _ids.id_problem(value, **rules)
        if problem:
            raise PydanticCustomError(
                ID_ERROR, "{message}", {"message": _ids.id_message(value, what, problem)}
            )
        return value

    return AfterValidator(check)


_ID_SCHEMA = {"pattern": _ids.JSON_PATTERN, "maxLength": _ids.MAX_ID}
# Ids that become output paths and URLs (see catalog/ids.py): a Hugging Face repo id, a hardware
# profile id (one part).
HfId = Annotated[StrictStr, _id_validator("id"), Field(json_schema_extra=_ID_SCHEMA)]
HwId = Annotated[
    str,
    _id_validator("hardware profile id", single=True),
    Field(
        json_schema_extra={
            "pattern": r"^[A-Za-z0-9_](?:[A-Za-z0-9_.\-]*[A-Za-z0-9_])?$",
            "maxLength": _ids.MAX_PART,
        }
    ),
]
DateStr = Annotated[
    str, StringConstraints(pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"), AfterValidator(_real_date)
]

# Numbers are bounded so that a value that passes `validate` also builds: a 400-digit integer
# would crash float conversions in sizing. JS_SAFE is the largest integer the
# reference (JavaScript) represents exactly, the bound of counts that have no natural ceiling.
JS_SAFE = 2**53 - 1
MAX_GPUS = 1024  # GPUs per node, TP sizes, nodes: a rack-scale node (GB200 NVL72) has 72
MAX_VRAM_GB = 10_000_000  # 10 PB
MAX_TOKENS = 1 << 40  # context lengths (~1.1e12 tokens; Llama 4 Scout states 10M)
# model shapes (hf_config: layers, heads, widths, vocabularies; the largest published vocabulary is
# Gemma's 262,144): up to 2**20 each, so that KV bytes per token x context stays a number the
# pages can print (at 2**53 each, 1e40 GiB broke the memory panel's decimal rounding)
MAX_DIM = 1 << 20
# Variants of one recipe: each renders on every profile x strategy the recipe lists (about 25 ms
# of build per variant when it lists them all), so the cap keeps any recipe under the size cap to
# seconds. Real recipes have at most 7 (the compat corpus at most 5); 128 is eighteen times that.
MAX_VARIANTS = 128
PositiveInt = Annotated[StrictInt, Field(ge=1, le=MAX_DIM)]
NonNegativeInt = Annotated[StrictInt, Field(ge=0, le=MAX_DIM)]
GpuCount = Annotated[StrictInt, Field(ge=1, le=MAX_GPUS)]
GpuCount0 = Annotated[StrictInt, Field(ge=0, le=MAX_GPUS)]
VramGb = Annotated[StrictInt, Field(ge=0, le=MAX_VRAM_GB)]
VramGbFloat = Annotated[StrictFloat, Field(ge=0, le=MAX_VRAM_GB, allow_inf_nan=False)]
Tokens = Annotated[StrictInt, Field(ge=0, le=MAX_TOKENS)]
Port = Annotated[StrictInt, Field(ge=1, le=65535)]
SafeInt = Annotated[StrictInt, Field(ge=-JS_SAFE, le=JS_SAFE)]
FiniteFloat = Annotated[StrictFloat, Field(allow_inf_nan=False)]
if TYPE_CHECKING:
    EnvValue = str | int | float | bool
else:
    EnvValue = one_of(
        "a string, number or boolean",
        str=StrictStr,
        int=SafeInt,
        float=FiniteFloat,
        bool=StrictBool,
    )
EnvMap = dict[EnvName, EnvValue]
HwIntMap = dict[str, GpuCount]
if TYPE_CHECKING:
    IntOrHwMap = int | dict[str, int]
else:
    IntOrHwMap = one_of(
        "an integer or a mapping of hardware key to integer", int=GpuCount, map=HwIntMap
    )
if TYPE_CHECKING:
    ScalarValue = str | int | float | bool
else:
    ScalarValue = one_of(
        "a string, number or boolean",
        str=StrictStr,
        int=SafeInt,
        float=FiniteFloat,
        bool=StrictBool,
    )

# The optional types most fields spell.
StrOrNone = StrictStr | None
BoolOrNone = StrictBool | None
StrListOrNone = list[StrictStr] | None
ArgsOrNone = Args | None
EnvOrNone = EnvMap | None
PositiveOrNone = PositiveInt | None
NonNegativeOrNone = NonNegativeInt | None
IntOrHwMapOrNone = IntOrHwMap | None
GpuCountOrNone = GpuCount | None
LevelMapsOrNone = dict[str, dict[str, HardwareLevel]] | None
LevelMapOrNone = dict[str, HardwareLevel] | None
SafeIntOrNone = SafeInt | None
PortOrNone = Port | None
StrMapOrNone = dict[str, StrictStr] | None
ParallelFlagOrNone = ParallelFlag | None

_ARGS_HELP = "vLLM arguments, one token per list item (a flag and its value are two items)."
_ENV_HELP = "Environment variables (NAME: value)."
_HW_KEY_HELP = (
    "Keys are hardware keys: a taxonomy profile id (h200), a generation (hopper, blackwell, amd, "
    "...), a lowercase brand (nvidia) or `default`, depending on the lookup."
)


# defer_build: a model's validator is built when it first validates, not when the class is
# defined. Only the root models (Recipe, Taxonomy, Strategy, KvStoreSpec, Platforms) validate on
# their own, and pydantic generates a nested model's schema inside its root's, so the nested
# models never need a validator of their own.
_CONFIG = ConfigDict(strict=True, protected_namespaces=(), defer_build=True)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", **_CONFIG)


# ---- recipe: meta ---------------------------------------------------------------------------------


class MetaPlatform(_Model):
    """A third-party platform entry in `meta.platforms`."""

    id: StrictStr = Field(description="Platform id from platforms.yaml.")
    name: StrOrNone = Field(None, description="Display name.")
    url: StrOrNone = Field(None, description="Guide link.")
    blurb: StrOrNone = Field(None, description="One-line description.")
    install: StrOrNone = Field(None, description="Install snippet.")
    script: StrOrNone = Field(None, description="Launch script.")


if TYPE_CHECKING:
    PlatformEntry = str | MetaPlatform
else:
    PlatformEntry = one_of("a platform id or a mapping", str=StrictStr, map=MetaPlatform)


class Meta(_Model):
    """Catalogue metadata shown on the recipe page and in models.json."""

    title: StrictStr = Field(description="Display title of the recipe.")
    slug: StrOrNone = Field(None, description="URL-friendly short name.")
    provider: StrictStr = Field(description="Who publishes the model (e.g. DeepSeek).")
    description: StrictStr = Field(description="One or two sentences about the model.")
    date_added: DateStr | None = Field(None, description="Date the recipe was added (YYYY-MM-DD).")
    date_updated: DateStr | None = Field(None, description="Date of the last update (YYYY-MM-DD).")
    difficulty: Difficulty = Field(
        description="How hard the deployment is (`hard` is a legacy spelling of `advanced`)."
    )
    tasks: list[Task] = Field(
        description="Tasks the model serves; `omni` recipes get no rendered command."
    )
    related_recipes: list[HfId] | None = Field(
        None, description="HF ids (`org/repo`) of related recipes."
    )
    performance_headline: StrOrNone = Field(None, description="One-line performance claim.")
    hardware: LevelMapOrNone = Field(
        None,
        description="Hardware profile id -> verified | supported | unsupported. `unsupported` hides the "
        "profile; listing a restricted profile makes it eligible.",
    )
    default_hardware: StrOrNone = Field(None, description="Preferred default hardware profile id.")
    platforms: list[PlatformEntry] | None = Field(
        None,
        description="Third-party platforms (ids from platforms.yaml) offering a Deploy button.",
    )


# ---- recipe: model --------------------------------------------------------------------------------


_UNCHECKED_HELP = (
    "`command` is shell outside the install grammar (CONTRIBUTING.md, 'Recipe-written shell'); "
    "the page warns readers to read it before pasting."
)


class InstallEntry(_Model):
    """Override of one install method."""

    command: StrOrNone = Field(None, description="Replaces the generated install command.")
    unchecked_shell: BoolOrNone = Field(None, description=_UNCHECKED_HELP)
    note: StrOrNone = Field(None, description="Note shown with the install command.")


if TYPE_CHECKING:
    InstallChoice = Literal[False] | InstallEntry
else:
    InstallChoice = one_of(
        "false, null or a mapping with `command` / `note`", bool=Literal[False], map=InstallEntry
    )


class Install(_Model):
    """`model.install`: per-method overrides; `false` hides that method."""

    pip: InstallChoice | None = Field(
        None, description="`false` hides pip; a mapping overrides command/note."
    )
    docker: InstallChoice | None = Field(
        None, description="`false` hides docker; a mapping overrides command/note."
    )


class CudaImages(_Model):
    """Docker images per CUDA version."""

    cu129: StrOrNone = Field(None, description="Image for CUDA 12.9.")
    cu130: StrOrNone = Field(None, description="Image for CUDA 13.0 (preferred).")


if TYPE_CHECKING:
    NvidiaImage = str | CudaImages
else:
    NvidiaImage = one_of(
        "an image name or a mapping of CUDA version to image", str=StrictStr, map=CudaImages
    )


class DockerImageMap(_Model):
    """Docker images per brand key (or a CUDA map at the top level, NVIDIA only)."""

    nvidia: NvidiaImage | None = Field(None, description="NVIDIA image, or {cu129, cu130} images.")
    amd: StrOrNone = Field(None, description="ROCm image.")
    tpu: StrOrNone = Field(None, description="TPU image.")
    intel: StrOrNone = Field(None, description="Intel (CPU/XPU) image.")
    cu129: StrOrNone = Field(None, description="NVIDIA image for CUDA 12.9.")
    cu130: StrOrNone = Field(None, description="NVIDIA image for CUDA 13.0.")


if TYPE_CHECKING:
    DockerImage = str | DockerImageMap
else:
    DockerImage = one_of(
        "an image name or a mapping of brand to image", str=StrictStr, map=DockerImageMap
    )


class DockerSource(_Model):
    """Local model directory mounted into the container."""

    mount_path: StrOrNone = Field(None, description="Host path of the model directory.")


class HfQuantizationConfig(BaseModel):
    """`hf_config.quantization_config`: how the checkpoint of `model.model_id` is quantized, as its
    config.json states it. Weight sizing reads `quant_method` to size a mixed-precision checkpoint
    per component (`mxfp4`: routed experts in MXFP4, everything else in BF16, as vLLM loads gpt-oss)."""

    model_config = ConfigDict(extra="allow", **_CONFIG)

    quant_method: StrOrNone = Field(None, description="Quantization method (mxfp4, fp8, ...).")
    modules_to_not_convert: StrListOrNone = Field(
        None,
        description="Modules the checkpoint keeps unquantized (attention, router, embeddings, lm_head).",
    )


class HfConfig(BaseModel):
    """`model.hf_config`: facts from the model's Hugging Face `config.json`, under its key names.

    KV-cache sizing (`recipes-site fit`, the engine's safe `--max-model-len`) reads them; other
    config keys are accepted but reported as warnings by `validate`."""

    model_config = ConfigDict(extra="allow", **_CONFIG)

    num_hidden_layers: PositiveOrNone = Field(None, description="Decoder layers.")
    num_attention_heads: PositiveOrNone = Field(
        None, description="Query heads (a TP size must divide them)."
    )
    num_key_value_heads: PositiveOrNone = Field(
        None, description="KV heads (GQA); absent means MHA."
    )
    head_dim: PositiveOrNone = Field(
        None, description="Dimension of one head (default hidden_size / num_attention_heads)."
    )
    hidden_size: PositiveOrNone = Field(None, description="Model width.")
    max_position_embeddings: Annotated[StrictInt, Field(ge=1, le=MAX_TOKENS)] | None = Field(
        None, description="Longest context the model supports."
    )
    vocab_size: PositiveOrNone = Field(None, description="Vocabulary size.")
    intermediate_size: PositiveOrNone = Field(None, description="MLP width (dense layers).")
    num_experts: NonNegativeOrNone = Field(
        None, description="Routed experts per MoE layer (Qwen spelling)."
    )
    num_local_experts: NonNegativeOrNone = Field(
        None, description="Routed experts per MoE layer (Mixtral / gpt-oss spelling)."
    )
    n_routed_experts: NonNegativeOrNone = Field(
        None, description="Routed experts per MoE layer (DeepSeek spelling)."
    )
    moe_intermediate_size: PositiveOrNone = Field(None, description="Width of one expert's MLP.")
    kv_lora_rank: PositiveOrNone = Field(None, description="MLA: rank of the compressed KV latent.")
    qk_rope_head_dim: PositiveOrNone = Field(
        None, description="MLA: dimension of the decoupled RoPE key."
    )
    sliding_window: PositiveOrNone = Field(
        None, description="Window of `sliding_attention` layers, in tokens."
    )
    attention_chunk_size: PositiveOrNone = Field(
        None, description="Chunk of `chunked_attention` layers, in tokens."
    )
    layer_types: StrListOrNone = Field(
        None,
        description="Type per layer: full_attention, sliding_attention, chunked_attention; linear_attention, "
        "mamba, mlp and moe layers hold no per-token KV cache.",
    )
    num_nextn_predict_layers: NonNegativeOrNone = Field(
        None, description="MTP layers a `--speculative-config` method mtp runs (DeepSeek, GLM)."
    )
    mtp_num_hidden_layers: NonNegativeOrNone = Field(
        None, description="MTP layers a `--speculative-config` method mtp runs (Qwen3.5/3.6)."
    )
    # shapes read by the parameter count (`scaffold.parameter_count`)
    model_type: StrOrNone = Field(
        None,
        description="config.json model_type; read for structure the shapes do not state (xlm-roberta/bert: "
        "encoder only; nemotron_h: two-matrix MLP; llama4/llama4_text: one shared expert; gemma*: "
        "tied embeddings by default).",
    )
    tie_word_embeddings: BoolOrNone = Field(
        None, description="The output head reuses the input embedding (counted once)."
    )
    num_experts_per_tok: PositiveOrNone = Field(
        None, description="Routed experts each token uses (active parameters)."
    )
    n_shared_experts: NonNegativeOrNone = Field(
        None,
        description="Shared experts per MoE layer, each moe_intermediate_size wide (DeepSeek).",
    )
    shared_expert_intermediate_size: NonNegativeOrNone = Field(
        None, description="Width of the shared expert's MLP (Qwen MoE)."
    )
    first_k_dense_replace: NonNegativeOrNone = Field(
        None, description="Leading layers with a dense MLP before the MoE ones (DeepSeek)."
    )
    interleave_moe_layer_step: PositiveOrNone = Field(
        None, description="MoE on every k-th layer, dense MLP on the others (Llama 4)."
    )
    intermediate_size_mlp: PositiveOrNone = Field(
        None, description="Width of the dense MLP layers of an interleaved MoE (Llama 4)."
    )
    q_lora_rank: PositiveOrNone = Field(
        None, description="MLA: rank of the low-rank query projection."
    )
    qk_nope_head_dim: PositiveOrNone = Field(
        None, description="MLA: query/key head dimension without RoPE (default 128)."
    )
    v_head_dim: PositiveOrNone = Field(
        None, description="MLA: value head dimension (default qk_nope_head_dim)."
    )
    attn_output_gate: BoolOrNone = Field(
        None, description="Gated attention: q_proj also emits an output gate (Qwen3.5/3.6)."
    )
    linear_num_key_heads: PositiveOrNone = Field(
        None, description="Gated DeltaNet (linear_attention layers): key heads."
    )
    linear_num_value_heads: PositiveOrNone = Field(None, description="Gated DeltaNet: value heads.")
    linear_key_head_dim: PositiveOrNone = Field(
        None, description="Gated DeltaNet: key head dimension."
    )
    linear_value_head_dim: PositiveOrNone = Field(
        None, description="Gated DeltaNet: value head dimension."
    )
    linear_conv_kernel_dim: PositiveOrNone = Field(
        None, description="Gated DeltaNet: short convolution kernel (default 4)."
    )
    hybrid_override_pattern: StrOrNone = Field(
        None,
        description="Nemotron-H block per layer: M Mamba-2, * attention, - MLP, E MoE (only * holds KV cache).",
    )
    mamba_num_heads: PositiveOrNone = Field(None, description="Mamba-2 heads (Nemotron-H).")
    mamba_head_dim: PositiveOrNone = Field(None, description="Mamba-2 head dimension.")
    ssm_state_size: PositiveOrNone = Field(None, description="Mamba-2 state size per group.")
    n_groups: PositiveOrNone = Field(None, description="Mamba-2 B/C groups.")
    conv_kernel: PositiveOrNone = Field(None, description="Mamba-2 convolution kernel (default 4).")
    mamba_ssm_dtype: StrOrNone = Field(
        None,
        description="dtype of the linear-attention/Mamba recurrent state (Qwen3.5/3.6: float32; default the "
        "model dtype, float32 for nemotron_h).",
    )
    global_head_dim: PositiveOrNone = Field(
        None, description="Gemma 4: head dimension of the full-attention layers."
    )
    num_global_key_value_heads: PositiveOrNone = Field(
        None, description="Gemma 4: KV heads of the full-attention layers when attention_k_eq_v."
    )
    attention_k_eq_v: BoolOrNone = Field(
        None, description="Gemma 4: full-attention layers reuse K as V (vLLM still caches both)."
    )
    num_kv_shared_layers: NonNegativeOrNone = Field(
        None,
        description="Gemma 3n / Gemma 4 E models: the last N layers reuse an earlier layer's KV cache.",
    )
    index_topk: PositiveOrNone = Field(
        None,
        description="Sparse MLA (DeepSeek-V3.2, GLM-5): tokens the indexer selects; its presence adds the "
        "indexer's key cache.",
    )
    index_head_dim: PositiveOrNone = Field(
        None, description="Sparse MLA: indexer key dimension (default 128)."
    )
    index_n_heads: PositiveOrNone = Field(None, description="Sparse MLA: indexer query heads.")
    quantization_config: HfQuantizationConfig | None = Field(
        None,
        description="The default checkpoint's quantization (config.json's own block); `quant_method: mxfp4` "
        "sizes its weights per component.",
    )
    hidden_size_per_layer_input: PositiveOrNone = Field(
        None, description="Per-layer embedding width (Gemma 3n / Gemma 4 E models)."
    )
    vocab_size_per_layer_input: PositiveOrNone = Field(
        None, description="Per-layer embedding vocabulary (default vocab_size)."
    )
    type_vocab_size: NonNegativeOrNone = Field(
        None, description="Token-type embeddings of a BERT-style encoder (default 1)."
    )
    extra_parameters: Annotated[StrictInt, Field(ge=0, le=JS_SAFE)] | None = Field(
        None,
        description="Not a config.json key: parameters of vision/audio encoders, projectors and adapters that the "
        "language-model shapes cannot derive, as the publisher states them (`recipes-site new` counts a "
        "Qwen3-VL/Qwen3.5 vision_config itself); added to the count.",
    )


class Model(_Model):
    """The served checkpoint and the arguments every command shares."""

    model_id: HfId = Field(
        description="Hugging Face id served by default (`org/repo`); should match the file path."
    )
    min_vllm_version: StrOrNone = Field(
        None, description='Minimum vLLM version, as a string ("0.18.0").'
    )
    architecture: Architecture | None = Field(None, description="dense or moe.")
    # free text: real recipes write "~30B total (3B active)"; only a count sizing.py can read is
    # used as one (parse_parameter_count bounds its digits), the rest is shown as written
    parameter_count: StrOrNone = Field(None, description='Total parameters, e.g. "671B".')
    active_parameters: StrOrNone = Field(
        None, description='Active parameters per token (MoE), e.g. "37B".'
    )
    context_length: Tokens | None = Field(
        None, description="Maximum context length in tokens (0 for non-LLM pipelines)."
    )
    base_args: ArgsOrNone = Field(None, description="Arguments of every command. " + _ARGS_HELP)
    base_env: EnvOrNone = Field(None, description="Environment of every command. " + _ENV_HELP)
    docker_image: DockerImage | None = Field(
        None,
        description="Docker image: a string pins NVIDIA only; a map pins per brand (nvidia/amd/tpu/intel).",
    )
    install: Install | None = Field(None, description="Overrides of the generated install block.")
    nightly_required: BoolOrNone = Field(None, description="Needs a vLLM nightly build.")
    gated: BoolOrNone = Field(
        None,
        description="model_id is a gated Hugging Face repository (licence to accept): docker commands pass "
        "the host's HF_TOKEN through (`-e HF_TOKEN`).",
    )
    supports_dcp: BoolOrNone = Field(None, description="Decode context parallel is supported (UI).")
    flashinfer_autotune: BoolOrNone = Field(None, description="FlashInfer autotune toggle (UI).")
    docker_source: DockerSource | None = Field(
        None, description="Local model directory for docker runs."
    )
    hf_config: HfConfig | None = Field(
        None, description="Facts from the model's config.json for KV-cache sizing (same key names)."
    )


class Dependency(_Model):
    """An extra install step (copied to `model.install.extras`)."""

    note: StrOrNone = Field(None, description="What the step is for.")
    command: StrOrNone = Field(None, description="Shell command.")
    unchecked_shell: BoolOrNone = Field(None, description=_UNCHECKED_HELP)
    optional: BoolOrNone = Field(None, description="The step is optional.")
    brand: StrOrNone = Field(None, description="Only for this hardware brand (NVIDIA, AMD, ...).")
    install_modes: list[InstallMode] | None = Field(
        None, description="Only for these install methods."
    )


# ---- recipe: variants -----------------------------------------------------------------------------


class VariantHardwareOverride(_Model):
    """Per-hardware additions to a variant."""

    extra_args: ArgsOrNone = Field(None, description=_ARGS_HELP)
    extra_env: EnvOrNone = Field(None, description=_ENV_HELP)
    docker_image: StrOrNone = Field(
        None, description="Docker image on this hardware (exact profile id only)."
    )


class PrecisionHardware(_Model):
    """Hardware a precision needs (replaces the built-in nvfp4/fp4 -> NVIDIA Blackwell rule)."""

    brand: StrOrNone = Field(None, description="Taxonomy brand, exact spelling (NVIDIA, AMD, ...).")
    generation: StrOrNone = Field(None, description="Taxonomy generation (hopper, blackwell, ...).")


class Variant(_Model):
    """One checkpoint/precision of the model."""

    precision: Precision = Field(
        description="Weight precision; nvfp4/fp4 need NVIDIA Blackwell unless precision_hardware says otherwise."
    )
    vram_minimum_gb: VramGb = Field(description="VRAM (GB) the whole deployment needs.")
    description: StrOrNone = Field(None, description="What this variant is.")
    model_id: HfId | None = Field(
        None, description="Checkpoint served by this variant (`org/repo`); gets its own page."
    )
    gated: BoolOrNone = Field(
        None,
        description="This variant's checkpoint is gated (default: model.gated when it serves model.model_id).",
    )
    label: StrOrNone = Field(None, description="Short label for the variant picker.")
    extra_args: ArgsOrNone = Field(
        None, description="Arguments added for this variant. " + _ARGS_HELP
    )
    extra_env: EnvOrNone = Field(
        None, description="Environment added for this variant. " + _ENV_HELP
    )
    hardware_overrides: dict[str, VariantHardwareOverride] | None = Field(
        None, description="Per-hardware additions (exact profile id, generation or `nvidia`)."
    )
    tp: IntOrHwMapOrNone = Field(
        None,
        description="Tensor-parallel size for single_node_tp: a number or a map. " + _HW_KEY_HELP,
    )
    supported_hardware: StrListOrNone = Field(
        None, description="Only render on these hardware profile ids."
    )
    min_vllm_version: StrOrNone = Field(None, description="Minimum vLLM version for this variant.")
    precision_hardware: PrecisionHardware | None = Field(
        None, description="Hardware constraint of the precision."
    )
    default_modes: StrMapOrNone = Field(
        None, description="Feature -> mode selected (and forced on) for this variant."
    )
    docker_image: DockerImage | None = Field(None, description="Docker image for this variant.")


# ---- recipe: features -----------------------------------------------------------------------------


class FeatureArgsOverride(_Model):
    """Per-hardware replacement of a feature's or mode's args."""

    args: ArgsOrNone = Field(None, description="Replaces the args on this hardware. " + _ARGS_HELP)


class FeatureMode(_Model):
    """One mode of a modal feature."""

    label: StrOrNone = Field(None, description="Short label.")
    description: StrOrNone = Field(None, description="What the mode does.")
    args: ArgsOrNone = Field(None, description=_ARGS_HELP)
    variants: StrListOrNone = Field(
        None, description="Variant keys this mode is available for (absent = all)."
    )
    hardware: LevelMapOrNone = Field(
        None, description="`unsupported` hides the mode on that hardware. " + _HW_KEY_HELP
    )
    hardware_overrides: dict[str, FeatureArgsOverride] | None = Field(
        None, description="Per-hardware args. " + _HW_KEY_HELP
    )


class Companion(_Model):
    """A helper process shown as an extra command tab."""

    label: StrOrNone = Field(None, description="Tab label.")
    description: StrOrNone = Field(None, description="What it does.")
    command: StrOrNone = Field(None, description="Shell command.")
    unchecked_shell: BoolOrNone = Field(None, description=_UNCHECKED_HELP)


class Feature(_Model):
    """An optional capability: flat (`args`) or modal (`modes`)."""

    description: StrictStr = Field(description="What enabling the feature does.")
    label: StrOrNone = Field(None, description="Short label.")
    args: ArgsOrNone = Field(
        None, description="Arguments added when enabled (not together with `modes`). " + _ARGS_HELP
    )
    modes: dict[str, FeatureMode] | None = Field(
        None, description="Alternative argument sets; a non-empty map."
    )
    default_mode: StrOrNone = Field(None, description="Mode used unless a variant picks another.")
    hardware: LevelMapOrNone = Field(None, description="Hardware gate (only honoured on modes).")
    hardware_overrides: dict[str, FeatureArgsOverride] | None = Field(
        None, description="Per-hardware replacement args (generation or `nvidia`)."
    )
    strategies: StrListOrNone = Field(None, description="Only enable with these strategies.")
    companion: Companion | None = Field(
        None, description="Helper process rendered while the feature is on."
    )


# ---- recipe: strategies and hardware --------------------------------------------------------------


class HardwareOverride(_Model):
    """Recipe-wide additions on a hardware generation (or `nvidia`)."""

    extra_args: ArgsOrNone = Field(None, description=_ARGS_HELP)
    extra_env: EnvOrNone = Field(None, description=_ENV_HELP)
    install_note: StrOrNone = Field(None, description="Install note for this hardware (UI).")


class StrategyHardwareOverride(_Model):
    """Per-hardware additions inside a strategy override."""

    extra_args: ArgsOrNone = Field(None, description=_ARGS_HELP)
    extra_env: EnvOrNone = Field(None, description=_ENV_HELP)


class PdRoleOverride(_Model):
    """Overrides of a prefill/decode role of pd_cluster."""

    parallelism: PoolMode | None = Field(None, description="Pool layout: tp, tep or dep.")
    tp: GpuCountOrNone = Field(None, description="Tensor-parallel size of the role.")
    parallel_flag: ParallelFlagOrNone = Field(None, description="Parallel flag of the role.")
    nodes: IntOrHwMapOrNone = Field(None, description="Nodes per pool (UI only). " + _HW_KEY_HELP)
    extra_args: ArgsOrNone = Field(None, description=_ARGS_HELP)
    vllm_args: ArgsOrNone = Field(None, description=_ARGS_HELP)
    env: EnvOrNone = Field(None, description=_ENV_HELP)
    extra_env: EnvOrNone = Field(None, description=_ENV_HELP)
    hardware_overrides: dict[str, StrategyHardwareOverride] | None = Field(
        None, description="Per-hardware additions (exact profile id)."
    )


class PdRouterOverride(_Model):
    """Overrides of the pd_cluster router."""

    intra_node_data_parallel_size: GpuCountOrNone = Field(
        None, description="--intra-node-data-parallel-size."
    )


class StrategyOverride(_Model):
    """Recipe-specific settings of one strategy."""

    tp: IntOrHwMapOrNone = Field(
        None, description="Tensor-parallel size (single_node_tp). " + _HW_KEY_HELP
    )
    extra_args: ArgsOrNone = Field(None, description=_ARGS_HELP)
    vllm_args: ArgsOrNone = Field(None, description=_ARGS_HELP)
    env: EnvOrNone = Field(None, description=_ENV_HELP)
    extra_env: EnvOrNone = Field(None, description=_ENV_HELP)
    hardware_overrides: dict[str, StrategyHardwareOverride] | None = Field(
        None,
        description="Per-hardware additions (generation/`nvidia` replaces the recipe blocks; exact id adds).",
    )
    pool_modes: list[PoolMode] | None = Field(None, description="pd_cluster: allowed pool layouts.")
    router: PdRouterOverride | None = Field(None, description="pd_cluster router overrides.")
    prefill: PdRoleOverride | None = Field(None, description="pd_cluster prefill role.")
    decode: PdRoleOverride | None = Field(None, description="pd_cluster decode role.")


class HardwareNoteLink(_Model):
    label: StrOrNone = Field(None, description="Link text.")
    href: StrOrNone = Field(None, description="Link target.")


class HardwareNote(_Model):
    """A note shown for one hardware profile (UI)."""

    title: StrOrNone = Field(None, description="Title.")
    body: StrOrNone = Field(None, description="Markdown body.")
    link: HardwareNoteLink | None = Field(None, description="Optional link.")


# ---- recipe: omni ---------------------------------------------------------------------------------


class OmniTaskHardwareOverride(_Model):
    curl: StrOrNone = Field(None, description="Example request on this hardware.")
    extra_args: ArgsOrNone = Field(None, description=_ARGS_HELP)
    vram_minimum_gb: VramGb | None = Field(None, description="VRAM needed on this hardware.")


class OmniTask(_Model):
    """One task of an omni (vllm-omni) recipe."""

    id: StrOrNone = Field(None, description="Task id.")
    key: StrOrNone = Field(None, description="Task key.")
    label: StrOrNone = Field(None, description="Label.")
    description: StrOrNone = Field(None, description="Description.")
    endpoint: StrOrNone = Field(None, description="HTTP endpoint.")
    curl: StrOrNone = Field(None, description="Example request.")
    model_id: StrOrNone = Field(None, description="Checkpoint for this task.")
    vram_minimum_gb: VramGb | None = Field(None, description="VRAM needed.")
    extra_args: ArgsOrNone = Field(None, description=_ARGS_HELP)
    axes: StrMapOrNone = Field(None, description="Axis id -> option id.")
    hardware_overrides: dict[str, OmniTaskHardwareOverride] | None = Field(
        None, description="Per hardware profile id."
    )


class OmniAxisOption(_Model):
    id: StrictStr = Field(description="Option id.")
    label: StrOrNone = Field(None, description="Label.")


class OmniTaskAxis(_Model):
    id: StrictStr = Field(description="Axis id.")
    label: StrOrNone = Field(None, description="Label.")
    options: list[OmniAxisOption] | None = Field(None, description="Options.")


if TYPE_CHECKING:
    OmniTaskEntry = str | OmniTask
else:
    OmniTaskEntry = one_of("a task id or a task mapping", str=StrictStr, map=OmniTask)


class Omni(_Model):
    """vllm-omni settings (UI only; omni recipes get no rendered command)."""

    tasks: list[OmniTaskEntry] | None = Field(None, description="Tasks.")
    port: PortOrNone = Field(None, description="Server port.")
    task_axes: list[OmniTaskAxis] | None = Field(None, description="Task axes.")
    task_label: StrOrNone = Field(None, description="Label of the task picker.")
    task_hint: StrOrNone = Field(None, description="Hint of the task picker.")
    variant_label: StrOrNone = Field(None, description="Label of the variant picker.")
    variant_hint: StrOrNone = Field(None, description="Hint of the variant picker.")


# ---- recipe ---------------------------------------------------------------------------------------

if TYPE_CHECKING:
    MinGpusBlock = int | dict[str, int]
else:
    MinGpusBlock = one_of(
        "an integer or a mapping of strategy id to integer", int=GpuCount0, map=dict[str, GpuCount0]
    )
if TYPE_CHECKING:
    StrategyMinGpus = int | dict[str, MinGpusBlock]
else:
    StrategyMinGpus = one_of(
        "an integer or a mapping of strategy id / hardware profile id to integer",
        int=GpuCount0,
        map=dict[str, MinGpusBlock],
    )


class Recipe(_Model):
    """A vLLM serving recipe: `models/<hf_org>/<hf_repo>.yaml`."""

    model_config = ConfigDict(title="vLLM serving recipe")

    meta: Meta = Field(description="Catalogue metadata.")
    model: Model = Field(description="The served checkpoint and shared arguments.")
    variants: dict[str, Variant] = Field(
        description="Variant key -> variant; `default` is required.", max_length=MAX_VARIANTS
    )
    features: dict[str, Feature] | None = Field(
        None, description="Feature name -> feature (enabled unless opted in)."
    )
    opt_in_features: StrListOrNone = Field(None, description="Features that are off unless chosen.")
    compatible_strategies: StrListOrNone = Field(
        None,
        description="Strategy ids this recipe supports, in preference order (e.g. "
        + ", ".join(REFERENCE_STRATEGY_IDS[:3])
        + ").",
    )
    strategy_overrides: dict[str, StrategyOverride] | None = Field(
        None, description="Strategy id -> recipe-specific settings."
    )
    hardware_overrides: dict[str, HardwareOverride] | None = Field(
        None, description="Generation (hopper, blackwell, amd, ...) or `nvidia` -> additions."
    )
    dependencies: list[Dependency] | None = Field(None, description="Extra install steps.")
    kv_offload_support: LevelMapOrNone = Field(
        None, description="taxonomy kv_offload option -> verified | unsupported."
    )
    omni: Omni | None = Field(None, description="vllm-omni settings.")
    default_strategy: StrOrNone = Field(None, description="Preferred strategy id.")
    strategy_hardware: LevelMapsOrNone = Field(
        None, description="Strategy id -> hardware key -> supported | unsupported. " + _HW_KEY_HELP
    )
    strategy_min_gpus: StrategyMinGpus | None = Field(
        None,
        description="Minimum GPUs: a number, or strategy id / exact profile id -> number (or per-strategy map).",
    )
    hardware_opt_in_features: dict[str, list[StrictStr]] | None = Field(
        None, description="Hardware profile id -> features that are opt-in on it."
    )
    hardware_notes: dict[str, HardwareNote] | None = Field(
        None, description="Hardware profile id -> note (UI)."
    )
    kv_cache_strategy_hardware: LevelMapsOrNone = Field(
        None, description="kv-store strategy id -> hardware profile id -> unsupported."
    )
    guide: StrOrNone = Field(None, description="Markdown deployment guide.")


# ---- taxonomy.yaml ----------------------------------------------------------------------------------


if TYPE_CHECKING:
    Generations = str | list[str]
else:
    Generations = one_of("a generation name or a list of them", str=StrictStr, list=list[StrictStr])
if TYPE_CHECKING:
    VramNumber = int | float
else:
    VramNumber = one_of("a number", int=VramGb, float=VramGbFloat)


# What a profile's `precisions` lists: the weight formats vLLM runs on that hardware. Variant
# precisions map onto these in synthesis/hardware.py (REQUIRED_CAPABILITY).
PrecisionCapability = Literal["bf16", "fp16", "fp8", "int8", "int4", "nvfp4", "mxfp4", "mxfp8"]
InterconnectKind = Literal["nvlink", "nvlink-c2c", "xgmi", "pcie", "ici", "none"]
if TYPE_CHECKING:
    SpecNumber = int | float
else:
    SpecNumber = one_of(
        "a number",
        int=Annotated[StrictInt, Field(gt=0, le=JS_SAFE)],
        float=Annotated[StrictFloat, Field(gt=0, le=JS_SAFE, allow_inf_nan=False)],
    )
SpecNumberOrNone = SpecNumber | None
HardwareFact = Literal[
    "memory_bandwidth_gbps", "tflops", "interconnect", "precisions", "power_watts"
]


class HardwareTflops(_Model):
    """Dense (not sparse) peak tensor throughput of ONE accelerator per data type, as its vendor's
    datasheet states it; a type the hardware has no units for is left out."""

    bf16: SpecNumberOrNone = Field(None, description="Dense BF16 TFLOPS.")
    fp8: SpecNumberOrNone = Field(None, description="Dense FP8 TFLOPS.")
    fp4: SpecNumberOrNone = Field(None, description="Dense FP4 (NVFP4 / MXFP4) TFLOPS.")
    int8: SpecNumberOrNone = Field(None, description="Dense INT8 TOPS.")


class HardwareInterconnect(_Model):
    """How one accelerator talks to the others of its node (what tensor-parallel all-reduces use)."""

    kind: InterconnectKind = Field(description="nvlink, nvlink-c2c, xgmi, pcie, ici or none.")
    gbps: SpecNumberOrNone = Field(
        None, description="GB/s per accelerator, bidirectional, as the vendor states it."
    )


class HardwarePrecisions(_Model):
    """Which weight formats vLLM 0.33 runs on the hardware: with compute in that format (native)
    or by converting the weights in the kernel (weight_only, e.g. Marlin's FP8 on Ampere). A
    format in neither list is not offered on the hardware."""

    native: list[PrecisionCapability] = Field(description="Formats computed natively.")
    weight_only: list[PrecisionCapability] | None = Field(
        None, description="Formats run through weight-only kernels."
    )


class HardwareProfile(_Model):
    """One selectable hardware node."""

    brand: StrictStr = Field(description="NVIDIA, AMD, Google, Intel, Huawei...")
    generation: Generations | None = Field(
        None,
        description="hopper, blackwell, ada, amd, tpu, cpu, xpu, npu (a list: the first is used).",
    )
    gpu_generation: Generations | None = Field(None, description="Alias of `generation`.")
    display_name: StrOrNone = Field(None, description="Display name.")
    description: StrOrNone = Field(None, description="Description.")
    gpu_count: GpuCount = Field(description="GPUs (or accelerators) per node.")
    vram_gb: VramNumber = Field(description="Total VRAM of the node in GB.")
    vram_per_gpu_gb: VramNumber | None = Field(
        None,
        description="VRAM of one GPU as the vendor states it (binary GiB, e.g. 80 for H100); "
        "defaults to vram_gb / gpu_count. Used by sizing.",
    )
    memory_reported_mib: SafeIntOrNone = Field(
        None, description="One GPU's total as nvidia-smi / rocm-smi reports it (MiB)."
    )
    memory_total_gib: VramNumber | None = Field(
        None,
        description="One GPU's total as torch and vLLM see it (cudaMemGetInfo, GiB): what "
        "--gpu-memory-utilization multiplies.",
    )
    memory_source: StrOrNone = Field(None, description="Where the memory facts were read.")
    compute_capability: StrOrNone = Field(
        None, description='CUDA compute capability, e.g. "9.0" (picks vLLM kernels).'
    )
    memory_bandwidth_gbps: SpecNumberOrNone = Field(
        None, description="One accelerator's memory bandwidth in GB/s (datasheet)."
    )
    tflops: HardwareTflops | None = Field(None, description="Dense peak TFLOPS per data type.")
    interconnect: HardwareInterconnect | None = Field(
        None, description="Accelerator-to-accelerator link within the node."
    )
    precisions: HardwarePrecisions | None = Field(
        None,
        description="Weight formats vLLM runs here; when present, variants of other formats "
        "are not offered on this hardware.",
    )
    power_watts: SpecNumberOrNone = Field(
        None,
        description="One accelerator's board power (TDP / total board power) in watts, as its "
        "vendor's datasheet or product page states it; cited in sources.power_watts.",
    )
    sources: dict[HardwareFact, StrictStr] | None = Field(
        None, description="Where each fact was read: fact name -> datasheet URL or vLLM file:line."
    )
    multi_node: BoolOrNone = Field(None, description="Unused.")
    scalable: BoolOrNone = Field(None, description="false: cannot join a multi-node deployment.")
    restricted: BoolOrNone = Field(
        None, description="true: only for recipes listing it in meta.hardware."
    )

    @model_validator(mode="after")
    def _power_is_cited(self) -> "HardwareProfile":
        if self.power_watts is not None and not (self.sources or {}).get("power_watts"):
            raise ValueError(
                "power_watts needs sources.power_watts: the vendor's datasheet or product page "
                "(URL) and its words"
            )
        return self


class TaskDef(_Model):
    id: StrictStr = Field(description="Task id.")
    display_name: StrOrNone = Field(None, description="Display name.")
    description: StrOrNone = Field(None, description="Description.")


class KvOffloadGroup(_Model):
    display_name: StrOrNone = None
    label: StrOrNone = None
    order: SafeIntOrNone = None
    sub_row_label: StrOrNone = None
    docs_url: StrOrNone = None
    tooltip: StrOrNone = None
    description: StrOrNone = None


class KvOffloadOption(_Model):
    display_name: StrOrNone = None
    label: StrOrNone = None
    order: SafeIntOrNone = None
    group: StrOrNone = None
    description: StrOrNone = None
    args: ArgsOrNone = None
    env: EnvOrNone = None
    requires_opt_in: BoolOrNone = None
    brands: StrListOrNone = None
    strategies: StrListOrNone = None
    install: StrOrNone = None
    docs_url: StrOrNone = None
    companion: Companion | None = None


class Taxonomy(_Model):
    """`taxonomy.yaml`: the controlled vocabulary."""

    hardware_profiles: dict[HwId, HardwareProfile] = Field(
        description="Profile id -> profile (ids become file names)."
    )
    tasks: list[TaskDef] | None = None
    strategies: StrListOrNone = None
    kv_offload_groups: dict[str, KvOffloadGroup] | None = None
    kv_offload: dict[str, KvOffloadOption] | None = None
    feature_conflicts: list[list[StrictStr]] | None = Field(
        None,
        description="Groups of recipe feature names of which at most one may be on (the picker unchecks the others).",
    )


# ---- strategies/*.yaml, kv_store/*.yaml, platforms.yaml --------------------------------------------


class HardwareMatch(_Model):
    min_gpus: GpuCount0 | None = None
    max_gpus: GpuCount0 | None = None
    multi_node: BoolOrNone = None
    architecture: Architecture | None = None


class StrategyRole(_Model):
    vllm_args: ArgsOrNone = None
    env: EnvOrNone = None
    parallelism: PoolMode | None = None
    tp: GpuCountOrNone = None
    parallel_flag: ParallelFlagOrNone = None


class StrategyRouter(_Model):
    policy: StrOrNone = None


class Strategy(_Model):
    """`strategies/<name>.yaml`: a serving strategy."""

    name: StrictStr = Field(description="Strategy id (the key everything refers to).")
    deploy_type: DeployType
    display_name: StrOrNone = None
    orientation: StrOrNone = None
    description: StrOrNone = None
    hardware_match: HardwareMatch | None = None
    vllm_args: ArgsOrNone = None
    parallel_flag: ParallelFlagOrNone = None
    env: EnvOrNone = None
    parallelism: MultiNodeParallelism | None = None
    prefill: StrategyRole | None = None
    decode: StrategyRole | None = None
    router: StrategyRouter | None = None


class KvRouter(_Model):
    policy: StrOrNone = None
    install: StrOrNone = None
    port: PortOrNone = None


class KvVllm(_Model):
    vllm_args: ArgsOrNone = None
    env: EnvOrNone = None
    install: StrMapOrNone = None
    port: PortOrNone = None


class KvPdRole(_Model):
    args: ArgsOrNone = None


class KvPd(_Model):
    prefill: KvPdRole | None = None
    decode: KvPdRole | None = None


class MooncakeMaster(_Model):
    command: StrOrNone = None
    description: StrOrNone = None


class MooncakeStoreConfig(_Model):
    command: StrOrNone = None
    description: StrOrNone = None
    note: StrOrNone = None
    config: dict[str, ScalarValue] | None = None


class MooncakeVllmConfig(_Model):
    mode: StrOrNone = None
    note: StrOrNone = None
    template: dict[str, ScalarValue] | None = None


class KvStoreSpec(_Model):
    """`kv_store/<name>.yaml`: a Mooncake kv-store deployment."""

    name: StrictStr
    deploy_type: KvDeployType
    display_name: StrOrNone = None
    label: StrOrNone = None
    order: SafeIntOrNone = None
    description: StrOrNone = None
    router: KvRouter | None = None
    vllm: KvVllm | None = None
    pd: KvPd | None = None
    mooncake_master: MooncakeMaster | None = None
    mooncake_store_config: MooncakeStoreConfig | None = None
    mooncake_vllm_config: MooncakeVllmConfig | None = None
    min_vllm_version: StrOrNone = None
    default_instances: GpuCountOrNone = None


class Platform(_Model):
    id: StrictStr
    name: StrOrNone = None
    url: StrOrNone = None
    blurb: StrOrNone = None
    install: StrOrNone = None


class Platforms(_Model):
    """`platforms.yaml`."""

    platforms: list[Platform]


# ---- JSON Schema --------------------------------------------------------------------------------------


def recipe_json_schema() -> dict:
    """JSON Schema (2020-12) of a recipe file, for editors and `recipes-site schema`."""
    schema = Recipe.model_json_schema()
    out: dict[str, Any] = {
        "$schema": JSON_SCHEMA_DIALECT,
        "$id": SCHEMA_ID,
        "title": "vLLM serving recipe",
        "description": "A recipe file models/<hf_org>/<hf_repo>.yaml of a recipes-site catalogue.",
    }
    for key, value in schema.items():
        if key not in out:
            out[key] = value
    variants = out.get("properties", {}).get("variants")
    if isinstance(variants, dict):
        variants["required"] = ["default"]
    return _any_of(out)


def _any_of(node: Any) -> Any:
    """Our unions are chosen by the kind of the value, so their members never overlap -- except in
    JSON Schema, where an integer is also a "number": use anyOf instead of oneOf."""
    if isinstance(node, dict):
        return {("anyOf" if k == "oneOf" else k): _any_of(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_any_of(v) for v in node]
    return node
