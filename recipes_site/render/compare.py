"""Hardware side by side for one model (the /compare/ page) and the ranking of hardware pages.

The model document gets a compact `compare` block (no new API file): per variant tree and
hardware, what the recommended command of that hardware document takes and gives, every number
computed here from documents the build already made, so the compare page only looks numbers up
and multiplies the reader's price per GPU-hour by them:

    "compare": {
      "workload": {"prompt_tokens": 1024, "output_tokens": 1024},  the estimate's request (speed.py)
      "sep": " \\\n  ",                 how a command's lines join (synthesis/shell.py SEP)
      "lines": ["vllm serve ...", ...], every distinct env and command line, once
      "benchmarks": URL | null,         the model's benchmarks.json
      "variants": {variant: {hardware: entry}}
    }
    entry = {"variant", "strategy", "nodes", "gpus", "tp", "replicas_per_node",
             "kv_tokens", "max_concurrency", "est", "est_c", "measured", "board_w",
             "env", "cmd"}

`est` is the speed estimate of the hardware document's rendering (speed_layouts.rendering_speed,
which is `speed.estimate` of its plan) at the concurrency where its total is highest, divided by
the GPUs: [low, high] output tokens/s per GPU. `max_concurrency` is the estimate's KV-bounded
maximum (requests of `workload` tokens the KV caches hold at once). `measured` is the benchmark
result (benchmark_docs) with the most output tokens/s per GPU for that hardware and variant, with
its label, workload and source. `board_w` is the profile's `power_watts` times the GPUs.

Hardware pages rank what runs on a profile by the same figures (`listing`): a measured result's
tokens/s per GPU when there is one, else the estimate's midpoint, and say which.
"""

from __future__ import annotations

from dataclasses import replace

from recipes_site import plan, speed
from recipes_site.render.api import RecipeSummary, link
from recipes_site.render.benchmark_docs import benchmarks_doc_path
from recipes_site.render.inputs import API, hw_doc_path, model_doc_path
from recipes_site.render.picker import SEP, exports

SIGNIFICANT = 3


def _round(x: float) -> float:
    return float(f"{x:.{SIGNIFICANT}g}")


def command_text(rendering: dict) -> str | None:
    """The one command a rendering document leads with: the server, the head node's, or the
    vLLM instances' of a kv-store layout (None for a layout of pools)."""
    for key in ("command", "head_command", "vllm_command"):
        if isinstance(rendering.get(key), str):
            return rendering[key]
    return None


def estimate_per_gpu(speed_doc: dict | None, gpus: int) -> tuple[list[float], int] | None:
    """([low, high] output tokens/s per GPU, the concurrency) at the lowest level where the
    published estimate's total is highest (levels above what the KV cache holds run no more
    requests at once); None without an estimate."""
    if not speed_doc or gpus < 1:
        return None
    total, levels = speed_doc["total"], speed_doc["c"]
    best = max(range(len(levels)), key=lambda i: (total[2 * i] + total[2 * i + 1], -levels[i]))
    low, high = total[2 * best], total[2 * best + 1]
    return [_round(low / gpus), _round(high / gpus)], speed_doc["c"][best]


def best_measured(results: list[dict], hw: str, variant: str) -> dict | None:
    """The result (benchmark_docs.result_entry) of `variant` on `hw` with the most output
    tokens/s per GPU, as the compare entry shows it; None when no result says its GPUs and its
    output throughput."""
    best: tuple[float, dict] | None = None
    for r in results:
        gpus, tps = r.get("gpus"), r["metrics"].get("output_throughput")
        if r["hardware"] != hw or r["variant"] != variant or not gpus or not tps:
            continue
        if best is None or tps / gpus > best[0]:
            best = (tps / gpus, r)
    if best is None:
        return None
    per_gpu, r = best
    workload = r["workload"]
    out = {
        "tps": _round(per_gpu),
        "gpus": r["gpus"],
        "c": r["metrics"].get("max_concurrency"),
        "input_len": workload.get("input_len"),
        "output_len": workload.get("output_len"),
        "label": r["label"],
        "by": r.get("published_by") or r["run_by"],
        "url": r.get("source_url"),
        "name": r["name"],
    }
    power = r["metrics"].get("avg_power_w")
    if isinstance(power, int | float):
        out["avg_w"] = _round(power * r["gpus"])
    return {k: v for k, v in out.items() if v is not None}


