"""JSON Schemas of the API documents, published under `api/v1/schema/` for CI consumers.

Written by hand rather than derived, because they are a contract: a change here is a
deliberate API change, and `tests/test_api_schemas.py` checks every written document.

Each schema is self-contained (shared parts are copied into its `$defs`, never referenced in
another file), so a consumer validates with `jsonschema.validate(doc, schema)` and no registry.
Its `$id` is the absolute URL it is served at (`<base_url>/api/v1/schema/<name>.schema.json`);
a preview build, which does not know its URL, writes no `$id` rather than a made-up one.
"""

from __future__ import annotations

from recipes_site.catalog.documents import PROJECT_ROOT

SCHEMA_DIR = "api/v1/schema"
# The recipe format's schema as `recipes-site schema` writes it from the pydantic models
# (catalog/types.py); tests/test_cli.py keeps the file byte-equal to their output.
RECIPE_SCHEMA_FILE = PROJECT_ROOT / "schema" / "recipe.schema.json"
STR, INT, BOOL, OBJ = (
    {"type": "string"},
    {"type": "integer"},
    {"type": "boolean"},
    {"type": "object"},
)
STR_OR_NULL = {"type": ["string", "null"]}
STR_LIST = {"type": "array", "items": STR}
ENV = {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean", "null"]}}
DEPLOY_TYPES = ["single_node", "multi_node", "pd_cluster", "kv_store_lb"]


def _obj(required: dict, optional: dict | None = None, closed: bool = True) -> dict:
    schema: dict = {
        "type": "object",
        "required": list(required),
        "properties": {**required, **(optional or {})},
    }
    if closed:
        schema["additionalProperties"] = False
    return schema


def _ref(name: str) -> dict:
    return {"$ref": f"#/$defs/{name}"}


PATH = {"type": "array", "items": {"type": ["string", "integer"]}, "minItems": 1}
PARTS = _obj(
    {
        "summary": STR,
        "processes": {
            "type": "array",
            "minItems": 1,
            "items": _obj(
                {
                    "id": STR,
                    "label": STR,
                    "path": PATH,
                    "docker_path": PATH,
                    "exports": STR,
                    "at": {"type": "integer", "minimum": 0},
                    "n": {"type": "integer", "minimum": 0},
                    "docker_at": {"type": "integer", "minimum": 0},
                }
            ),
        },
        "extras": {"type": "integer", "minimum": 0},
        "features": {"type": "integer", "minimum": 0},
        "features_locked": BOOL,
    }
)
FEATURE = _obj(
    {
        "name": STR,
        "label": STR,
        "description": STR,
        "default": {"type": ["boolean", "string"]},
        "modes": {
            "type": ["array", "null"],
            "items": _obj({"name": STR, "label": STR, "description": STR, "lines": STR_LIST}),
        },
        "lines": {"type": ["array", "null"], "items": STR},
    }
)
EXTRA = {
    "type": "object",
    "required": ["id", "label"],
    "additionalProperties": False,
    "properties": {"id": STR, "label": STR, "text": STR, "prefix": STR, "path": PATH},
}
NUM = {"type": "number"}
# fit.window_terms: the windowed KV cache groups, as plans and kv_sizing entries publish them
WINDOW_TERMS = {
    "type": "array",
    "items": _obj(
        {
            "window": {"type": "integer", "minimum": 1},
            "tokens": {"type": "integer", "minimum": 0},
            "block_size": {"type": "integer", "minimum": 1},
            "block_bytes": {"type": "integer", "minimum": 0},
            "extra_blocks": {"type": "integer", "minimum": 0},
            "bytes_per_token": {"type": "number"},
        }
    ),
}
# plan.plan_of: what one rendering asks of the machine, in GiB (every figure shown beside a command)
ONE_PLAN = _obj(
    {
        "gpus": {"type": "integer", "minimum": 1},
        "tp": {"type": "integer", "minimum": 1},
        "budget_gib_per_gpu": NUM,
        "overhead_gib_per_gpu": NUM,
    },
    {
        "nodes": {"type": "integer", "minimum": 2},
        "pp": {"type": "integer", "minimum": 2},
        "dp": {"type": "integer", "minimum": 2},
        "ep": {"const": True},
        "weights_gib": NUM,
        "weights_gib_per_gpu": NUM,
        "kv_cache_bytes_per_gpu": {"type": "integer", "minimum": 0},
        "kv_bytes_per_token_per_gpu": NUM,
        "max_tokens": {"type": "integer", "minimum": 0},
        "concurrency": {"type": "integer", "minimum": 0},
        "context_length": {"type": "integer", "minimum": 1},
        "block_size": {"type": "integer", "minimum": 1},
        "kv_bytes_per_block_per_gpu": {"type": "integer", "minimum": 0},
        "null_block_bytes": {"type": "integer", "minimum": 0},
        "windows_per_gpu": WINDOW_TERMS,
        "prefill_chunk": {"type": "integer", "minimum": 0},
        "draft": STR,
        "state_bytes_per_sequence_per_gpu": {"type": "integer", "minimum": 1},
        "verdict": {"enum": ["fits", "over", "no_kv", "short", "refused"]},
        "refusal": STR,
    },
)
# plan.plan_json: the plan as rendered, per feature state that changes memory, and the replica parts
RENDERING_PLAN = _obj(
    {"default": ONE_PLAN},
    {
        "keys": STR_LIST,
        "by": {"type": "object", "additionalProperties": ONE_PLAN},
        "replicas": _obj(
            {
                "replicas": {
                    "type": "array",
                    "minItems": 2,
                    "items": _obj(
                        {
                            "gpus": STR,
                            "label": STR,
                            "port": {"type": "integer", "minimum": 1, "maximum": 65535},
                        }
                    ),
                },
                "serve_prefix": STR,
                "docker_head": STR,
                "suffix": STR,
            }
        ),
    },
)
REPLICA = _obj(
    {"gpus": STR, "label": STR, "port": {"type": "integer", "minimum": 1, "maximum": 65535}}
)
# gpu_counts.rendering_layouts: the rendering on the reader's GPU count. The command of count N is
# the rendering's, its argument lines edited: line `tp_at` (negative: from the end) becomes
# "--tensor-parallel-size <tensor_parallel_size>", the last `tail` lines give way to the count's
# `lines`; `replicas` > 1 copies run as plan.replicas does (the first `replicas` entries of the
# document's gpu_replicas[<tensor_parallel_size>], these templates or the plan's `replicas` ones).
GPU_LAYOUT = _obj(
    {
        "tensor_parallel_size": {"type": ["integer", "null"], "minimum": 1},
        "replicas": {"type": "integer", "minimum": 0},
        "fits": BOOL,
        "reason": STR,
    },
    {"lines": STR_LIST, "max_model_len": {"type": "integer", "minimum": 1}},
)
GPU_LAYOUTS = _obj(
    {
        "tp_at": INT,
        "tail": {"type": "integer", "minimum": 0},
        "counts": {
            "type": "object",
            "minProperties": 1,
            "propertyNames": {"pattern": "^[1-9][0-9]*$"},
            "additionalProperties": GPU_LAYOUT,
        },
    },
    {
        "serve_prefix": STR,
        "docker_head": STR,
        "suffix": STR,
        # `recipes-site command --gpus N --json` only: each copy's command, joined
        "replica_commands": {
            "type": "array",
            "items": _obj(
                {
                    "gpus": STR,
                    "label": STR,
                    "port": {"type": "integer", "minimum": 1, "maximum": 65535},
                    "command": STR,
                }
            ),
        },
    },
)
HEAD = {
    "hardware": STR,
    "strategy": STR,
    "variant": STR,
    "node_count": {"type": "integer", "minimum": 1},
    "deploy_type": {"enum": DEPLOY_TYPES},
    "env": ENV,
}
# speed_layouts.published: concurrency levels, then [low, high] per level (tokens/s per request and
# in total) and per prompt of speed.TTFT_PROMPTS (ms)
NUMS = {"type": "array", "items": NUM}
SPEED_FIGURES = {
    "c": {"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 1},
    "user": NUMS,
    "total": NUMS,
    "ttft_ms": NUMS,
}
SPEED = _obj(SPEED_FIGURES)
# speed_layouts.node_layouts: one node filled with replicas of each TP from the smallest that starts
NODE_LAYOUTS = _obj(
    {
        "min_gpus": {"type": "integer", "minimum": 1},
        "replicas_per_node": {"type": "integer", "minimum": 1},
        "layouts": {
            "type": "array",
            "minItems": 1,
            "items": _obj(
                {
                    "tp": {"type": "integer", "minimum": 1},
                    "replicas": {"type": "integer", "minimum": 1},
                    **SPEED_FIGURES,
                }
            ),
        },
    }
)
SPEED_CALIBRATION = _obj(
    {"points": {"type": "integer", "minimum": 1}, "median_error": NUM, "worst_error": NUM}
)
DOCKER_IMAGE = {
    "docker_image": STR,
    "parts": PARTS,
    "notes": STR_LIST,
    "plan": RENDERING_PLAN,
    "gpus": GPU_LAYOUTS,
    "speed": SPEED,
    # the shell variables to set before pasting (rendering_json.user_variables)
    "user_variables": STR_LIST,
}
POOL = _obj(
    {
        "command": STR,
        "argv": STR_LIST,
        "env": ENV,
        "nodes": INT,
        "parallelism": STR,
        "tp": INT,
        "dpLocal": INT,
        "dpSize": INT,
        "poolGpus": INT,
        "currentNode": INT,
        "startRank": INT,
        "docker_command": STR,
        "docker_argv": STR_LIST,
    }
)

POOL_WORKER = _obj(
    {
        "node": {"type": "integer", "minimum": 2},
        "command": STR,
        "argv": STR_LIST,
        "env": ENV,
        "docker_command": STR,
        "docker_argv": STR_LIST,
    }
)


def _workers(prefix: str, nullable: bool) -> dict:
    lst = {"type": ["array", "null"] if nullable else "array"}
    return {
        f"{prefix}worker_command": STR_OR_NULL,
        f"{prefix}worker_commands": {**lst, "items": STR},
        f"{prefix}worker_argv": {"type": ["array", "null"], "items": STR},
        f"{prefix}worker_argvs": {**lst, "items": STR_LIST},
        f"{prefix}worker_docker_command": STR_OR_NULL,
        f"{prefix}worker_docker_commands": {**lst, "items": STR},
        f"{prefix}worker_docker_argv": {"type": ["array", "null"], "items": STR},
        f"{prefix}worker_docker_argvs": {**lst, "items": STR_LIST},
    }


RENDERING = {
    "oneOf": [
        _obj(
            {
                **HEAD,
                "deploy_type": {"const": "single_node"},
                "command": STR,
                "argv": STR_LIST,
                "docker_command": STR,
                "docker_argv": STR_LIST,
            },
            DOCKER_IMAGE,
        ),
        _obj(
            {
                **HEAD,
                "deploy_type": {"const": "multi_node"},
                "head_command": STR,
                "head_argv": STR_LIST,
                "head_docker_command": STR,
                "head_docker_argv": STR_LIST,
                **_workers("", False),
            },
            DOCKER_IMAGE,
        ),
        _obj(
            {
                **HEAD,
                "deploy_type": {"const": "pd_cluster"},
                "prefill": POOL,
                "decode": POOL,
                "router": _obj({"command": STR, "install": STR}),
                "router_config": {"type": ["object", "null"]},
                # rendering_json: the other nodes (2..N) of a pool on several nodes
                "pool_workers": _obj(
                    {
                        "prefill": {"type": "array", "items": POOL_WORKER},
                        "decode": {"type": "array", "items": POOL_WORKER},
                    }
                ),
            },
            DOCKER_IMAGE,
        ),
        _obj(
            {
                **HEAD,
                "deploy_type": {"const": "kv_store_lb"},
                "serving_strategy": STR,
                "kv_min_vllm_version": STR_OR_NULL,
                "instances": INT,
                "vllm_command": STR,
                "vllm_argv": STR_LIST,
                **_workers("vllm_", True),
                "vllm_install": STR_OR_NULL,
                "vllm_docker_command": STR,
                "vllm_docker_argv": STR_LIST,
                "master": {"type": ["object", "null"]},
                "store": {"type": ["object", "null"]},
                "router": {
                    "oneOf": [
                        {"type": "null"},
                        _obj(
                            {
                                "command": STR,
                                "install": STR_OR_NULL,
                                "port": {"type": ["integer", "null"]},
                            }
                        ),
                    ]
                },
                "mooncake_config": {"type": ["object", "null"]},
                "mooncake_config_note": STR_OR_NULL,
            },
            DOCKER_IMAGE,
        ),
    ]
}

PICK = _obj({"variant": STR, "strategy": STR, "node_count": INT})
# render/compare.py: [low, high] output tokens/s per GPU of the speed estimate
TPS_RANGE = {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}
INDICES = {"type": "array", "items": {"type": "integer", "minimum": 0}}
COMPARE_ENTRY = _obj(
    {
        "variant": STR,
        "strategy": STR,
        "nodes": INT,
        "gpus": INT,
        "replicas_per_node": INT,
        "env": INDICES,  # into `lines`
        "cmd": INDICES,
    },
    {
        "tp": INT,
        "kv_tokens": INT,
        "verdict": {"enum": ["fits", "over", "no_kv", "short"]},
        "max_concurrency": INT,  # requests of `workload` tokens the KV caches hold at once
        "est": TPS_RANGE,
        "est_c": INT,  # the concurrency `est` is at
        "board_w": {"type": "number"},  # the profile's power_watts x gpus
        "measured": _obj(
            {"tps": {"type": "number"}, "gpus": INT, "label": STR, "by": STR, "name": STR},
            {
                "c": INT,
                "input_len": INT,
                "output_len": INT,
                "url": STR,
                "avg_w": {"type": "number"},  # measured average power x gpus
            },
        ),
    },
)
COMPARE = _obj(
    {
        "workload": _obj({"prompt_tokens": INT, "output_tokens": INT}),
        "sep": STR,
        "lines": STR_LIST,
        "benchmarks": STR_OR_NULL,
        "variants": {
            "type": "object",
            "additionalProperties": {"type": "object", "additionalProperties": COMPARE_ENTRY},
        },
    }
)
PROFILE = {
    "type": "object",
    "required": ["brand", "gpu_count", "vram_gb"],
    "properties": {
        "brand": STR,
        "generation": {"type": ["string", "array"]},
        "display_name": STR,
        "gpu_count": INT,
        "vram_gb": {"type": "number"},
        "memory_reported_mib": INT,
        "memory_total_gib": {"type": "number"},
        "memory_source": STR,
        "compute_capability": STR,
        # the facts that decide speed (taxonomy.yaml cites each in `sources`)
        "memory_bandwidth_gbps": {"type": "number"},
        "tflops": {
            "type": "object",
            "additionalProperties": False,
            "properties": {k: {"type": "number"} for k in ("bf16", "fp8", "fp4", "int8")},
        },
        "interconnect": {
            "type": "object",
            "additionalProperties": False,
            "required": ["kind"],
            "properties": {"kind": STR, "gbps": {"type": "number"}},
        },
        "precisions": {
            "type": "object",
            "additionalProperties": False,
            "required": ["native"],
            "properties": {"native": STR_LIST, "weight_only": STR_LIST},
        },
        # one accelerator's board power (W), cited in sources.power_watts
        "power_watts": {"type": "number"},
        "sources": {"type": "object", "additionalProperties": STR},
    },
}
FIT = _obj(
    {
        "fits_one_gpu": BOOL,
        "fits_one_node": BOOL,
        "min_gpus": INT,
        "tensor_parallel": {"type": ["integer", "null"]},
        "replicas_per_node": INT,
        "nodes_needed": INT,
    }
)
NUM_OR_NULL = {"type": ["number", "null"]}
SIZING = _obj(
    {
        "computed_vram_gb": NUM_OR_NULL,
        "declared_vram_gb": NUM_OR_NULL,
        "basis_gb": NUM_OR_NULL,
        "hardware": {"type": "object", "additionalProperties": FIT},
    }
)
# `unchecked_shell`: the recipe's own shell, outside the install grammar (catalog/shell_policy.py)
UNCHECKED = {"type": ["boolean", "null"]}
INSTALL_STEP = _obj({"command": STR}, {"note": STR, "unchecked_shell": {"const": True}})
DEPENDENCY = _obj({}, {"command": STR_OR_NULL, "unchecked_shell": UNCHECKED}, closed=False)
INT_OR_NULL = {"type": ["integer", "null"]}
NONNEG = {"type": "integer", "minimum": 0}
POS = {"type": "integer", "minimum": 1}
# render/host_memory_api.py: distinct figure rows, one index per rendering (null: no figure);
# an offload option's row [config_bytes, per_gpu_bytes, per_node_bytes, total_bytes], a
# kv-store's [per_gpu_bytes, per_node_bytes, total_bytes]
HOST_MEMORY = _obj(
    {
        "rows": {
            "type": "array",
            "items": {
                "type": "object",
                "minProperties": 1,
                "additionalProperties": {
                    "type": "array",
                    "items": NONNEG,
                    "minItems": 3,
                    "maxItems": 4,
                },
            },
        },
        "renderings": {"type": "array", "items": {"type": ["integer", "null"], "minimum": 0}},
    }
)
HOST_TIER = {
    "anyOf": [
        {"type": "null"},
        _obj({"key": STR, "per": {"enum": ["rank", "engine"]}, "floor_bytes": NONNEG}),
    ]
}
KV_STORE_HOST = _obj(
    {
        "mode": STR,
        "segment_bytes": NONNEG,
        "local_buffer_bytes": NONNEG,
        "store_segment_bytes": {"type": ["integer", "null"], "minimum": 0},
        "per_gpu_bytes": NONNEG,
    }
)
# fit.Overhead.as_dict: the parts of overhead_gib_per_gpu (GiB) and the scheduler limits they assume
OVERHEAD_BREAKDOWN = _obj(
    {
        "non_torch_gib": {"type": "number", "minimum": 0},
        "activations_gib": {"type": "number", "minimum": 0},
        "sampler_gib": {"type": "number", "minimum": 0},
        "cuda_graphs_gib": {"type": "number", "minimum": 0},
        "weights_padding_gib": {"type": "number", "minimum": 0},
        "moe_workspace_gib": {"type": "number", "minimum": 0},
        "max_num_batched_tokens": NONNEG,
        "max_num_seqs": NONNEG,
        "total_gib": {"type": "number", "minimum": 0},
    }
)
# fit.panel_entry: one rendering's memory budget per GPU and the numbers of the page formulas
KV_DEPLOYMENT = _obj(
    {
        "strategy": STR,
        "node_count": POS,
        "variant": STR,
        "tp": POS,
        "pp": POS,
        "dp": POS,
        "expert_parallel": BOOL,
        "kv_cache_dtype": STR,
        "gpu_memory_utilization": {"type": "number", "exclusiveMinimum": 0},
        "vram_gib_per_gpu": {"type": "number"},
        "memory_total_gib_per_gpu": {"type": "number"},
        "budget_gib_per_gpu": {"type": "number"},
        "weights_gib_per_gpu": NUM_OR_NULL,
        "overhead_gib_per_gpu": {"type": "number", "minimum": 0},
        "overhead_breakdown": OVERHEAD_BREAKDOWN,
        "vllm_version": STR,
        "kv_cache_gib_per_gpu": NUM_OR_NULL,
        "kv_cache_bytes_per_gpu": {"type": ["integer", "null"], "minimum": 0},
        "kv_bytes_per_token": INT_OR_NULL,
        "kv_bytes_per_sequence_window": INT_OR_NULL,
        "kv_bytes_per_token_per_gpu": NUM_OR_NULL,
        "block_size": POS,
        "kv_bytes_per_block_per_gpu": NONNEG,
        "null_block_bytes": NONNEG,
        "windows_per_gpu": WINDOW_TERMS,
        "prefill_chunk": NONNEG,
        "context_length": INT_OR_NULL,
        "evaluated_len": INT_OR_NULL,
        "max_tokens": INT_OR_NULL,
        "max_concurrency": INT_OR_NULL,
        "max_model_len": INT_OR_NULL,
        "safe_max_model_len": INT_OR_NULL,
        "context_fits": {"type": ["boolean", "null"]},
        "missing_facts": STR_LIST,
        "notes": STR_LIST,
    },
    {"state_bytes_per_sequence_per_gpu": POS},
)  # linear-attention / Mamba state per request (kv_cache.py)
KV_SIZING = {
    "type": "object",
    "additionalProperties": {
        "type": "object",
        "additionalProperties": _obj(
            {"deployments": {"type": "array", "minItems": 1, "items": KV_DEPLOYMENT}}
        ),
    },
}

DOCUMENTS: dict[str, dict] = {
    "rendering": RENDERING,
    "models": _obj(
        {
            "models": {
                "type": "array",
                "items": _obj(
                    {
                        "id": STR,
                        "title": STR_OR_NULL,
                        "provider": STR_OR_NULL,
                        "description": STR_OR_NULL,
                        "tasks": STR_LIST,
                        "architecture": STR_OR_NULL,
                        "parameter_count": STR_OR_NULL,
                        "active_parameters": STR_OR_NULL,
                        "context_length": {"type": ["integer", "null"]},
                        "precisions": STR_LIST,
                        "min_vllm_version": STR_OR_NULL,
                        "date_added": STR_OR_NULL,
                        "date_updated": STR_OR_NULL,
                        "hardware": STR_LIST,
                        "verified_hardware": STR_LIST,
                        "links": _obj({"page": STR, "json": STR, "huggingface": STR}),
                    },
                    {
                        # the smallest layout that fits (comfortably where one does): runs_on.py
                        "smallest_fit": _obj(
                            {
                                "hardware": STR,
                                "gpus": {"type": "integer", "minimum": 1},
                                "variant": STR,
                                "precision": STR_OR_NULL,
                                # null: a GPU count's layout, headroom unpublished
                                "comfortable": {"type": ["boolean", "null"]},
                            }
                        )
                    },
                ),
            },
            "checkpoints": {
                "type": "array",
                "items": _obj(
                    {"id": STR, "recipe": STR, "variant": STR, "json": STR, "huggingface": STR}
                ),
            },
        }
    ),
    "model": _obj(
        {
            "id": STR,
            "recipe": {"type": "object", "required": ["meta"]},
            "install": _obj(
                {},
                {
                    "pip": INSTALL_STEP,
                    "docker": INSTALL_STEP,
                    "extras": {"type": "array", "items": DEPENDENCY},
                },
            ),
            "default_hardware": {"type": "object", "additionalProperties": STR},
            "checkpoints": {"type": "object", "additionalProperties": STR},
            "hardware": {"type": "object", "additionalProperties": STR},
            "sizing": {"type": "object", "additionalProperties": SIZING},
        },
        {
            "kv_sizing": KV_SIZING,
            # render/compare.py: per variant tree and hardware, the compare page's column
            "compare": COMPARE,
            # variant -> profile id -> why its precision keeps it off that profile
            "unavailable_hardware": {
                "type": "object",
                "additionalProperties": {"type": "object", "additionalProperties": STR},
            },
        },
    ),
    "model-hardware": _obj(
        {
            "recipe": STR,
            "hardware": STR,
            "hardware_profile": PROFILE,
            # the vLLM release every rendering's plan models (recipes_site.data.VLLM_VERSION)
            "vllm_version": STR,
            "recommended": {"type": "object", "minProperties": 1, "additionalProperties": PICK},
            "renderings": {"type": "array", "minItems": 1, "items": _ref("rendering")},
            "feature_sets": {"type": "array", "items": {"type": "array", "items": FEATURE}},
            "extra_sets": {"type": "array", "items": {"type": "array", "items": EXTRA}},
        },
        # gpu_counts.replica_sets: per TP size, the replicas that fill the node
        {
            "gpu_replicas": {
                "type": "object",
                "additionalProperties": {"type": "array", "items": REPLICA},
            },
            # per variant: one big instance or many small replicas (speed_layouts.node_layouts)
            "layouts": {"type": "object", "additionalProperties": NODE_LAYOUTS},
            "speed_calibration": SPEED_CALIBRATION,
            # render/host_memory_api.py: host memory of the KV-offload tiers and kv-store segments
            "host_memory": HOST_MEMORY,
        },
    ),
    # monitoring.document: a rendering's rules file (YAML) and Grafana dashboard (JSON) are texts,
    # each a list of `lines` indexes joined by newlines (monitoring.entry)
    "model-monitoring": {
        **_obj(
            {
                "recipe": STR,
                "vllm_version": STR,
                "lines": STR_LIST,
                "texts": {"type": "array", "items": {"type": "array", "items": NONNEG}},
                "renderings": {
                    "type": "object",
                    "propertyNames": {"pattern": "^[^/]+/.+/[^/]+/[0-9]+$"},
                    "additionalProperties": _obj(
                        {"prometheus_rules": NONNEG, "grafana_dashboard": NONNEG}
                    ),
                },
            }
        ),
        "description": "Keyed by <hardware>/<variant>/<strategy>/<node_count>. Each field of a "
        "rendering is an index of texts; a text is lines[j] for each j of it, joined by newlines: "
        "prometheus_rules a Prometheus rules file (YAML), grafana_dashboard a Grafana dashboard "
        "(JSON, classic model).",
    },
    "hardware-index": _obj(
        {
            "hardware": {
                "type": "array",
                "items": {
                    "allOf": [
                        PROFILE,
                        {
                            "type": "object",
                            "required": ["id", "models", "json"],
                            "properties": {"id": STR, "models": INT, "json": STR},
                        },
                    ]
                },
            }
        }
    ),
    # api.hardware_pages: page k of `pages`, `total` entries in all; walk `next` until null
    "hardware": _obj(
        {
            "hardware": STR,
            "profile": PROFILE,
            "page": POS,
            "pages": POS,
            "total": NONNEG,
            "prev": STR_OR_NULL,
            "next": STR_OR_NULL,
            "models": {
                "type": "array",
                "items": _obj(
                    {
                        "recipe": STR,
                        "variant": STR,
                        "model_id": STR,
                        "strategy": STR,
                        "node_count": INT,
                        "deploy_type": {"enum": DEPLOY_TYPES},
                        "env": ENV,
                        "command": STR_OR_NULL,
                        "json": STR,
                    },
                    # the recommended command's plan verdict (plan.py), absent when unknown
                    {
                        "verdict": {"enum": ["fits", "over", "no_kv", "short"]},
                        # render/compare.py listing_figures: its layout and tokens/s per GPU
                        "gpus": INT,
                        "tp": INT,
                        "est_tps_per_gpu": TPS_RANGE,
                        "measured_tps_per_gpu": {"type": "number"},
                    },
                ),
            },
        }
    ),
    # benchmark_docs.benchmarks_doc: a model's measured results with their provenance
    "model-benchmarks": _obj(
        {
            "model": STR,
            "results": {
                "type": "array",
                "items": _obj(
                    {
                        "hardware": STR,
                        "name": STR,
                        "label": {"enum": ["published", "community", "verified"]},
                        "run_by": STR,
                        "date": STR,
                        "vllm_version": STR,
                        "variant": STR,
                        "workload": _obj({"dataset": STR}, {"input_len": POS, "output_len": POS}),
                        "model_id": STR,
                        "metrics": {
                            "type": "object",
                            "additionalProperties": {"type": ["number", "string", "null"]},
                        },
                        "rendered_command": STR_OR_NULL,
                        "differences": STR_LIST,
                    },
                    {
                        "published_by": STR,
                        "source_url": STR,
                        "excerpt": STR,
                        "terms": STR,
                        "image": STR,
                        "image_digest": STR,
                        "strategy": STR,
                        "gpus": POS,
                        "command": STR,
                        "bench_command": STR,
                    },
                ),
            },
        }
    ),
    # search.shard_doc: records in name order from `start`, each an array in the order of `fields`
    "search-shard": _obj(
        {
            "shard": NONNEG,
            "start": NONNEG,
            "fields": STR_LIST,
            "records": {"type": "array", "items": {"type": "array"}},
        }
    ),
    # advanced.picker_options_doc: the model page's on-demand options as command pieces
    "picker-options": _obj(
        {
            "vllm_version": STR,
            "layout_reason": STR,
            "kv_offload": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["id", "label", "lines", "size", "exports", "docker_env", "tab"],
                    "properties": {
                        "id": STR,
                        "label": STR,
                        "lines": STR_LIST,
                        "docker_env": STR_LIST,
                        "exports": {"type": "string"},
                        "size": HOST_TIER,
                        # kv_offload._staging: a staging tier's fixed size, for the page's note
                        "staging": HOST_TIER,
                    },
                },
            },
            "max_model_len_auto": _obj(
                {"label": STR, "line": STR, "replaces": STR, "description": STR}
            ),
            "images": {
                "type": "object",
                "additionalProperties": {
                    "type": "array",
                    "items": {"type": "array", "items": STR, "minItems": 2, "maxItems": 2},
                },
            },
            "pinned": STR,
            "locked_reason": STR,
            "k8s_note": STR,
            "kv_stores": {
                "type": "object",
                "additionalProperties": _obj(
                    {
                        "default": NONNEG,
                        "routers": {
                            "type": "array",
                            "items": {"type": ["string", "null"]},
                        },
                        # host_memory.kv_store_sizes: what each vLLM GPU registers
                        "host": KV_STORE_HOST,
                    },
                    # advanced.pd_pieces: the store joined into prefill/decode pools
                    {
                        "pd": _obj(
                            {
                                "label": STR,
                                "description": STR,
                                "lines": {"type": "object", "additionalProperties": STR_LIST},
                                "exports": STR,
                                "docker_env": STR_LIST,
                                "install": {"type": "object", "additionalProperties": STR},
                                "tabs": {
                                    "type": "array",
                                    "items": _obj({"id": STR, "label": STR, "text": STR}),
                                },
                            }
                        )
                    },
                ),
            },
        }
    ),
    # search.header_doc: what the header search dropdown reads before and while typing
    "search-header": _obj(
        {
            "total": NONNEG,
            "latest": {
                "type": "array",
                "items": _obj({"id": STR, "title": STR, "sub": STR}),
            },
            "providers": {"type": "array", "items": {"type": "array"}},
            "tasks": {"type": "array", "items": {"type": "array"}},
            "hardware": {"type": "object", "additionalProperties": STR},
            "shards": STR_LIST,
        }
    ),
    # search.id_buckets: lower-cased recipe, checkpoint or organisation id -> its page
    "search-ids": _obj({"ids": {"type": "object", "additionalProperties": STR}}),
    "strategies": _obj(
        {
            "strategies": {
                "type": "object",
                "additionalProperties": {"type": "object", "required": ["name", "deploy_type"]},
            }
        }
    ),
    # render/kubernetes_api.py: texts are line indexes, joined with "\n"
    "model-kubernetes": _obj(
        {
            "recipe": STR,
            "vllm_version": STR,
            "leaderworkerset_api": STR,
            "helm_chart": _obj({"name": STR, "version": STR, "repository": STR}),
            "lines": STR_LIST,
            "texts": {"type": "array", "items": {"type": "array", "items": NONNEG}},
            "prerequisites": STR_LIST,
            "renderings": {
                "type": "object",
                "propertyNames": {"pattern": "^[^/]+/[^/]+/[^/]+/[0-9]+$"},
                "additionalProperties": _obj(
                    {"prerequisites": {"type": "array", "items": NONNEG}},
                    {"manifests": NONNEG, "helm_values": NONNEG},
                ),
            },
        }
    ),
    "taxonomy": {
        "type": "object",
        "required": ["hardware_profiles"],
        "properties": {"hardware_profiles": {"type": "object", "additionalProperties": PROFILE}},
    },
}


