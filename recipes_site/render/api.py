"""The JSON API documents, as plain data: `{relative path: document}`.

Layout under `api/v1/` (one file per recipe and per recipe x hardware, so a CI job fetches
exactly what it needs and the tree stays small):

    models.json                          every recipe, plus every served checkpoint id
    models/<org>/<repo>.json             normalised recipe, install block, sizing, default hardware,
                                         and `kv_sizing` for recipes with model.hf_config
    models/<org>/<repo>/hw/<hw>.json     recommended choice per variant + every rendering there
    models/<org>/<repo>/deploy.json      every rendering's deployment forms: `verify` (curl, bench
                                         sweep, tuning), `kubernetes`, `monitoring` (rules, dashboard)
    hardware.json, hardware/<hw>.json    profiles, and what runs on each with its command, in pages
                                         of HW_PAGE entries (hardware/<hw>/page-<k>.json, `next`)
    search/<k>.json, search/ids-<k>.json the home page's search shards and the 404 page's id lookup
    strategies.json, taxonomy.json       vocabulary
    picker-options.json                  the model page's on-demand options (KV offload, image,
                                         --max-model-len auto) as command pieces
    schema/*.json                        a JSON Schema per document type
"""

from __future__ import annotations

from dataclasses import dataclass

from recipes_site import fit, gpu_counts, plan, runs_on, sizing, speed, speed_layouts
from recipes_site.data import VLLM_VERSION
from recipes_site.render import advanced, host_memory_api, pd_json, picker
from recipes_site.render.inputs import (
    API,
    RecipeInput,
    deploy_doc_path,
    hw_doc_path,
    model_doc_path,
)
from recipes_site.render.kubernetes_api import kubernetes_doc
from recipes_site.render.monitoring_api import monitoring_doc
from recipes_site.render.picker import AcrossHardware, SharedParts
from recipes_site.render.verify_json import verify_doc
from recipes_site.site_root import site_path, url
from recipes_site.synthesis import Context
from recipes_site.synthesis.install import install_block
from recipes_site.synthesis.memo import synthesizing
from recipes_site.synthesis.selection import unavailable_hardware
from recipes_site.synthesis.types import RecipeRenderings

HF = "https://huggingface.co/"
HW_PAGE = 200  # entries per hardware document: at 10,000 recipes one document was 7 MB


def page_url(hf_id: str) -> str:
    return url(f"/{hf_id}/")


def link(rel: str) -> str:
    """A site link to the file at `rel` (output-relative), under the site root (site_root.py)."""
    return url("/" + rel)


def _precisions(data: dict) -> list[str]:
    out = []
    for v in (data.get("variants") or {}).values():
        p = (v or {}).get("precision")
        if p and p not in out:
            out.append(p)
    return out


def _rendered_hardware(r: RecipeRenderings, order: list[str]) -> list[str]:
    return [res.hardware for res in _by_hardware_order(r, order)]


def model_index_entry(rec: RecipeInput, hw_order: list[str]) -> tuple[dict, list[dict]]:
    """This recipe's line in models.json, and the checkpoints its variants serve."""
    meta, model = rec.data.get("meta") or {}, rec.data.get("model") or {}
    declared = meta.get("hardware") or {}
    entry = {
        "id": rec.hf_id,
        "title": meta.get("title"),
        "provider": meta.get("provider"),
        "description": meta.get("description"),
        "tasks": meta.get("tasks") or [],
        "architecture": model.get("architecture"),
        "parameter_count": model.get("parameter_count"),
        "active_parameters": model.get("active_parameters"),
        "context_length": model.get("context_length"),
        "precisions": _precisions(rec.data),
        "min_vllm_version": model.get("min_vllm_version"),
        "date_added": meta.get("date_added"),
        "date_updated": meta.get("date_updated"),
        "hardware": _rendered_hardware(rec.rendered, hw_order),
        "verified_hardware": [h for h in hw_order if declared.get(h) == "verified"],
        "links": {
            "page": page_url(rec.hf_id),
            "json": link(model_doc_path(rec.hf_id)),
            "huggingface": HF + rec.hf_id,
        },
    }
    checkpoints = []
    for key, variant in (rec.data.get("variants") or {}).items():
        mid = (variant or {}).get("model_id")
        if isinstance(mid, str) and "/" in mid and mid != rec.hf_id:
            checkpoints.append(
                {
                    "id": mid,
                    "recipe": rec.hf_id,
                    "variant": key,
                    "json": link(model_doc_path(rec.hf_id)),
                    "huggingface": HF + mid,
                }
            )
    return entry, checkpoints


