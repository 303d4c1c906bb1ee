"""The browse index: one compact record per recipe, split into shards the page script fetches.

Why shards: at 10,000 recipes the whole index inlined in the home page was 10 MB. The home page
now carries only its first page of rows (server-rendered, name order), the facet counts and a
small manifest (`browse_manifest`); the records live in `api/v1/search/<k>.json`, fixed-size
chunks in name order (so page k of the unfiltered list needs exactly one shard), each record a
compact array (`FIELDS`), fetched when the user types, filters, sorts or pages. The 404 page
looks a mistyped address up in one small id bucket (`id_buckets`, `bucket_of`; site.js `bucketOf`)
and fetches the same shards only to suggest pages.

Records carry exactly what the page script filters, counts, sorts and shows; the server-rendered
rows come from the same records, so a row and its record never disagree. Facet keys are the
names used in the page's URL (`?task=text&size=70-200`).
"""

from __future__ import annotations

import struct

from recipes_site.sizing import parse_parameter_count

FACETS = ("task", "architecture", "size", "precision", "hardware", "provider")
FACET_LABELS = {
    "task": "Task",
    "architecture": "Architecture",
    "size": "Size",
    "precision": "Precision",
    "hardware": "Runs on",
    "provider": "Provider",
}
SIZE_BUCKETS = (
    ("lt10", "<10B", 0, 10),
    ("10-70", "10–70B", 10, 70),
    ("70-200", "70–200B", 70, 200),
    ("200-1t", "200B–1T", 200, 1000),
    ("gte1t", "≥1T", 1000, float("inf")),
)
ARCH_LABELS = {"moe": "MoE", "dense": "Dense"}
SORTS = (
    ("name", "Name (A–Z)"),
    ("updated", "Recently updated"),
    ("added", "Recently added"),
    ("largest", "Largest first"),
    ("smallest", "Smallest first"),
)


def size_bucket(billions: float | None) -> str | None:
    if billions is None:
        return None
    for key, _label, low, high in SIZE_BUCKETS:
        if low <= billions < high:
            return key
    return None


def format_params(text) -> str:
    """ "70B" stays "70B"; a bare number of billions gets its unit."""
    if text is None:
        return ""
    b = parse_parameter_count(text)
    if b is None:
        return str(text)
    return str(text) if isinstance(text, str) else (f"{b:g}B" if b < 1000 else f"{b / 1000:g}T")


PAGE_SIZE = 50  # rows per results page (home page)
MAX_SHARDS = 32  # search shards at most, whatever the catalog size
MIN_SHARD = 2 * PAGE_SIZE
SEARCH_DIR = "api/v1/search"
# the order of a compact record's items (a shard's `records` are arrays, not objects: smaller)
FIELDS = (
    "id",
    "title",
    "description",
    "task",
    "architecture",
    "size",
    "precision",
    "hardware",
    "provider",
    "params",
    "params_label",
    "active_label",
    "updated",
    "added",
    "checkpoints",
    "runs_on",
)
PROVIDER_CHIPS = 40  # provider facet chips / provider links on the home page, most recipes first
ID_BUCKET = 256  # ids per 404 lookup bucket, about


def search_record(model: dict, hw_labels: dict, checkpoints: list[str] | None = None) -> dict:
    """One recipe as the browse page sees it (`model` is an entry of api/v1/models.json;
    `checkpoints` the other ids that lead to it, searchable and suggested by the 404 page)."""
    params = parse_parameter_count(model.get("parameter_count"))
    active = model.get("active_parameters")
    return {
        "id": model["id"],
        "title": model.get("title") or model["id"],
        "description": " ".join(str(model.get("description") or "").split()),
        "task": list(model.get("tasks") or []),
        "architecture": [model["architecture"]] if model.get("architecture") else [],
        "size": [b] if (b := size_bucket(params)) else [],
        "precision": list(model.get("precisions") or []),
        "hardware": [h for h in model.get("hardware") or [] if h in hw_labels],
        "provider": [model.get("provider")] if model.get("provider") else [],
        "params": params,
        "params_label": format_params(model.get("parameter_count")),
        "active_label": format_params(active)
        if active and active != model.get("parameter_count")
        else "",
        "updated": model.get("date_updated") or model.get("date_added") or "",
        "added": model.get("date_added") or "",
        "checkpoints": list(checkpoints or []),
        "runs_on": runs_on_cell(model, hw_labels),
    }


