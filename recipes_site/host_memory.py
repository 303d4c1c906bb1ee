"""Host memory a KV tier takes: the KV-offload options' host tier and the Mooncake kv-store's
registered segment, per GPU, per node and in total, from a rendering's plan (plan.py).

This is the one place the sizing rule lives; render/kv_offload.py publishes its inputs for the
model page (`size`, whose arithmetic templates/static/more.js `bytes()` repeats on the page's
plan), and `recipes-site command/fit --kv-offload` print its results.

**Offload tiers** (vLLM 0.33, the connector named in `--kv-transfer-config`):

- OffloadingConnector: `cpu_bytes_to_use` is the engine's total. The CPU spec splits it over the
  engine's workers: a chunk holds `worker_kv_bytes_per_block x num_copies x blocks_per_chunk`
  with `num_copies = world_size` and the tier has `cpu_bytes_to_use // chunk` chunks
  (vllm/v1/kv_offload/cpu/spec.py:100-123); `num_copies` is 1 only for a replicated layout,
  which needs the canonical layout requested (vllm/distributed/kv_transfer/kv_connector/v1/
  offloading/config.py:269-282; our options do not ask for it). world_size = PP x TP (x PCP)
  (vllm/config/parallel.py:964-968); each data-parallel engine has its own tier (its own
  `engine_id`, vllm/v1/kv_offload/config.py:80-81).
- SimpleCPUOffloadConnector: `cpu_bytes_to_use_per_rank` is each worker's own budget, and it
  wins over `cpu_bytes_to_use // world_size`
  (vllm/distributed/kv_transfer/kv_connector/v1/simple_cpu_offload_connector.py:100-115).
- `--kv-offloading-size` (GiB, the total over TP ranks: vllm/config/cache.py:383-387) only fills
  in `cpu_bytes_to_use = size x 2^30` of the same config (vllm/config/vllm.py:1167-1175).

A host tier no larger than the GPU KV cache only duplicates blocks the GPUs already hold (the
taxonomy's own note on `offloading_cpu`), so a host-only tier is sized

    above_kv          = (floor(GPU KV cache per GPU / GiB) + 1) GiB
    per rank:  bytes  = max(vocabulary value, above_kv)
    per engine: bytes = max(vocabulary value, above_kv x world size)

and a tier that stages for a slower one (`secondary_tiers`) keeps the vocabulary's size. Per
GPU that is `bytes` (per rank) or `bytes / world size` (per engine); per node, per GPU times the
GPUs the plan puts on one node; in total, per GPU times the plan's GPUs.

**Mooncake kv-stores** (kv_store/*.yaml `mooncake_vllm_config.template`): every vLLM worker
sets up its own MooncakeDistributedStore with `global_segment_size` (the host memory it lends
to the pool; `embedded` mode needs it > 0, `standalone-store` needs 0) and `local_buffer_size`
(vllm/distributed/kv_transfer/kv_connector/v1/mooncake/store/worker.py:1414-1422 ->
vllm/distributed/mooncake_store.py:126-144, checked at :40-48); sizes such as "100GB" are read
with 1024-based units (`_parse_size`, vllm/distributed/mooncake_store.py:91-123). A standalone
store service registers its own `global_segment_size` per store node, outside the vLLM nodes.

No hardware profile gives the host RAM of a node (taxonomy.yaml has GPU memory only), so the
result says what each node must have free rather than whether it fits.
"""

from __future__ import annotations

import json
import math
import re
from decimal import ROUND_HALF_UP, Decimal

from recipes_site.jsish import mapping

GIB = 1 << 30
# the connector keys a host tier is sized by: per worker, or the engine's total
SIZE_KEYS = (("cpu_bytes_to_use_per_rank", "rank"), ("cpu_bytes_to_use", "engine"))
_SIZE = re.compile(r"^\s*([\d.]+)\s*(gb|mb|kb|b)?\s*$")  # vllm/distributed/mooncake_store.py:111
_UNITS = {"gb": 1024**3, "mb": 1024**2, "kb": 1024, "b": 1}