# render/verify_json.py: curl, bench sweep and tuning table of every rendering of one recipe
_IDX = {"type": "integer", "minimum": 0}
_IDX_LIST = {"type": "array", "items": _IDX}
_TUNE_KEYS = ["u", "m", "t", "L", "d"]
VERIFY_TUNE = _obj(
    {
        "v": _IDX,
        "at": _obj({k: _IDX for k in _TUNE_KEYS}),
        "c": POS,
        "w": {"type": "array", "minItems": 1, "items": NUM},
        "o": {"type": "array", "items": {"type": "array", "items": NUM}},
        "k": {"type": "array", "items": {"type": "array", "items": _IDX_LIST}},
    },
    {"dw": {"type": "array", "items": NUM}},
)
VERIFY_RENDERING = _obj(
    {"curl": _IDX},
    {
        "bench": {"type": "array", "items": _IDX, "minItems": 2, "maxItems": 2},
        "levels": {"type": "array", "minItems": 1, "items": POS},
        "bound": {"enum": ["max_num_seqs", None]},
        "input_len": POS,
        "output_len": POS,
        "tune": VERIFY_TUNE,
    },
)
DOCUMENTS["model-verify"] = _obj(
    {
        "recipe": STR,
        "vllm_version": STR,
        "notes": _obj({k: STR for k in ("curl", "bench", "no_bench", "no_tune", "plan")}),
        "rows": {
            "type": "array",
            "items": _obj(
                {
                    "key": {"enum": _TUNE_KEYS},
                    "flag": STR,
                    "default": STR,
                    "meaning": STR,
                    "direction": STR,
                    "source": STR,
                    "names": STR_LIST,
                }
            ),
        },
        "lines": _obj({k: {"type": "object", "additionalProperties": STR} for k in _TUNE_KEYS}),
        "input_len": POS,
        "output_len": POS,
        "values": {
            "type": "array",
            "items": _obj(
                {
                    k: {"type": "array", "minItems": 1, "items": {"type": ["number", "string"]}}
                    for k in _TUNE_KEYS
                }
            ),
        },
        "texts": STR_LIST,
        "kv": {
            "type": "array",
            "items": {"type": "object", "required": ["kv_bytes_per_token_per_gpu"]},
        },
        "hardware": {
            "type": "object",
            "additionalProperties": _obj(
                {
                    "r": NUM,
                    "m0": POS,
                    "renderings": {"type": "object", "additionalProperties": VERIFY_RENDERING},
                }
            ),
        },
    }
)