def model_doc(rec: RecipeInput, profiles: dict, ctx: Context | None = None) -> dict:
    """The model document; with `ctx`, recipes with `model.hf_config` also get `kv_sizing` (fit.py):
    per variant tree and hardware, the KV-cache budget of every rendering and the throughput plan."""
    variants = rec.data.get("variants") or {}
    doc = {
        "id": rec.hf_id,
        "recipe": rec.data,
        "install": install_block(rec.data),
        "default_hardware": {t.variant: t.default_hardware for t in rec.rendered.trees},
        "checkpoints": {t.variant: t.model_id for t in rec.rendered.trees},
        "hardware": {
            res.hardware: link(hw_doc_path(rec.hf_id, res.hardware))
            for res in _by_hardware_order(rec.rendered, list(profiles))
        },
        "sizing": {
            key: sizing.variant_sizing(rec.data, v or {}, profiles) for key, v in variants.items()
        },
    }
    kv = fit.kv_sizing(ctx, rec.data, rec.rendered) if ctx is not None else None
    if kv is not None:
        doc["kv_sizing"] = kv
    unavailable = _unavailable_hardware(rec, ctx) if ctx is not None else {}
    if unavailable:
        doc["unavailable_hardware"] = unavailable
    return doc


def _unavailable_hardware(rec: RecipeInput, ctx: Context) -> dict[str, dict[str, str]]:
    """Per variant: the profiles its precision keeps it off, with the reason a page shows. Only
    for a taxonomy whose profiles declare `precisions` (the reference corpus's does not, and its
    documents stay as they were)."""
    if not any(isinstance(p, dict) and "precisions" in p for p in ctx.profiles.values()):
        return {}
    out = {}
    for key, variant in (rec.data.get("variants") or {}).items():
        reasons = unavailable_hardware(ctx, rec.data, variant if isinstance(variant, dict) else {})
        if reasons:
            out[key] = reasons
    return out


def _by_hardware_order(r: RecipeRenderings, order: list[str]):
    seen: dict = {}
    for tree in r.trees:
        for res in tree.by_hardware:
            seen.setdefault(res.hardware, res)
    return [seen[h] for h in order if h in seen]


