"""The browse index: one compact record per recipe, embedded as JSON in the home page.

Records carry exactly what the page script filters, counts and sorts on; the visible table
rows are rendered from the same records by the template, so a row and its record never
disagree. Facet keys are the names used in the page's URL (`?task=text&size=70-200`).
"""
from __future__ import annotations

from recipes_site.sizing import parse_parameter_count

FACETS = ("task", "architecture", "size", "precision", "hardware", "provider")
FACET_LABELS = {"task": "Task", "architecture": "Architecture", "size": "Size", "precision": "Precision",
                "hardware": "Runs on", "provider": "Provider"}
SIZE_BUCKETS = (("lt10", "<10B", 0, 10), ("10-70", "10–70B", 10, 70), ("70-200", "70–200B", 70, 200),
                ("200-1t", "200B–1T", 200, 1000), ("gte1t", "≥1T", 1000, float("inf")))
ARCH_LABELS = {"moe": "MoE", "dense": "Dense"}
SORTS = (("name", "Name (A–Z)"), ("updated", "Recently updated"), ("added", "Recently added"),
         ("largest", "Largest first"), ("smallest", "Smallest first"))


def size_bucket(billions: float | None) -> str | None:
    if billions is None:
        return None
    for key, _label, low, high in SIZE_BUCKETS:
        if low <= billions < high:
            return key
    return None


def format_params(text) -> str:
    """"70B" stays "70B"; a bare number of billions gets its unit."""
    if text is None:
        return ""
    b = parse_parameter_count(text)
    if b is None:
        return str(text)
    return str(text) if isinstance(text, str) else (f"{b:g}B" if b < 1000 else f"{b / 1000:g}T")


def search_record(model: dict, hw_labels: dict) -> dict:
    """One recipe as the browse page sees it (`model` is an entry of api/v1/models.json)."""
    hw = list(model.get("hardware") or [])
    params = parse_parameter_count(model.get("parameter_count"))
    hw_names = [hw_labels.get(h, h) for h in hw]
    text = " ".join(str(x) for x in [
        model["id"], model.get("title") or "", model.get("provider") or "", model.get("description") or "",
        " ".join(model.get("tasks") or []), model.get("architecture") or "",
        format_params(model.get("parameter_count")), " ".join(model.get("precisions") or []),
        " ".join(hw), " ".join(hw_names)])
    return {
        "id": model["id"],
        "title": model.get("title") or model["id"],
        "task": list(model.get("tasks") or []),
        "architecture": [model["architecture"]] if model.get("architecture") else [],
        "size": [b] if (b := size_bucket(params)) else [],
        "precision": list(model.get("precisions") or []),
        "hardware": hw,
        "provider": [model.get("provider")] if model.get("provider") else [],
        "params": params,
        "updated": model.get("date_updated") or model.get("date_added") or "",
        "added": model.get("date_added") or "",
        "text": " ".join(text.split()),
    }


def browse_index(models: list[dict], hw_labels: dict, taxonomy: dict) -> dict:
    """Records plus every facet's values (id, label, count over all recipes) in display order.

    `hw_labels` maps hardware ids to display labels in taxonomy order."""
    records = sorted((search_record(m, hw_labels) for m in models), key=lambda r: (r["title"].lower(), r["id"]))
    task_labels = {t.get("id"): t.get("display_name") or t.get("id")
                   for t in (taxonomy.get("tasks") or []) if isinstance(t, dict)}

    def counts(facet):
        out: dict[str, int] = {}
        for r in records:
            for v in r[facet]:
                out[v] = out.get(v, 0) + 1
        return out

    facets = {}
    c = counts("task")
    order = [t for t in task_labels if t in c] + sorted(t for t in c if t not in task_labels)
    facets["task"] = [(t, task_labels.get(t, t.capitalize()), c[t]) for t in order]
    c = counts("architecture")
    facets["architecture"] = [(a, ARCH_LABELS.get(a, a), c[a]) for a in sorted(c, key=lambda a: (a != "moe", a))]
    c = counts("size")
    facets["size"] = [(k, label, c[k]) for k, label, _l, _h in SIZE_BUCKETS if k in c]
    c = counts("precision")
    prec_order = ["bf16", "fp16", "fp8", "mxfp8", "int8", "fp4", "nvfp4", "mxfp4", "int4", "awq", "gptq"]
    facets["precision"] = [(p, p.upper(), c[p]) for p in sorted(c, key=lambda p: (
        prec_order.index(p) if p in prec_order else len(prec_order), p))]
    c = counts("hardware")
    facets["hardware"] = [(h, hw_labels[h], c[h]) for h in hw_labels if h in c]
    c = counts("provider")
    facets["provider"] = [(p, p, c[p]) for p in sorted(c, key=str.lower)]
    return {"records": records, "facets": facets}