def runs_on_cell(model: dict, hw_labels: dict) -> list[str]:
    """The "Runs on" cell of a row, [text, note]: the smallest hardware that fits with its GPUs,
    and its precision and how many more profiles run the model, from the entry's `smallest_fit`
    (runs_on.py); where nothing fits, the first profiles it renders for (vLLM-Omni for an omni
    recipe without commands, a dash for none)."""
    hardware = [h for h in model.get("hardware") or [] if h in hw_labels]
    best = model.get("smallest_fit")
    if not best or best["hardware"] not in hw_labels:
        if not hardware:
            return ["vLLM-Omni" if "omni" in (model.get("tasks") or []) else "—", ""]
        more = f" +{len(hardware) - 4}" if len(hardware) > 4 else ""
        return [", ".join(hw_labels[h] for h in hardware[:4]) + more, ""]
    note = [str(best["precision"]).upper()] if best.get("precision") else []
    others = len(hardware) - (best["hardware"] in hardware)
    note += [f"+{others} more"] if others else []
    return [f"{best['gpus']}× {hw_labels[best['hardware']]}", " · ".join(note)]


def compact(r: dict) -> list:
    return [r[f] for f in FIELDS]


def shard_size(n: int) -> int:
    """Records per shard: a multiple of the page size, at least MIN_SHARD, at most MAX_SHARDS shards."""
    per = -(-n // MAX_SHARDS)
    return max(MIN_SHARD, -(-per // PAGE_SIZE) * PAGE_SIZE)


def shards(records: list[dict]) -> list[list[dict]]:
    """The records (already in name order) cut into fixed-size chunks; always at least one."""
    size = shard_size(len(records))
    return [records[i : i + size] for i in range(0, len(records), size)] or [[]]


def shard_doc(k: int, chunk: list[dict], size: int) -> dict:
    return {
        "shard": k,
        "start": k * size,
        "fields": list(FIELDS),
        "records": [compact(r) for r in chunk],
    }


def bucket_of(key: str, n: int) -> int:
    """FNV-1a (32 bit) over the key's UTF-16 code units, modulo n (site.js `bucketOf` is the same
    loop over charCodeAt), so Python and JavaScript pick the same bucket. With one bucket (up to
    ID_BUCKET ids, as the compat corpus) every hash gives 0: not computed."""
    if n == 1:
        return 0
    h = 0x811C9DC5
    data = key.encode("utf-16-le")
    for unit in struct.unpack(f"<{len(data) // 2}H", data):  # the code units, little-endian
        h = ((h ^ unit) * 0x01000193) & 0xFFFFFFFF
    return h % n


def id_buckets(targets: dict[str, str]) -> list[dict[str, str]]:
    """Lower-cased id or org -> its page, in buckets of about ID_BUCKET entries, keys sorted:
    the 404 page fetches the one bucket its address falls in to fix a mistyped letter case."""
    n = max(1, -(-len(targets) // ID_BUCKET))
    out: list[dict[str, str]] = [{} for _ in range(n)]
    for key in sorted(targets, key=str.lower):
        out[bucket_of(key.lower(), n)].setdefault(key.lower(), targets[key])
    return [dict(sorted(b.items())) for b in out]


def browse_index(
    models: list[dict],
    hw_labels: dict,
    taxonomy: dict,
    checkpoints: dict[str, list[str]] | None = None,
) -> dict:
    """Records in name order plus every facet's values (id, label, count over all recipes) in
    display order; the provider facet keeps its PROVIDER_CHIPS largest values (`more_providers`
    says how many others there are: their recipes are found by typing the name).

    `hw_labels` maps hardware ids to display labels in taxonomy order."""
    checkpoints = checkpoints or {}
    records = sorted(
        (search_record(m, hw_labels, checkpoints.get(m["id"])) for m in models),
        key=lambda r: (r["title"].lower(), r["id"]),
    )
    task_labels: dict = {
        t.get("id"): t.get("display_name") or t.get("id")
        for t in (taxonomy.get("tasks") or [])
        if isinstance(t, dict)
    }

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
    facets["architecture"] = [
        (a, ARCH_LABELS.get(a, a), c[a]) for a in sorted(c, key=lambda a: (a != "moe", a))
    ]
    c = counts("size")
    facets["size"] = [(k, label, c[k]) for k, label, _l, _h in SIZE_BUCKETS if k in c]
    c = counts("precision")
    prec_order = [
        "bf16",
        "fp16",
        "fp8",
        "mxfp8",
        "int8",
        "fp4",
        "nvfp4",
        "mxfp4",
        "int4",
        "awq",
        "gptq",
    ]
    facets["precision"] = [
        (p, p.upper(), c[p])
        for p in sorted(
            c, key=lambda p: (prec_order.index(p) if p in prec_order else len(prec_order), p)
        )
    ]
    c = counts("hardware")
    facets["hardware"] = [(h, hw_labels[h], c[h]) for h in hw_labels if h in c]
    c = counts("provider")
    top = sorted(c, key=lambda p: (-c[p], p.lower(), p))[:PROVIDER_CHIPS]
    facets["provider"] = [(p, p, c[p]) for p in sorted(top, key=lambda p: (p.lower(), p))]
    return {"records": records, "facets": facets, "more_providers": len(c) - len(top)}


# -- the header search dropdown ---------------------------------------------------------------

HEADER_DOC = f"{SEARCH_DIR}/header.json"  # fixed address: every page's header fetches it
LATEST = 5  # recipes the empty dropdown lists, newest first


def latest_records(records: list[dict], n: int = LATEST) -> list[dict]:
    """The `n` newest recipes by `meta.date_added` (then last updated, then name): what the
    header dropdown offers before anything is typed. Recipes without a date come last."""
    return sorted(records, key=lambda r: (r["added"], r["updated"], r["id"].lower()), reverse=True)[
        :n
    ]


def header_doc(
    browse: dict,
    shard_urls: list[str],
    hw_labels: dict,
    task_labels: dict,
    providers: list[tuple[str, str, int]],
) -> dict:
    """What the header dropdown (static/search.js) reads: the latest recipes, the providers
    (organisation id, display name, recipe count; most recipes first), the tasks to browse by
    (home page `?task=` facet links) and the shard URLs whose records answer a typed query.
    Pages cannot inline it: a recipe page is rendered (and cached) before the catalog-wide shard
    URLs are known, so it lives at a fixed address."""
    latest = [
        {
            "id": r["id"],
            "title": r["title"],
            "sub": " · ".join(
                x
                for x in (
                    ", ".join(r["provider"]),
                    r["params_label"],
                    ", ".join(ARCH_LABELS.get(a, a) for a in r["architecture"]),
                    r["added"],
                )
                if x
            ),
        }
        for r in latest_records(browse["records"])
    ]
    return {
        "total": len(browse["records"]),
        "latest": latest,
        "providers": [
            list(p) for p in sorted(providers, key=lambda p: (-p[2], p[0].lower(), p[0]))
        ],
        "tasks": [[t, task_labels.get(t, label), n] for t, label, n in browse["facets"]["task"]],
        "hardware": hw_labels,
        "shards": shard_urls,
    }