def hardware_docs(rec: RecipeInput, ctx: Context) -> dict[str, dict]:
    """One document per hardware: the recommended pick per variant tree, every rendering (with
    the `parts` the page's picker uses) and the feature sets those parts refer to."""
    profiles = ctx.profiles
    docs: dict[str, dict] = {}
    renderings: dict[str, dict] = {}
    for tree in rec.rendered.trees:
        for res in tree.by_hardware:
            doc = docs.setdefault(
                res.hardware,
                {
                    "recipe": rec.hf_id,
                    "hardware": res.hardware,
                    "hardware_profile": profiles.get(res.hardware, {}),
                    "vllm_version": VLLM_VERSION,  # what every plan below models
                    "recommended": {},
                    "renderings": [],
                },
            )
            rec_r = res.recommended
            doc["recommended"][tree.variant] = {
                "variant": rec_r.variant,
                "strategy": rec_r.strategy,
                "node_count": rec_r.node_count,
            }
            bucket = renderings.setdefault(res.hardware, {})
            for r in (rec_r,) + res.alternatives:
                bucket.setdefault(r.key, r)
    plans = speed_layouts.SpeedPlans(rec.data)  # what the plans of this recipe share (plan.py)
    across = AcrossHardware(ctx)  # what the documents of this recipe share (picker.py)
    for hw, doc in docs.items():
        shared = SharedParts(rec, ctx, hw, across)
        doc["renderings"] = [
            _rendering_doc(rec, ctx, r, shared, plans) for r in renderings[hw].values()
        ]
        doc["feature_sets"] = shared.feature_sets.items
        doc["extra_sets"] = shared.extra_sets.items
        if any("gpus" in r for r in doc["renderings"]):
            doc["gpu_replicas"] = gpu_counts.replica_sets(shared.profile or {})
        _add_speed(doc, plans, shared.profile or {})
        host = host_memory_api.hardware_member(doc, rec.data, ctx.kv_offload, ctx.strategies)
        if host:  # KV-offload tiers and kv-store segments per rendering (host_memory.py)
            doc["host_memory"] = host
    return {hw_doc_path(rec.hf_id, hw): docs[hw] for hw in (h for h in profiles if h in docs)}


def _rendering_doc(
    rec: RecipeInput, ctx: Context, r, shared, recipe_plans: plan.RecipePlans
) -> dict:
    """One rendering of a hardware document: the commands, the picker's parts and the plan
    (plan.py) every figure shown beside the command comes from."""
    shown = shared.shown(r)  # what r shares with its re-labelled copies on other hardware
    choices, feature_set, text = shared.choices(rec, ctx, r)
    locked = shown.locked(choices, text)
    plans = plan.plan_json(recipe_plans, r, shared.profile or {}, choices, locked)
    doc = shared.entry(r, shown, plans["default"], locked, feature_set)
    doc["plan"] = plans
    # the reader's GPU count (gpu_counts.py): the layouts, where the rendering has them
    layouts = (
        None
        if locked
        else gpu_counts.rendering_layouts(
            recipe_plans,
            r,
            shared.profile or {},
            gpu_counts.drafts_of(recipe_plans, choices),
            with_templates="replicas" not in plans,
        )
    )
    if layouts:
        doc["gpus"] = layouts
    estimate = speed_layouts.rendering_speed(
        recipe_plans, r.variant, shared.profile or {}, plans["default"]
    )
    if estimate is not None:
        doc["speed"] = estimate
    return doc


def _add_speed(doc: dict, plans: plan.RecipePlans, profile: dict) -> None:
    """A hardware document's speed additions: per variant, one big instance or many small
    replicas of its recommended command (speed_layouts.node_layouts), and the calibration error
    every estimate carries; nothing when no rendering has an estimate."""
    by_key = {(r["variant"], r["strategy"], r["node_count"]): r for r in doc["renderings"]}
    layouts = {}
    for variant, pick in doc["recommended"].items():
        r = by_key.get((pick["variant"], pick["strategy"], pick["node_count"]))
        argv = _memory_argv(r) if r is not None else None
        found = speed_layouts.node_layouts(plans, pick["variant"], profile, argv) if argv else None
        if found is not None:
            layouts[variant] = found
    if layouts:
        doc["layouts"] = layouts
    if layouts or any("speed" in r for r in doc["renderings"]):
        cal = speed.CALIBRATION
        doc["speed_calibration"] = {
            "points": cal.points,
            "median_error": round(cal.median_error, 3),
            "worst_error": round(cal.worst_error, 3),
        }


def _memory_argv(rendering_doc: dict) -> list | None:
    """The argv of a single-node rendering document (the one process whose layout a node can
    repeat), else None."""
    if rendering_doc.get("deploy_type") != "single_node":
        return None
    return rendering_doc.get("argv")


