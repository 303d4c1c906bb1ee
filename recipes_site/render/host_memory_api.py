"""The `host_memory` member of a model's hardware documents
(`api/v1/models/<org>/<repo>/hw/<hw>.json`): for each rendering as rendered (its `plan.default`),
the host memory of every KV-offload option the page offers on it and, for a Mooncake kv-store
layout, the host memory its GPUs register (host_memory.py computes them all).

Compact because it rides in every hardware document: the distinct figure rows once, and one
index per rendering (aligned with `renderings`, null where there is nothing to report):

    "host_memory": {
      "rows": [{"simple": [config_bytes, per_gpu_bytes, per_node_bytes, total_bytes]},
               {"kv_store": [per_gpu_bytes, per_node_bytes, total_bytes]}],
      "renderings": [0, 0, 1, null]
    }

An offload row holds the options that apply with a host tier of vLLM's own (LMCache's pool is
its server's); `config_bytes` is the value written into the option's `--kv-transfer-config`.
`recipes-site fit/command --kv-offload ID --json` print the same figures with their names.
"""

from __future__ import annotations

from recipes_site import host_memory
from recipes_site.data import VLLM_VERSION
from recipes_site.jsish import mapping
from recipes_site.render import kv_offload


def _offload_row(entry: dict, options: list[dict], vocab: dict, blocks: dict, brand) -> dict:
    plan = entry["plan"]["default"]
    row = {}
    for option in options:
        if kv_offload.why_not(
            option,
            entry["deploy_type"],
            entry["strategy"],
            entry["parts"]["features_locked"],
            blocks,
            brand,
        ):
            continue
        tier = kv_offload.option_tier(plan, option, mapping(vocab.get(option["id"])))
        if tier is not None:
            row[option["id"]] = [
                tier["config_bytes"],
                tier["per_gpu_bytes"],
                tier["per_node_bytes"],
                tier["total_bytes"],
            ]
    return row


def _kv_store_row(entry: dict, strategies: dict) -> dict:
    spec = mapping(strategies.get(entry["strategy"]))
    sizes = host_memory.kv_store_sizes(spec)
    if sizes is None:
        return {}
    found = host_memory.kv_store_host_memory(
        entry["plan"]["default"], sizes, spec.get("default_instances") or 1
    )
    return {"kv_store": [found["per_gpu_bytes"], found["per_node_bytes"], found["total_bytes"]]}


def hardware_member(doc: dict, recipe: dict, vocab: dict, strategies: dict) -> dict | None:
    """The `host_memory` member of a hardware document `doc` of `recipe` (`vocab`: the taxonomy's
    `kv_offload`), or None when no rendering has a figure."""
    taxonomy = {"kv_offload": vocab}
    options = kv_offload.options_doc(taxonomy, VLLM_VERSION, strategies)["options"]
    blocks = kv_offload.recipe_blocks(recipe, taxonomy)
    brand = mapping(doc.get("hardware_profile")).get("brand")
    rows: list[dict] = []
    index: list[int | None] = []
    for entry in doc["renderings"]:
        if entry["deploy_type"] == "kv_store_lb":
            row = _kv_store_row(entry, strategies)
        else:
            row = _offload_row(entry, options, vocab, blocks, brand)
        if not row:
            index.append(None)
            continue
        if row not in rows:
            rows.append(row)
        index.append(rows.index(row))
    return {"rows": rows, "renderings": index} if rows else None