class _Lines:
    """Every distinct line once; entries hold indices."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.index: dict[str, int] = {}

    def add(self, text: str) -> list[int]:
        out = []
        for line in text.split("\n") if text else []:
            if line not in self.index:
                self.index[line] = len(self.items)
                self.items.append(line)
            out.append(self.index[line])
        return out


def compare_entry(rendering: dict, profile: dict, measured: dict | None, lines: _Lines) -> dict:
    """One hardware's column for one variant tree (see the module docstring)."""
    p = rendering["plan"]["default"]
    gpus = int(p.get("gpus") or 1)
    entry: dict = {
        "variant": rendering["variant"],
        "strategy": rendering["strategy"],
        "nodes": rendering["node_count"],
        "gpus": gpus,
        "tp": p.get("tp"),
        "replicas_per_node": max(1, int(profile.get("gpu_count") or 1) // gpus),
        "kv_tokens": p.get("max_tokens"),
        "verdict": p.get("verdict"),
    }
    if plan.holds(p) and p.get("max_tokens") is not None:
        # the KV-bounded maximum speed.estimate reports: each DP rank holds max_tokens
        ranks = speed.Layout(tp=int(p.get("tp") or 1), replicas=int(p.get("dp") or 1))
        entry["max_concurrency"] = speed.kv_bounded(replace(ranks, kv_tokens=p["max_tokens"]))
    est = estimate_per_gpu(rendering.get("speed"), gpus)
    if est is not None:
        entry["est"], entry["est_c"] = est
    if measured is not None:
        entry["measured"] = measured
    power = profile.get("power_watts")
    if isinstance(power, int | float):
        entry["board_w"] = _round(power * gpus)
    env = exports(rendering.get("env") or {}).rstrip("\n")
    entry["env"] = lines.add(env)
    text = command_text(rendering)
    entry["cmd"] = lines.add(text.replace(SEP, "\n")) if text else []
    return {k: v for k, v in entry.items() if v is not None}


def compare_block(
    hf_id: str, docs: dict[str, dict], profiles: dict, benchmarks: dict | None
) -> dict:
    """The model document's `compare` block from the recipe's hardware documents (`docs`, keyed
    by path) and its benchmarks document (None without results)."""
    results = (benchmarks or {}).get("results") or []
    lines = _Lines()
    variants: dict[str, dict[str, dict]] = {}
    for hw, profile in profiles.items():
        doc = docs.get(hw_doc_path(hf_id, hw))
        if doc is None:
            continue
        by_key = {(r["variant"], r["strategy"], r["node_count"]): r for r in doc["renderings"]}
        for tree, pick in doc["recommended"].items():
            r = by_key.get((pick["variant"], pick["strategy"], pick["node_count"]))
            if r is None:
                continue
            measured = best_measured(results, hw, r["variant"])
            variants.setdefault(tree, {})[hw] = compare_entry(r, profile, measured, lines)
    return {
        "workload": {"prompt_tokens": speed.PROMPT_TOKENS, "output_tokens": speed.OUTPUT_TOKENS},
        "sep": SEP,
        "lines": lines.items,
        "benchmarks": link(benchmarks_doc_path(hf_id)) if results else None,
        "variants": variants,
    }


def listing_figures(entry: dict) -> dict:
    """What a hardware document's model entry carries from its compare entry: the layout and
    the tokens/s per GPU hardware pages rank by."""
    out = {k: entry[k] for k in ("gpus", "tp") if k in entry}
    if "est" in entry:
        out["est_tps_per_gpu"] = entry["est"]
    if "measured" in entry:
        out["measured_tps_per_gpu"] = entry["measured"]["tps"]
    return out


def with_compare(
    hf_id: str, docs: dict[str, dict], profiles: dict, summary: RecipeSummary
) -> RecipeSummary:
    """Put the `compare` block into the model document in `docs` (with the benchmarks document
    when present) and return the summary whose hardware entries carry `listing_figures`."""
    block = compare_block(hf_id, docs, profiles, docs.get(benchmarks_doc_path(hf_id)))
    docs[model_doc_path(hf_id)]["compare"] = block
    entries = {
        hw: [
            {**e, **listing_figures(block["variants"].get(e["variant"], {}).get(hw, {}))}
            for e in items
        ]
        for hw, items in summary.hardware_entries.items()
    }
    return replace(summary, hardware_entries=entries)


# -- hardware pages ---------------------------------------------------------------------------


def _tps(x: float) -> str:
    return f"{x:,.0f}" if x >= 10 else f"{x:.2g}"


def listing(entry: dict) -> dict:
    """A hardware page row's figures from its hardware-document entry: `speed` (tokens/s per
    GPU the page sorts by, None when unknown), `speed_kind` ("measured" or "estimated") and the
    labels the page prints."""
    gpus, tp = entry.get("gpus"), entry.get("tp")
    layout = f"{gpus} GPU{'s' if gpus != 1 else ''}, TP {tp}" if gpus and tp else ""
    if "measured_tps_per_gpu" in entry:
        value = entry["measured_tps_per_gpu"]
        return {
            "speed": value,
            "speed_kind": "measured",
            "speed_label": f"{_tps(value)} tok/s per GPU, measured",
            "layout_label": layout,
        }
    if "est_tps_per_gpu" in entry:
        low, high = entry["est_tps_per_gpu"]
        return {
            "speed": (low + high) / 2,
            "speed_kind": "estimated",
            "speed_label": f"{_tps(low)}–{_tps(high)} tok/s per GPU, estimated",
            "layout_label": layout,
        }
    return {"speed": None, "speed_kind": None, "speed_label": "", "layout_label": layout}


def ranked(items: list[dict], title) -> list[dict]:
    """Rows by tokens/s per GPU, fastest first (measured where a result exists, else the
    estimate's midpoint); rows without a figure after them, by `title`."""
    return sorted(items, key=lambda i: (i["speed"] is None, -(i["speed"] or 0.0), title(i)))


# -- the /compare/ page -----------------------------------------------------------------------


def page_context(labels: dict[str, str], listed: list[str]) -> dict:
    """What compare.html renders: the listed profiles' labels (the page's hardware choices, in
    taxonomy order) and where the script reads the model index and the model documents."""
    return {
        "title": "Compare hardware",
        "description": "One model on 2 to 4 hardware profiles or variants side by side: layout, "
        "KV cache, estimated and measured tokens/s per GPU, cost per million output tokens at "
        "your price, power and the commands.",
        "compare_hardware": [(h, labels.get(h, h)) for h in listed],
        "models_url": link(f"{API}/models.json"),
        "model_doc_prefix": link(f"{API}/models/"),
    }