def hardware_entries(rec: RecipeInput, docs: dict | None = None) -> dict[str, list[dict]]:
    """For each hardware: this recipe's variants that run there, with the recommended command
    and, given the recipe's `docs`, the verdict of that command's plan (the hardware pages say
    what the model page says)."""
    per_hw: dict[str, list] = {}
    for tree in rec.rendered.trees:
        for res in tree.by_hardware:
            r = res.recommended
            verdict = _recommended_verdict(docs, rec.hf_id, res.hardware, r) if docs else None
            main = r.main_process
            per_hw.setdefault(res.hardware, []).append(
                {
                    "recipe": rec.hf_id,
                    "variant": tree.variant,
                    "model_id": tree.model_id,
                    "strategy": r.strategy,
                    "node_count": r.node_count,
                    "deploy_type": r.deploy_type,
                    "env": main.env if main else {},
                    "command": main.command if main else None,
                    "json": link(hw_doc_path(rec.hf_id, res.hardware)),
                    **({"verdict": verdict} if verdict is not None else {}),
                }
            )
    return per_hw


def _recommended_verdict(docs: dict, hf_id: str, hw: str, r) -> str | None:
    """The plan verdict of a recommended rendering, read from its hardware document."""
    doc = docs.get(hw_doc_path(hf_id, hw))
    for entry in doc["renderings"] if doc else ():
        if (entry["variant"], entry["strategy"], entry["node_count"]) == (
            r.variant,
            r.strategy,
            r.node_count,
        ):
            return entry["plan"]["default"].get("verdict")
    return None


@dataclass(frozen=True)
class RecipeSummary:
    """What catalog-wide documents need of one recipe (small, so workers can send it back)."""

    hf_id: str
    model_entry: dict
    checkpoints: list
    hardware_entries: dict


def recipe_documents(rec: RecipeInput, ctx: Context) -> tuple[dict[str, dict], RecipeSummary]:
    try:
        docs = {model_doc_path(rec.hf_id): model_doc(rec, ctx.profiles, ctx)}
        # Memo: each hardware document asks feature_choices per hardware x variant (x strategy),
        # and those ask synthesis's per-recipe questions (default modes, applicable features)
        # again; answered once while this block lasts (synthesis/memo.py: keyed by plain values,
        # this recipe's only, forgotten at its end). tests/test_api_documents_fresh.py.
        with synthesizing(rec.data):
            docs.update(hardware_docs(rec, ctx))
            kubernetes = kubernetes_doc(rec, ctx)
        deploy: dict = {"recipe": rec.hf_id}
        if len(docs) > 1:  # curl, bench and tuning of every rendering (render/verify_json.py)
            deploy["verify"] = verify_doc(rec, ctx.profiles, docs)
        deploy["kubernetes"] = kubernetes
        deploy["monitoring"] = monitoring_doc(rec, docs)
        with synthesizing(rec.data):
            topology = pd_json.pd_topology_doc(rec, ctx, docs)
        if topology is not None:  # every pool layout of the PD renderings (the page's controls)
            deploy["pd_topology"] = topology
        docs[deploy_doc_path(rec.hf_id)] = deploy
        entry, checkpoints = model_index_entry(rec, list(ctx.profiles))
        entry.update(smallest_fit_entry(rec, ctx, docs))
        return docs, RecipeSummary(rec.hf_id, entry, checkpoints, hardware_entries(rec, docs))
    finally:
        _clear_memos()


def smallest_fit_entry(rec: RecipeInput, ctx: Context, docs: dict[str, dict]) -> dict:
    """`smallest_fit` of the recipe's models.json entry: the profile, GPUs and variant of the
    smallest layout that fits (comfortably, where one does; runs_on.py), for the home page's
    "Runs on" and CI jobs asking what the least hardware is; {} when nothing fits."""
    hw_docs = {
        h: docs[hw_doc_path(rec.hf_id, h)]
        for h in ctx.profiles
        if hw_doc_path(rec.hf_id, h) in docs
    }
    best = runs_on.smallest_fit(runs_on.smallest_layouts(hw_docs, rec.data), ctx.profiles)
    if best is None:
        return {}
    return {
        "smallest_fit": {
            "hardware": best.hardware,
            "gpus": best.plan["gpus"],
            "variant": best.variant,
            "precision": ((rec.data.get("variants") or {}).get(best.variant) or {}).get(
                "precision"
            ),
            "comfortable": best.comfortable,
        }
    }