# render/pd_json.py: every pool layout of the PD renderings, as indices into `texts` and `heads`
PD_NODE = {  # [head, serve lines (changes of the first node's, after it), at, n]
    "type": "array",
    "minItems": 4,
    "maxItems": 4,
    "prefixItems": [
        _IDX,
        {"type": "array", "items": {"anyOf": [_IDX, {"type": "array"}]}},
        _IDX,
        _IDX,
    ],
}
PD_OPTION = _obj(
    {},
    {
        "default": {"const": True},
        "declared": {"const": True},
        "why": _IDX,  # a layout that cannot start: plan.py's reason
        "procs": {"type": "array", "minItems": 1, "items": PD_NODE},
        "ends": _IDX_LIST,
        "vars": _IDX_LIST,
        "dp_local": POS,
        "tokens": NONNEG,
        "layout": _IDX,
        "plan": {"type": "object"},  # a decode option's plan, as changes of the rendering's
        # per feature state with a plan of its own: its changes of the option's plan
        "by": {"type": "object", "additionalProperties": {"type": "object"}},
    },
)
PD_ROLE = _obj(
    {
        "nodes": {"type": "array", "items": NONNEG, "minItems": 1},
        "gpus": {"type": "array", "items": NONNEG},
        "used": {"type": "array", "items": NUM},
        "modes": {"type": "array", "items": {"enum": ["tp", "tep", "dep"]}, "minItems": 1},
        "lead": _IDX_LIST,
        "options": {"type": "array", "items": PD_OPTION},
    }
)
DOCUMENTS["model-pd-topology"] = _obj(
    {
        "texts": STR_LIST,
        "heads": {
            "type": "array",
            "items": {"type": "array", "items": _IDX_LIST, "minItems": 2, "maxItems": 2},
        },
        "labels": {
            "type": "object",
            "additionalProperties": {
                "anyOf": [STR, {"type": "object", "additionalProperties": STR}]
            },
        },
        "renderings": {
            "type": "object",
            "propertyNames": {"pattern": "^[^/]+/[^/]+/[^/]+/[0-9]+$|^r$"},
            "additionalProperties": _obj(
                {
                    "prefill": PD_ROLE,
                    "decode": PD_ROLE,
                    "router": _obj(
                        {
                            "head": _IDX_LIST,
                            "tail": _IDX_LIST,
                            "intra": STR_OR_NULL,
                            "prefix": _IDX,
                            "fixed": _IDX_LIST,
                        }
                    ),
                    "summary": {"type": "array", "items": _IDX, "minItems": 2, "maxItems": 2},
                },
                {
                    "states": {"type": "object", "additionalProperties": {"type": "object"}},
                    # `recipes-site command` of the rendering up to its pool flags (quoted)
                    "cli": _IDX,
                },
            ),
        },
    }
)
# render/inputs.deploy_doc_path: the parts above in one per-model document (each also published as
# a schema of its own, for a consumer that reads one part)
DOCUMENTS["model-deploy"] = _obj(
    {
        "recipe": STR,
        "kubernetes": DOCUMENTS["model-kubernetes"],
        "monitoring": DOCUMENTS["model-monitoring"],
    },
    {"verify": DOCUMENTS["model-verify"], "pd_topology": DOCUMENTS["model-pd-topology"]},
)

