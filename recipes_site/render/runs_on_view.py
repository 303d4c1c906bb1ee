"""The model page's "Runs on" rows and its group of hardware that cannot run the model.

The figures come from runs_on.py (the smallest layout per profile, from the published plans);
this module only words them and links each row to that choice in the picker (the URL
parameters site.js `fromUrl` reads).

The estimated tokens/s column is a slot: `runs_on_rows(..., speed=f)` fills it with
`f(hw_doc, rendering) -> str | None` (the estimate's text for that rendering, tokens/s of one
request, e.g. "40–55"); the page shows the column only when some row has a value. The page passes
`published_speed`, which words the estimate a hardware document's rendering publishes under
`speed` (speed.py's roofline, when the build makes one) and gives None without it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple
from urllib.parse import urlencode

from recipes_site import plan, runs_on
from recipes_site.jsish import mapping
from recipes_site.site_root import url

# speed(hw_doc, rendering) -> the estimated tokens/s of that rendering in words, or None
SpeedText = Callable[[dict, dict], str | None]


class RunsOnRow(NamedTuple):
    """One profile of the "Runs on" table."""

    hardware: str  # profile id
    label: str  # its display name
    href: str | None  # the picker showing this layout (None when nothing fits there)
    layout: str  # "2 GPUs · TP 2", or why nothing fits
    variant: str  # the variant's label
    room: str  # full-context requests the KV cache holds ("2"; "0 (up to 8,192 tokens)")
    comfortable: bool | None  # None: not known (a GPU count's layout)
    tokens_per_s: str | None  # the slot speed.py fills


class UnavailableHardware(NamedTuple):
    """Profiles no variant of the recipe runs on, for one reason in words."""

    ids: list[str]
    labels: list[str]
    reason: str


def layout_words(p: dict) -> str:
    """'2 GPUs · TP 2' (PP, DP, EP and nodes when the plan has them) of a compact plan; the
    row names the hardware."""
    gpus, nodes = p.get("gpus", 1), p.get("nodes", 1)
    parallel = f"TP {p.get('tp', 1)}"
    if p.get("pp", 1) > 1:
        parallel += f" × PP {p['pp']}"
    if p.get("dp", 1) > 1:
        parallel += f" × DP {p['dp']}"
    if p.get("ep"):
        parallel += " + EP"
    where = f" · {nodes} nodes" if nodes > 1 else ""
    return f"{gpus} GPU{'s' if gpus > 1 else ''} · {parallel}{where}"


def room_words(p: dict, full: int | None) -> str:
    """How many requests of the full context the layout's KV cache holds ("3"; "≥ 1" for a GPU
    count's layout, which publishes only the length it serves), or "0 (up to N tokens)" when
    its command serves a shorter length."""
    served, held = p.get("context_length"), p.get("concurrency")
    if not served:
        return ""
    if full and served < full:
        return f"0 (up to {served:,} tokens)"
    return str(held) if isinstance(held, int) else "≥ 1"


def _tokens(v: float) -> str:
    return f"{v:.0f}" if v >= 10 else f"{v:.1f}"


def published_speed(hw_doc: dict, rendering: dict) -> str | None:
    """Decode tokens/s of one request alone, as the rendering's published estimate gives it:
    `speed.c` the concurrency levels and `speed.user` their [low, high] tokens/s per request,
    flattened (speed.py); None when the rendering carries no estimate."""
    est = rendering.get("speed")
    levels = est.get("c") if isinstance(est, dict) else None
    user = est.get("user") if isinstance(est, dict) else None
    if not isinstance(levels, list) or not isinstance(user, list) or 1 not in levels:
        return None
    i = 2 * levels.index(1)
    if len(user) < i + 2 or not all(isinstance(v, (int, float)) for v in user[i : i + 2]):
        return None
    return f"{_tokens(user[i])}–{_tokens(user[i + 1])}"


def picker_href(x: runs_on.Layout, summary: dict, hw_doc: dict) -> str:
    """The page URL (under the site root) that opens the picker on layout `x` (site.js `fromUrl`); parameters the
    picker would choose by itself are left out, as site.js `query` does."""
    first = summary["default"]["variant"] if summary.get("default") else None
    rec = mapping(hw_doc["recommended"].get(x.variant))
    q = {"hardware": x.hardware}
    if x.variant in summary["variants"] and x.variant != first:
        q["variant"] = x.variant
    if not x.recommended:
        if rec.get("strategy") != x.strategy:
            q["strategy"] = x.strategy
        if rec.get("node_count") != x.node_count:
            q["nodes"] = str(x.node_count)
    if x.gpus_choice is not None:
        q["gpus"] = str(x.gpus_choice)
    return url(f"/{summary['id']}/") + "?" + urlencode(q)


def runs_on_rows(
    summary: dict, hw_docs: dict[str, dict], recipe: dict, speed: SpeedText | None = None
) -> list[RunsOnRow]:
    """Per profile the recipe renders for (taxonomy order): its smallest layout that fits, linked
    to the picker; a profile where nothing fits says why (its recommended command's plan)."""
    layouts = runs_on.smallest_layouts(hw_docs, recipe)
    rows = []
    for h, x in layouts.items():
        hw = summary["hardware"][h]
        if x is None:
            doc = hw_docs[h]
            want = next(iter(doc["recommended"].values()))
            r = next(
                r
                for r in doc["renderings"]
                if (r["variant"], r["strategy"], r["node_count"])
                == (want["variant"], want["strategy"], want["node_count"])
            )
            why = plan.expand(r["plan"]["default"], hw["gpu"], hw["vram_per_gpu_gb"])["reason"]
            rows.append(RunsOnRow(h, hw["label"], None, why, "", "", False, None))
            continue
        rendering = next(
            r
            for r in hw_docs[h]["renderings"]
            if (r["variant"], r["strategy"], r["node_count"])
            == (x.variant, x.strategy, x.node_count)
        )
        tree = summary["variants"].get(x.variant, {})
        rows.append(
            RunsOnRow(
                h,
                hw["label"],
                picker_href(x, summary, hw_docs[h]),
                layout_words(x.plan),
                # the variant's name, without the checkpoint and size its picker label adds
                str(tree.get("label", x.variant)).split(" · ")[0],
                room_words(x.plan, tree.get("context_length")),
                x.comfortable,
                speed(hw_docs[h], rendering) if speed else None,
            )
        )
    return rows


def unavailable_group(
    summary: dict, reasons: dict[str, dict[str, str]]
) -> list[UnavailableHardware]:
    """The profiles no variant tree of the recipe runs on, with the default variant's reason
    (pages.py `unavailable_reasons`), profiles sharing a reason together: the page lists them
    collapsed instead of as pills. A reason naming its profile first ("H20 is opt-in ...") or
    last ("... fits H20") is shared as "each is opt-in ..." / "... fits them"."""
    offered = {h for tv in summary["variants"].values() for h in tv["hardware"]}
    first = summary["default"]["variant"] if summary.get("default") else None
    why = reasons.get(first or "", {})
    groups: dict[str, UnavailableHardware] = {}
    for h, hw in summary["hardware"].items():
        if h in offered:
            continue
        label = hw["label"]
        reason = why.get(h, "Not offered by this recipe")
        if reason.startswith(label + " "):
            shared = "each" + reason[len(label) :]
        elif reason.endswith(" " + label):
            shared = reason[: -len(label)] + "them"
        else:
            shared = reason
        group = groups.setdefault(shared, UnavailableHardware([], [], reason))
        group.ids.append(h)
        group.labels.append(label)
    return [g if len(g.ids) == 1 else g._replace(reason=key) for key, g in groups.items()]