def _clear_memos() -> None:
    """Empty the memos of picker after each recipe: their keys hold one recipe's
    commands (next to no hits across recipes), so over a catalog nothing accumulates, neither
    memory nor work for the garbage collector's full passes."""
    picker.clear_memos()


def catalog_documents(
    summaries: list[RecipeSummary], taxonomy: dict, strategies: dict
) -> dict[str, dict]:
    profiles = taxonomy.get("hardware_profiles") or {}
    docs: dict[str, dict] = {
        f"{API}/models.json": {
            "models": [s.model_entry for s in summaries],
            "checkpoints": [c for s in summaries for c in s.checkpoints],
        }
    }
    per_hw: dict[str, list] = {h: [] for h in profiles}
    for s in summaries:
        for hw, entries in s.hardware_entries.items():
            per_hw.setdefault(hw, []).extend(entries)
    docs[f"{API}/hardware.json"] = {
        "hardware": [
            {
                "id": h,
                **profiles[h],
                "models": len({m["recipe"] for m in per_hw[h]}),
                "json": link(f"{API}/hardware/{h}.json"),
            }
            for h in profiles
        ]
    }
    for h in profiles:
        docs.update(hardware_pages(h, profiles[h], per_hw[h]))
    docs[f"{API}/strategies.json"] = {"strategies": strategies}
    docs[f"{API}/taxonomy.json"] = taxonomy
    docs[advanced.API_PATH] = advanced.picker_options_doc(
        taxonomy, VLLM_VERSION, strategies
    )  # the page's row
    return docs


def hardware_page_path(hw: str, k: int) -> str:
    """Page 1 keeps the address CI jobs already fetch; the others sit beside it."""
    return f"{API}/hardware/{hw}.json" if k == 1 else f"{API}/hardware/{hw}/page-{k}.json"


def hardware_pages(hw: str, profile: dict, entries: list[dict]) -> dict[str, dict]:
    """One hardware's entries in documents of HW_PAGE each, linked by `next` / `prev` (root-relative
    URLs under the site root, null at the ends), each with the page number, the page count and the entry total, so a
    consumer walks `next` from `hardware/<hw>.json` until it is null."""
    pages = max(1, -(-len(entries) // HW_PAGE))
    page_link = lambda k: link(hardware_page_path(hw, k)) if 1 <= k <= pages else None
    return {
        hardware_page_path(hw, k): {
            "hardware": hw,
            "profile": profile,
            "page": k,
            "pages": pages,
            "total": len(entries),
            "prev": page_link(k - 1),
            "next": page_link(k + 1),
            "models": entries[(k - 1) * HW_PAGE : k * HW_PAGE],
        }
        for k in range(1, pages + 1)
    }


def hardware_entries_of(docs: dict[str, dict], hw: str) -> list[dict]:
    """Every entry of one hardware, walking its pages as a consumer does (from `next`)."""
    out: list[dict] = []
    path: str | None = hardware_page_path(hw, 1)
    while path is not None:
        doc = docs[path]
        out.extend(doc["models"])
        path = site_path(doc["next"])[1:] if doc.get("next") else None
    return out


def api_documents(recipes: list[RecipeInput], ctx: Context, taxonomy: dict) -> dict[str, dict]:
    """Every API document of a catalog (serially; the build spreads `recipe_documents` over cores)."""
    docs: dict[str, dict] = {}
    summaries = []
    for rec in recipes:
        recipe_docs, summary = recipe_documents(rec, ctx)
        docs.update(recipe_docs)
        summaries.append(summary)
    docs.update(catalog_documents(summaries, taxonomy, ctx.strategies))
    return docs