# what a document schema's `#/$defs/<name>` references point to (copied in, see the module docstring)
DEFS = {"rendering": RENDERING}


def _refs(node) -> set[str]:
    if isinstance(node, dict):
        found = (
            {node["$ref"][len("#/$defs/") :]}
            if str(node.get("$ref", "")).startswith("#/$defs/")
            else set()
        )
        return found.union(*(_refs(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_refs(v) for v in node))
    return set()


def schema_url(base_url: str, name: str) -> str:
    return f"{base_url.rstrip('/')}/{SCHEMA_DIR}/{name}.schema.json"


def schema_for(name: str, base_url: str | None = None) -> dict:
    """The schema of one document type; `$id` = where it is served when the base URL is known."""
    body = DOCUMENTS[name]
    head = {"$schema": "https://json-schema.org/draft/2020-12/schema"}
    if base_url:
        head["$id"] = schema_url(base_url, name)
    used = sorted(_refs(body))
    return {
        **head,
        "title": f"recipes-site API: {name}",
        **body,
        **({"$defs": {n: DEFS[n] for n in used}} if used else {}),
    }


def schema_name_for_path(rel: str) -> str | None:
    """Which schema a written API document must satisfy, from its path."""
    parts = rel.split("/")
    if parts[:2] != ["api", "v1"] or parts[2] == "schema":
        return None
    tail = parts[2:]
    if tail == ["models.json"]:
        return "models"
    if tail == ["hardware.json"]:
        return "hardware-index"
    if tail == ["picker-options.json"]:
        return "picker-options"
    if tail in (["strategies.json"], ["taxonomy.json"]):
        return tail[0][:-5]
    if tail[0] == "hardware":
        return "hardware"
    if tail[0] == "search" and len(tail) == 2:
        if tail[1] == "header.json":
            return "search-header"
        return "search-ids" if tail[1].startswith("ids-") else "search-shard"
    if tail[0] == "models" and len(tail) == 4 and tail[-1] == "deploy.json":
        return "model-deploy"
    if tail[0] == "models":
        if len(tail) == 4 and tail[-1] == "benchmarks.json":
            return "model-benchmarks"
        return "model-hardware" if len(tail) >= 5 and tail[-2] == "hw" else "model"
    return None


def all_schemas(base_url: str | None = None) -> dict[str, dict]:
    return {f"{SCHEMA_DIR}/{name}.schema.json": schema_for(name, base_url) for name in DOCUMENTS}


def recipe_schema_bytes() -> bytes | None:
    """RECIPE_SCHEMA_FILE's bytes, None when it is missing: what a build publishes as the recipe
    schema (build._recipe_schema) and what the cache's shared fingerprint covers."""
    try:
        return RECIPE_SCHEMA_FILE.read_bytes()
    except OSError:
        return None


def published_schemas(base_url: str | None, recipe_schema: dict) -> dict[str, dict]:
    """Every schema the build writes: the API documents' and the recipe format's, each with the
    `$id` of its served URL (none in a preview build; the recipe schema's editor `$id` is dropped)."""
    recipe = {k: v for k, v in recipe_schema.items() if k != "$id"}
    if base_url:
        recipe = {
            "$schema": recipe.get("$schema"),
            "$id": schema_url(base_url, "recipe"),
            **{k: v for k, v in recipe.items() if k != "$schema"},
        }
    return {**all_schemas(base_url), f"{SCHEMA_DIR}/recipe.schema.json": recipe}
