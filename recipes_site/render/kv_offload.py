"""The model page's KV-offload row: the taxonomy's `kv_offload` options as precomputed command
pieces, and the host memory each one takes per GPU.

vLLM 0.33 offloads KV blocks through the connector named in `--kv-transfer-config`; its own
`--kv-offloading-size` / `--kv-offloading-backend` flags (vllm/engine/arg_utils.py:1453-1456)
only fill in the same config: `native` -> OffloadingConnector with `cpu_bytes_to_use` = size x
2^30, `lmcache` -> LMCacheMPConnector (vllm/config/vllm.py:1167-1183). The options, their JSON,
env, install line and companion process are vocabulary (taxonomy.yaml `kv_offload`, the
reference's UI row: docs/compat REFERENCE-BEHAVIOUR §4.4); this module turns them into the lines
the page appends after the feature lines (args), in front of the command (`export` lines) and in
the `docker run` head (`-e` lines), as the reference composes them (advanced.py publishes them). The JSON API renderings are
untouched: the reference's build never renders these options, so the compat corpus is unchanged.

Host memory per GPU. The host tier's byte count is sized by the planner (host_memory.py, which
cites vLLM 0.33 for it): a host-only tier stays above the GPU KV cache of the command's plan, a
staging tier keeps the vocabulary's size. `size` publishes the rule's inputs ({"key", "per",
"floor_bytes"}); the page repeats host_memory.config_bytes on its plan (more.js `bytes()`), and
`recipes-site command/fit --kv-offload` print the same figures.
"""

from __future__ import annotations

from recipes_site import host_memory
from recipes_site.jsish import mapping
from recipes_site.synthesis.shell import env_word, export_lines, unit_lines, units_of

BYTES = "{bytes}"  # where the page writes the sized byte count into an option's lines
SIZE_KEYS = host_memory.SIZE_KEYS
LAYOUT_REASON = (
    "Not with this strategy: prefill/decode and Mooncake layouts configure their own KV connector."
)


def sized_args(args: list) -> tuple[list, dict | None]:
    """The args with the host tier's byte count replaced by BYTES, and how to size it
    ({"key", "per": "rank" | "engine", "floor_bytes"}); unchanged args and None when the option
    has no host-only tier (LMCache's pool belongs to its server; a staging tier keeps its size)."""
    tier = host_memory.host_tier(args)
    found = host_memory.transfer_config(args)
    if tier is None or tier["staging"] or found is None:
        return list(args), None
    i, key, value = found[0], tier["key"], tier["floor_bytes"]
    written = f'"{key}":{value}'
    if args[i].count(written) != 1:  # not spelled as we can find it again: leave it
        return list(args), None
    out = list(args)
    out[i] = args[i].replace(written, f'"{key}":{BYTES}')
    return out, {"key": key, "per": tier["per"], "floor_bytes": value}


def _staging(spec: dict) -> dict | None:
    """{"key", "per", "floor_bytes"} of an option's staging tier (host_memory.host_tier), else None."""
    tier = host_memory.host_tier(list(spec.get("args") or []))
    if tier is None or not tier["staging"]:
        return None
    return {"key": tier["key"], "per": tier["per"], "floor_bytes": tier["floor_bytes"]}


def option_view(oid: str, spec: dict, groups: dict, strategy_labels: dict[str, str]) -> dict:
    """One option as the page's row shows and applies it, with the reasons its pill gives when
    the strategy or the GPU brand rules it out."""
    args, size = sized_args(list(spec.get("args") or []))
    env = {k: v for k, v in mapping(spec.get("env")).items()}
    group = mapping(groups.get(spec.get("group"))) if spec.get("group") else {}
    companion = mapping(spec.get("companion"))
    label = spec.get("label") or spec.get("display_name") or oid
    return {
        "id": oid,
        "label": f"{group.get('label') or spec.get('group')}: {label}" if group else label,
        "description": " ".join(str(spec.get("description") or "").split()),
        "docs_url": spec.get("docs_url") or group.get("docs_url"),
        "brands": spec.get("brands"),
        "why_brand": f"{label} runs on {' and '.join(spec['brands'])} GPUs only."
        if spec.get("brands")
        else None,
        "strategies": spec.get("strategies"),
        "why_strategy": f"{label} runs with "
        + ", ".join(strategy_labels.get(s, s) for s in spec["strategies"])
        + " only."
        if spec.get("strategies")
        else None,
        "requires_opt_in": bool(spec.get("requires_opt_in")),
        "lines": list(unit_lines(units_of(args))),
        "size": size,
        # a staging tier's fixed host memory, for the page's note (the command keeps its value)
        "staging": _staging(spec),
        "exports": export_lines(env),
        "docker_env": [f"-e {env_word(k, v)}" for k, v in env.items()],
        "install": spec.get("install"),
        # the companion process as a tab of the command card, left of `vllm serve`
        "tab": {
            "id": "kvo",
            "label": companion.get("label") or label,
            "text": "# "
            + " ".join(str(companion.get("description") or "").split())
            + "\n"
            + str(companion.get("command") or "").rstrip(),
        }
        if companion.get("command")
        else None,
    }