def gib_text(n: float) -> str:
    """GiB with one decimal, ties up (the page's toFixed(1))."""
    return str(Decimal(n / GIB).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


# -- offload tiers ------------------------------------------------------------------------------


def transfer_config(args: list) -> tuple[int, dict] | None:
    """The index and parsed JSON of the `--kv-transfer-config` value of an option's args."""
    for i, tok in enumerate(args[:-1]):
        if tok == "--kv-transfer-config":
            try:
                value = json.loads(args[i + 1])
            except (TypeError, ValueError):
                return None
            return (i + 1, value) if isinstance(value, dict) else None
    return None


def host_tier(args: list) -> dict | None:
    """The host tier an option's `--kv-transfer-config` declares: {"key", "per": "rank" |
    "engine", "floor_bytes", "staging"} (`staging`: it stages for `secondary_tiers` and keeps its
    size), or None when vLLM holds no host tier of its own (LMCache's pool is its server's)."""
    found = transfer_config(args)
    if found is None:
        return None
    extra = mapping(found[1].get("kv_connector_extra_config"))
    for key, per in SIZE_KEYS:
        value = extra.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            staging = bool(extra.get("secondary_tiers"))
            return {"key": key, "per": per, "floor_bytes": value, "staging": staging}
    return None


def world_size(plan: dict) -> int:
    """Workers of one engine: TP x PP of the plan's memory process."""
    return max(int(plan.get("tp") or 1), 1) * max(int(plan.get("pp") or 1), 1)


def config_bytes(size: dict, kv_cache_bytes_per_gpu: int | None, world: int) -> int:
    """The byte count written into the option's config (the module docstring's rule)."""
    if size.get("staging"):
        return int(size["floor_bytes"])
    above_kv = (kv_cache_bytes_per_gpu // GIB + 1) * GIB if kv_cache_bytes_per_gpu else 0
    if size["per"] == "rank":
        return max(size["floor_bytes"], above_kv)
    return max(size["floor_bytes"], above_kv * max(world, 1))


def _spread(per_gpu: float, plan: dict) -> dict:
    gpus = int(plan.get("gpus") or 1)
    nodes = int(plan.get("nodes") or 1)
    return {
        "per_gpu_bytes": round(per_gpu),
        "per_node_bytes": round(per_gpu * gpus / nodes),
        "total_bytes": round(per_gpu * gpus),
        "gpus": gpus,
        "nodes": nodes,
    }


def offload_host_memory(plan: dict, size: dict) -> dict:
    """The host memory of an offload option's tier (`host_tier`) for a rendering's plan: the
    config's key and byte value, whether the rule raised it above the vocabulary's, and the
    host memory per GPU, per node and in total."""
    world = world_size(plan)
    kv = plan.get("kv_cache_bytes_per_gpu")
    value = config_bytes(size, kv, world)
    per_gpu = value if size["per"] == "rank" else value / world
    return {
        "key": size["key"],
        "per": size["per"],
        "config_bytes": value,
        "floor_bytes": size["floor_bytes"],
        "raised": value > size["floor_bytes"],
        "staging": bool(size.get("staging")),
        "kv_cache_bytes_per_gpu": kv,
        **_spread(per_gpu, plan),
    }


def offload_text(found: dict) -> str:
    """One sentence on an offload tier's host memory (the page's KV-offload note says the same
    for a host-only tier)."""
    head = (
        f"Host memory it takes: {gib_text(found['per_gpu_bytes'])} GiB per GPU, "
        f"{gib_text(found['per_node_bytes'])} GiB on each node"
    )
    if found["nodes"] > 1:
        head += f", {gib_text(found['total_bytes'])} GiB in all"
    key = f"{found['key']} = {found['config_bytes']}"
    if found["staging"]:
        why = "the vocabulary's staging tier for the slower tiers behind it"
    elif found["raised"]:
        why = (
            f"raised from the vocabulary's {gib_text(found['floor_bytes'])} GiB to stay above "
            f"the {gib_text(found['kv_cache_bytes_per_gpu'] or 0)} GiB KV cache per GPU"
        )
    else:
        why = (
            "the vocabulary's budget, above the "
            f"{gib_text(found['kv_cache_bytes_per_gpu'] or 0)} GiB KV cache per GPU"
        )
    return f"{head} ({key}: {why})."


# -- Mooncake kv-stores -----------------------------------------------------------------------


def mooncake_size(value) -> int | None:
    """A Mooncake config size in bytes, read as vLLM reads it (`_parse_size`: an int is bytes,
    "100GB" is 100 x 1024^3), or None when vLLM would refuse it."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if not isinstance(value, str):
        return None
    match = _SIZE.match(value.strip().lower())
    if not match:
        return None
    try:
        number = float(match.group(1))
    except ValueError:
        return None
    return int(number * _UNITS[match.group(2) or "b"])


def kv_store_sizes(spec: dict) -> dict | None:
    """What a kv-store strategy (kv_store/*.yaml) registers of host memory: per vLLM GPU its
    `global_segment_size` and `local_buffer_size`, and per store node the store service's
    segment (None without one); None for a strategy that is not a Mooncake kv-store."""
    template = mapping(mapping(spec.get("mooncake_vllm_config")).get("template"))
    if spec.get("deploy_type") != "kv_store_lb" or not template:
        return None
    store = mapping(mapping(spec.get("mooncake_store_config")).get("config"))
    return {
        "mode": template.get("mode") or "embedded",
        "segment_bytes": mooncake_size(template.get("global_segment_size", 4 * GIB)) or 0,
        "local_buffer_bytes": mooncake_size(template.get("local_buffer_size", 4 * GIB)) or 0,
        "store_segment_bytes": mooncake_size(store.get("global_segment_size")) if store else None,
    }


def kv_store_host_memory(
    plan: dict, sizes: dict, default_instances: int, instances: int | None = None
) -> dict:
    """The host memory a kv-store layout registers for `instances` instances (default: the
    rendering's own count, whose GPUs and nodes its plan holds): per GPU the segment it lends
    to the pool plus its local buffer, per node and in total."""
    default_instances = max(default_instances, 1)
    n = instances or default_instances
    gpus = int(plan.get("gpus") or 1) // default_instances * n
    nodes = max(int(plan.get("nodes") or 1) // default_instances, 1) * n
    per_gpu = sizes["segment_bytes"] + sizes["local_buffer_bytes"]
    return {
        **sizes,
        "instances": n,
        "per_gpu_bytes": per_gpu,
        "per_node_bytes": per_gpu * gpus // nodes,
        "total_bytes": per_gpu * gpus,
        "gpus": gpus,
        "nodes": nodes,
    }


def _registered(found: dict, whose: str) -> str:
    """ "Host memory it registers: X GiB per GPU<whose> (its segment and buffer)", the start of
    the kv-store and the PD store sentences."""
    seg, buf = found["segment_bytes"], found["local_buffer_bytes"]
    lent = (
        f"{gib_text(seg)} GiB global_segment_size lent to the pool"
        if seg
        else "no segment (global_segment_size 0: the store service holds the pool)"
    )
    return (
        f"Host memory it registers: {gib_text(found['per_gpu_bytes'])} GiB per GPU{whose} "
        f"({lent}, plus a {gib_text(buf)} GiB local_buffer_size)"
    )


def _store_service(found: dict) -> str:
    """The sentence on a centralized store service's own segment, or ""."""
    if not found.get("store_segment_bytes"):
        return ""
    return (
        f" The store service registers {gib_text(found['store_segment_bytes'])} GiB "
        "on each store node."
    )


def kv_store_text(found: dict) -> str:
    """One sentence on a kv-store layout's registered host memory."""
    out = (
        _registered(found, "") + ", "
        f"{gib_text(found['per_node_bytes'])} GiB on each node, "
        f"{gib_text(found['total_bytes'])} GiB over {found['instances']} "
        f"instance{'s' if found['instances'] > 1 else ''}."
    )
    return out + _store_service(found)


def ram_note(per_node_bytes: int) -> str:
    """What must be free on each node: no hardware profile gives a node's host RAM."""
    need = math.ceil(per_node_bytes / GIB)
    return (
        f"Each node needs {need} GiB of host RAM free for it (the hardware profile gives no "
        "host RAM to check against)."
    )


def pd_store_host_memory(sizes: dict, gpus: int, nodes: int) -> dict:
    """The host memory a Mooncake store registers on a prefill/decode deployment: every GPU of
    both pools runs a MooncakeStoreConnector of the one store (synthesis/pd_store.py), so each
    registers the segment and local buffer of `kv_store_sizes`; `gpus` and `nodes` are the two
    pools' together (a half-node pool shares its node with the other)."""
    return kv_store_host_memory({"gpus": gpus, "nodes": max(nodes, 1)}, sizes, 1)


def pd_store_text(found: dict) -> str:
    """One sentence on a PD deployment's registered store memory (more.js `pdNote`)."""
    out = (
        _registered(found, " of both pools") + ", "
        f"{gib_text(found['per_node_bytes'])} GiB on each node, "
        f"{gib_text(found['total_bytes'])} GiB over the {found['gpus']} GPUs of the prefill "
        "and decode pools."
    )
    return out + _store_service(found)