def _order(spec: dict, groups: dict) -> tuple:
    group = mapping(groups.get(spec.get("group")))
    outer = group.get("order") if spec.get("group") else spec.get("order")
    return (outer if isinstance(outer, int) else 99, spec.get("order") or 0)


def options_doc(taxonomy: dict, vllm_version: str, strategies: dict) -> dict:
    """Every option in the row's order (then its group's), with the lines the page adds; one set
    for the catalog (the options are vocabulary), in advanced.py's api/v1/picker-options.json."""
    groups = mapping(taxonomy.get("kv_offload_groups"))
    options = mapping(taxonomy.get("kv_offload"))
    ordered = sorted(options, key=lambda oid: _order(mapping(options[oid]), groups))
    labels = {sid: mapping(spec).get("display_name") or sid for sid, spec in strategies.items()}
    return {
        "vllm_version": vllm_version,
        "layout_reason": LAYOUT_REASON,
        "options": [option_view(oid, mapping(options[oid]), groups, labels) for oid in ordered],
    }


def recipe_blocks(recipe: dict, taxonomy: dict) -> dict[str, str]:
    """Option id -> why this recipe does not offer it (`kv_offload_support`: `unsupported`, or an
    opt-in option the recipe has not marked `verified`); the page disables those pills."""
    support = mapping(recipe.get("kv_offload_support"))
    out = {}
    for oid, spec in mapping(taxonomy.get("kv_offload")).items():
        level = support.get(oid)
        if level == "unsupported":
            out[oid] = "This recipe marks it unsupported."
        elif mapping(spec).get("requires_opt_in") and level != "verified":
            out[oid] = "Opt-in: this recipe has not verified it (kv_offload_support)."
    return out


def host_bytes(size: dict, kv_cache_bytes_per_gpu: int | None, world_size: int) -> int:
    """The byte count written into the option's config: host_memory.config_bytes."""
    return host_memory.config_bytes(size, kv_cache_bytes_per_gpu, world_size)


def why_not(
    option: dict,
    deploy_type: str,
    strategy: str,
    locked: bool,
    blocks: dict[str, str],
    brand: str | None,
) -> str:
    """Why the page's pill for `option` (an `option_view`) is disabled on a rendering, "" when
    it applies: more.js `why`, in its order (the layout, the recipe's `recipe_blocks`, the
    strategy, the GPU brand). `recipes-site command --kv-offload` refuses with the same words."""
    if deploy_type in ("pd_cluster", "kv_store_lb") or locked:
        return LAYOUT_REASON
    if option["id"] in blocks:
        return blocks[option["id"]]
    if option.get("strategies") and strategy not in option["strategies"]:
        return str(option["why_strategy"])
    if option.get("brands") and brand not in option["brands"]:
        return str(option["why_brand"])
    return ""


def option_tier(the_plan: dict, option: dict, spec: dict) -> dict | None:
    """host_memory.offload_host_memory of the option's host tier on `the_plan`: the tier the page
    sizes (`size`), or a staging tier at the vocabulary's size (`spec`: the option's vocabulary
    entry); None when vLLM keeps no host tier of its own (LMCache's pool is its server's)."""
    if option["size"]:
        return host_memory.offload_host_memory(the_plan, option["size"])
    fixed = host_memory.host_tier(list(spec.get("args") or []))
    if fixed is None or not fixed["staging"]:
        return None
    return host_memory.offload_host_memory(the_plan, fixed)
