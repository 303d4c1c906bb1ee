"""The human site: HTML pages (jinja2, autoescaped), Markdown for agents, sitemap and friends.

Two entry points, matching the build's two phases:

    recipe_pages(catalog, rec, ctx, docs)   # one recipe: its model page and <org>/<repo>.md;
                                            #   `docs` = that recipe's API documents
    catalog_pages(catalog, api_docs)        # home/browse, providers, hardware, checkpoint
                                            #   redirects, 404, sitemap.xml, robots.txt, llms.txt

(`site_pages` runs both serially.) Pages are views: every command shown is cut from the API
hardware documents by the rule the page script uses (`process_text`, site.js `commandText`):
slice the rendered command around its feature block (`parts`) and join the selected lines.

Configuration: recipes-site.yaml in the recipes root (site_config.py: base URL, repository URL,
site name), overridden by RECIPES_SITE_URL / RECIPES_SITE_REPO_URL and the CLI flags. Without a
base URL the pages are a local preview: no canonical URLs, a sitemap.xml of site paths. Every site link goes
through `site_root.url` (or `{{ base }}` in the templates), so a site published under a path
(https://<owner>.github.io/<repo>) links under it; page paths, canonical URLs and the sitemap
work on the unprefixed site path (`config.absolute` appends it to the base URL, which holds the
prefix already).
"""

from __future__ import annotations

import hashlib
import os
import posixpath
from collections import Counter
from collections.abc import Collection
from decimal import ROUND_HALF_UP, Decimal
from functools import cached_property, lru_cache
from html import escape
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlencode, urljoin, urlsplit

import jinja2
import rcssmin
from jinja2 import Environment, FileSystemBytecodeCache, FileSystemLoader
from jinja2.bccache import Bucket
from markupsafe import Markup

from recipes_site import fit, plan, sizing, speed
from recipes_site.catalog import PROJECT_ROOT
from recipes_site.catalog.shell_policy import UNCHECKED_SHELL_WARNING
from recipes_site.data import VLLM_VERSION
from recipes_site.jsish import mapping
from recipes_site.render import compare, kv_offload
from recipes_site.render.api import (
    API,
    HF,
    RecipeInput,
    hardware_entries_of,
    hw_doc_path,
    model_doc_path,
)
from recipes_site.render.benchmark_docs import benchmarks_doc_path
from recipes_site.render.benchmark_plots import chart_sets
from recipes_site.render.hardware_specs import spec_rows
from recipes_site.render.inputs import deploy_doc_path
from recipes_site.render.markdown import render_guide, rewrite_links
from recipes_site.render.picker import exports, page_document, picker_summary, variant_labels
from recipes_site.render.runs_on_view import (
    RunsOnRow,
    UnavailableHardware,
    published_speed,
    runs_on_rows,
    unavailable_group,
)
from recipes_site.render.search import (
    ARCH_LABELS,
    FACET_LABELS,
    FACETS,
    HEADER_DOC,
    PAGE_SIZE,
    PROVIDER_CHIPS,
    SEARCH_DIR,
    SORTS,
    browse_index,
    format_params,
    header_doc,
    id_buckets,
    shard_doc,
    shard_size,
    shards,
)
from recipes_site.render.speed_chart import URL_TEMPLATE as SPEED_URL_TEMPLATE
from recipes_site.render.speed_chart import speed_svg, symbol_id
from recipes_site.render.templating import PageEnvironment
from recipes_site.site_config import SiteConfig, site_config
from recipes_site.site_root import root, site_path, url
from recipes_site.synthesis import promotable_variants
from recipes_site.synthesis.install import install_block
from recipes_site.synthesis.selection import (
    allowed_by_variant,
    meets_constraint,
    precision_constraint,
)
from recipes_site.synthesis.shell import SEP
from recipes_site.write import encode_json, json_text

TEMPLATES = PROJECT_ROOT / "templates"
# verify.js, search.js and more.js load on demand (the first click on Verify/Bench/Tune, the
# header search's first focus, the "More options" row's first opening), compare.js on /compare/
# only: not a model page's weight
STATIC = ("site.css", "site.js", "verify.js", "compare.js", "search.js", "more.js", "pd.js")
HW_PAGE_ITEMS = 100  # models per hardware page (hardware/<hw>/ then hardware/<hw>/page/<k>/)
# ids the model page uses itself; guide headings never take them
PAGE_IDS = frozenset(
    {
        "main",
        "top",
        "install",
        "serve",
        "picker-data",
        "guide",
        "about",
        "command-panel",
        "plan-warning",
        "sizing-h",
        "install-h",
        "serve-h",
        "variants",
        "variants-h",
        "runs-on",
        "runs-on-h",
        "guide-h",
        "browse-data",
        "results",
        "filters",
        "search",
    }
    | {f"plan-cmd-{i}" for i in range(64)}
)


# -- what the templates show in rows -----------------------------------------------------------


class Badge(NamedTuple):
    kind: str
    text: str


class HardwarePill(NamedTuple):
    """One hardware button of the model page."""

    id: str
    label: str
    specs: str  # "<GPUs>×<GiB> GiB"
    verified: bool
    checked: bool
    offered: bool  # for the shown variant
    reason: str | None  # why not, when not offered


class HardwareBrand(NamedTuple):
    name: str
    pills: list[HardwarePill]


class NodePill(NamedTuple):
    nodes: int
    label: str  # the nodes it occupies
    gpus: str


class BarPart(NamedTuple):
    """One part of the memory bar: its CSS key, legend text and width."""

    key: str
    text: str
    width: str


class PlanCommand(NamedTuple):
    id: str
    caption: str
    command: str


class JsonLink(NamedTuple):
    later: bool  # after the first: a separator before it
    url: str
    label: str


# -- JSON inside <script> ---------------------------------------------------------------------


def script_json(data) -> Markup:
    """JSON safe inside <script type="application/json">: no `<`, `>` or `&` can end the tag."""
    return _script_safe(json_text(data))


_SCRIPT_ESCAPES = (
    ("&", "\\u0026"),
    ("<", "\\u003c"),
    (">", "\\u003e"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)
# the same replacements on UTF-8 bytes: none of these sequences can occur inside another
# character's encoding (UTF-8 is self-synchronising), so replacing bytes replaces characters
_SCRIPT_ESCAPES_UTF8 = tuple(
    (ch.encode("utf-8"), esc.encode("utf-8")) for ch, esc in _SCRIPT_ESCAPES
)


def _script_safe(text: str) -> Markup:
    for ch, esc in _SCRIPT_ESCAPES:
        text = text.replace(ch, esc)
    return Markup(text)


def _script_safe_utf8(data: bytes) -> bytes:
    """`_script_safe` of the text these bytes encode, encoded."""
    for ch, esc in _SCRIPT_ESCAPES_UTF8:
        data = data.replace(ch, esc)
    return data


def picker_json(data: dict) -> bytes:
    """`script_json(data)` of a model page's picker data, as UTF-8 bytes (`_with_script` puts
    them in the encoded page)."""
    return _script_safe_utf8(encode_json(data)[:-1])


# where the model page's picker data goes: no escaped string can write it (it holds '<')
_SCRIPT_SLOT = "<picker-data-slot/>"
_SCRIPT_SLOT_UTF8 = _SCRIPT_SLOT.encode("utf-8")


def _with_script(
    pages: _Pages, template: str, path: str, page: dict, script: bytes | None
) -> bytes:
    """The page, its `picker_json` being `script` (UTF-8 bytes of safe JSON, or None).

    Why: that JSON is ~60 KB per model page (5 MB per compat build). Rendered in the template it
    was decoded, escaped as text, copied into the page and encoded again; here the page is
    rendered around a slot and the slot's bytes are replaced by the script's. Should the slot's
    text occur more than once (it cannot come from an escaped string), the page is rendered with
    the script's text in the template instead: the same bytes either way."""
    if script is None:
        return pages.render(template, path, picker_json=None, **page)
    html = pages.render(template, path, picker_json=Markup(_SCRIPT_SLOT), **page)
    # (the slot is found once and its absence after it checked: one scan of the page, not the
    # two of count and partition)
    at = html.find(_SCRIPT_SLOT_UTF8)
    end = at + len(_SCRIPT_SLOT_UTF8)
    if at >= 0 and html.find(_SCRIPT_SLOT_UTF8, end) < 0:
        page_bytes = memoryview(
            html
        )  # (its two parts go into the page without a copy of their own)
        return b"".join((page_bytes[:at], script, page_bytes[end:]))
    return pages.render(template, path, picker_json=Markup(script.decode("utf-8")), **page)


# -- the command assembly rule (site.js implements the same) ----------------------------------


def _get(doc, path):
    for step in path:
        doc = doc[step]
    return doc


def default_choice(features: list[dict]) -> list[tuple[dict, dict | None]]:
    """The features a rendering starts with: (feature, mode or None), in the set's order."""
    out = []
    for f in features:
        d = f.get("default")
        if d is False or d is None:
            continue
        mode = (
            next((m for m in f["modes"] if m["name"] == d), f["modes"][0])
            if f.get("modes")
            else None
        )
        out.append((f, mode))
    return out


def process_text(
    rendering: dict,
    part: dict,
    chosen: list[tuple[dict, dict | None]],
    form: str = "serve",
    locked: bool = False,
) -> str:
    """What a command tab shows: the exports and `vllm serve` command, or the `docker run` one."""
    if locked:
        return (
            _get(rendering, part["docker_path"])
            if form == "docker"
            else part["exports"] + _get(rendering, part["path"])
        )
    body = _get(rendering, part["path"]).split(SEP)
    selected = [
        line for f, m in chosen for line in (m["lines"] if m is not None else f.get("lines") or [])
    ]
    lines = body[1 : 1 + part["at"]] + selected + body[1 + part["at"] + part["n"] :]
    tail = SEP + SEP.join(lines) if lines else ""
    if form == "docker":
        return SEP.join(_get(rendering, part["docker_path"]).split(SEP)[: part["docker_at"]]) + tail
    return part["exports"] + body[0] + tail


def extra_text(rendering: dict, extra: dict) -> str:
    return (
        extra["text"]
        if "text" in extra
        else extra.get("prefix", "") + _get(rendering, extra["path"])
    )


def tabs_of(doc: dict, rendering: dict) -> list[dict]:
    """Command tabs in launch order: helper steps, the vLLM processes, then the router."""
    extras = doc["extra_sets"][rendering["parts"]["extras"]]
    before = [dict(e, kind="extra") for e in extras if e["id"] != "router"]
    after = [dict(e, kind="extra") for e in extras if e["id"] == "router"]
    return before + [dict(p, kind="process") for p in rendering["parts"]["processes"]] + after


def by_variant(doc: dict) -> dict[str, list[dict]]:
    """A hardware document's renderings grouped by variant, in document order."""
    groups: dict[str, list[dict]] = {}
    for r in doc["renderings"]:
        groups.setdefault(r["variant"], []).append(r)
    return groups


def tree_renderings(
    doc: dict, tree: str, groups: dict[str, list[dict]] | None = None
) -> tuple[list[dict], dict]:
    """The renderings a variant tree offers on this hardware, and its recommended one (`groups`:
    the document's `by_variant`, when many trees of one document are asked)."""
    rec = doc["recommended"][tree]
    rs = (groups if groups is not None else by_variant(doc)).get(rec["variant"], [])
    best = next(
        r for r in rs if r["strategy"] == rec["strategy"] and r["node_count"] == rec["node_count"]
    )
    return rs, best


def default_text(doc: dict, rendering: dict, tab: dict | None = None) -> str:
    parts = rendering["parts"]
    tab = tab or dict(parts["processes"][0], kind="process")
    if tab["kind"] == "extra":
        return extra_text(rendering, tab)
    features = doc["feature_sets"][parts["features"]]
    return process_text(rendering, tab, default_choice(features), locked=parts["features_locked"])


# -- labels -----------------------------------------------------------------------------------


def hw_labels(profiles: dict) -> dict[str, str]:
    """Display names, disambiguated by GPU count where two profiles share one."""
    names = [str(p.get("display_name") or h) for h, p in profiles.items()]
    shared = {name for name, n in Counter(names).items() if n > 1}
    return {
        h: f"{name} ({p.get('gpu_count') or 1}×)" if name in shared else name
        for (h, p), name in zip(profiles.items(), names)
    }


def gb(value) -> str:
    if value is None:
        return "?"
    return f"{value:g}" if isinstance(value, (int, float)) else str(value)


def context_label(tokens) -> str:
    if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens <= 0:
        return ""
    for unit, suffix in ((1_000_000, "M"), (1_048_576, "M"), (1000, "K"), (1024, "K")):
        if tokens >= unit and tokens % unit == 0:
            return f"{tokens // unit}{suffix}"
    return f"{round(tokens / 1000)}K" if tokens >= 1000 else str(tokens)


# -- the KV-cache part of the sizing panel (site.js `kvView` and `planView` say the same) ------

MAX_CONCURRENCY_INPUT = 100_000


def plan_of(rendering: dict, chosen: list[tuple[dict, dict | None]], hw: dict) -> dict:
    """The plan of a rendering with these features, expanded for the hardware entry `hw` of the
    picker summary (plan.py `rendering_plans` and `expand`; site.js `planOf`)."""
    p = rendering["plan"]
    key = ",".join(
        f"{f['name']}:{m['name']}" if m is not None else f["name"]
        for f, m in chosen
        if f["name"] in p.get("keys", ())
    )
    return plan.expand(p.get("by", {}).get(key) or p["default"], hw["gpu"], hw["vram_per_gpu_gb"])


def window_note(p: dict, full: int | None) -> str:
    """The longest request a command serves, from its plan (site.js `windowNote`): the recipe's
    full window, or the --max-model-len the command passes; nothing for a command that cannot
    start (its warning says why)."""
    n = p["context_length"]
    if not n or p["verdict"] not in ("fits", None):
        return ""
    room = f" (its KV cache holds {p['max_tokens']:,} tokens per GPU)" if p["max_tokens"] else ""
    if full and n < full:
        return (
            f"This command serves requests of up to {n:,} tokens (--max-model-len {n}), "
            f"not the model's full {full:,}{room}."
        )
    return f"This command serves the model's full {n:,}-token window{room}."


def layout_text(p: dict) -> str:
    return (
        f"TP {p['tp']}"
        + (f" × PP {p['pp']}" if p["pp"] > 1 else "")
        + (f" × DP {p['dp']}" if p["dp"] > 1 else "")
        + (" + EP" if p["ep"] else "")
    )


def plan_facts(p: dict, label: str) -> dict:
    """The memory panel's facts and verdict line of an expanded plan (`plan_of`; site.js `planFacts`)."""
    facts = [
        ("GPUs", f"{p['gpus']} × {label}" + (f" on {p['nodes']} nodes" if p["nodes"] > 1 else "")),
        ("Layout", layout_text(p)),
    ]
    if p["weights_gib"] is not None:
        facts.append(
            (
                "Weights",
                f"{_gib(p['weights_gib'])} GiB · {_gib(p['weights_gib_per_gpu'])} GiB per GPU",
            )
        )
    facts.append(
        (
            "Budget per GPU",
            f"{_gib(p['budget_gib_per_gpu'])} GiB of {gb(p['vram_gib_per_gpu'])} GiB",
        )
    )
    return {"facts": facts, "why": p["reason"], "ok": p["verdict"] in ("fits", None)}


def kv_default_len(e: dict) -> int:
    """The length the panel starts at: the command's own (--max-model-len, else the recipe's context)."""
    return e.get("evaluated_len") or e.get("context_length") or 4096


def _gib(x) -> str:
    """One decimal as JavaScript's toFixed(1) writes it: an exact tie (26.25) rounds up, where
    Python's format rounds it to even."""
    return str(Decimal(x).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def _percent(x) -> str:
    """Two decimals as JavaScript's toFixed(2) writes them (an exact tie such as 15.625 rounds
    up), so a bar width the server writes equals the one site.js writes."""
    return str(Decimal(x).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def _count(n: int, word: str, plural: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else plural or word + 's'}"


def kv_view(e: dict | None, length: int | None = None, concurrency: int = 1) -> dict | None:
    """Facts, verdict and memory bar of one deployment entry at a request length and concurrency;
    every number comes from fit.panel_figures (the page formulas)."""
    if e is None:
        return None
    length = length or kv_default_len(e)
    cap = e.get("context_length") or (1 << 24)
    view: dict = {
        "len": length,
        "conc": concurrency,
        "cap": cap,
        "facts": [],
        "parts": [],
        "ok": None,
        "aria": "",
    }
    f = fit.panel_figures(e, length, concurrency)
    if f["needed_bytes"] is None:
        view["verdict"] = (
            "No KV-cache estimate: missing " + "; ".join(e.get("missing_facts") or ["facts"]) + "."
        )
        return view
    kv = e["kv_cache_gib_per_gpu"]
    if not e["kv_cache_bytes_per_gpu"]:
        view["verdict"] = (
            f"No room for a KV cache: weights and overhead exceed the "
            f"{_gib(e['budget_gib_per_gpu'])} GiB budget of each GPU."
        )
        view["ok"] = False
    elif f["fits"]:
        view["verdict"] = (
            f"{_count(concurrency, 'request')} of {length:,} tokens "
            f"need{'s' if concurrency == 1 else ''} {_gib(f['needed_bytes'] / fit.GIB)} GiB "
            f"of KV cache per GPU: fits in {_gib(kv)} GiB."
        )
        view["ok"] = True
    else:
        view["verdict"] = (
            f"{_count(concurrency, 'request')} of {length:,} tokens "
            f"need{'s' if concurrency == 1 else ''} {_gib(f['needed_bytes'] / fit.GIB)} GiB "
            f"of KV cache per GPU, more than the {_gib(kv)} GiB there is: at most {f['requests']:,} "
            f"of that length fit"
            + (
                f", or {concurrency:,} of up to {f['longest']:,} tokens each"
                if f["longest"]
                else ""
            )
            + "."
        )
        view["ok"] = False
    view["facts"] = [
        ("KV per token", f"{int(e['kv_bytes_per_token_per_gpu'] + 0.5):,} B per GPU"),
        ("KV cache", f"{_gib(max(kv, 0))} GiB per GPU · {e['max_tokens']:,} tokens"),
        (f"Requests of {length:,} tokens", f"{f['requests']:,} at once"),
        (f"Longest with {concurrency:,} at once", f"{f['longest']:,} tokens"),
    ]
    need = f["needed_bytes"] / fit.GIB
    room = max(kv, 0)
    over = need > room
    # the memory the GPU reports, which the budget is a share of (a plan entry's own GPU memory)
    total = e.get("memory_total_gib_per_gpu", e["vram_gib_per_gpu"])
    used = need
    parts = [
        ("weights", "Weights", e["weights_gib_per_gpu"]),
        ("overhead", "Overhead", e["overhead_gib_per_gpu"]),
        ("over" if over else "kv", "KV cache needed" if over else "KV cache in use", used),
        ("free", "KV cache free", 0 if over else room - used),
        ("reserve", "Reserve", total - e["budget_gib_per_gpu"]),
    ]
    scale = max(total, sum(g for _, _, g in parts))
    view["parts"] = [
        BarPart(key, f"{label} {_gib(g)} GiB", f"{_percent(100 * g / scale)}%")
        for key, label, g in parts
        if g > 0
    ]
    view["aria"] = f"Per GPU of {gb(total)} GiB: " + ", ".join(part.text for part in view["parts"])
    return view


def plan_view(rendering: dict, p: dict, hw: dict, command: str) -> dict:
    """The throughput plan beside a command (site.js `planView`): copies of that very command,
    each on its own GPUs and port, when it uses part of one node."""
    parts = rendering["plan"].get("replicas")
    if p["verdict"] not in ("fits", None):
        return {
            "summary": "No throughput plan: this command cannot start (see above).",
            "commands": [],
        }
    if not parts:
        where = (
            f"{p['nodes']} nodes"
            if p["nodes"] > 1
            else f"all {p['gpus']} GPUs of one {hw['label']} node"
            if p["gpus"] >= hw["gpu_count"]
            else f"{p['gpus']} of the {hw['gpu_count']} GPUs of one {hw['label']} node"
        )
        return {"summary": f"One copy of this command: it uses {where}.", "commands": []}
    reps = parts["replicas"]
    summary = (
        f"{_count(len(reps), 'copy', 'copies')} of this command ({layout_text(p)}, {_count(p['gpus'], 'GPU')} each) fill one "
        f"{hw['gpu_count']} × {hw['gpu']} node, each on its own GPUs and port"
    )
    if p.get("concurrency") is not None:
        summary += (
            f", each holding {_count(p['concurrency'], 'request')} of {p['context_length']:,} tokens "
            f"({_gib(p['kv_cache_gib_per_gpu'])} GiB of KV cache per GPU)"
        )
    fill = lambda text, r: text.replace("{gpus}", r["gpus"]).replace("{port}", str(r["port"]))
    commands = [
        PlanCommand(
            f"plan-cmd-{i}",
            f"Copy {i + 1}: {r['label']}, port {r['port']}",  # counted from 1, as people count
            fill(parts["serve_prefix"], r) + command + fill(parts["suffix"], r),
        )
        for i, r in enumerate(reps)
    ]
    return {"summary": summary + ".", "commands": commands}


# -- jinja ------------------------------------------------------------------------------------


class _TemplateCache(FileSystemBytecodeCache):
    """jinja's file cache, where a failed write (a full disk, a file size limit) costs the next
    build the compile time instead of failing this one."""

    def dump_bytecode(self, bucket: Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def _bytecode_cache(env: Environment, folder: Path) -> FileSystemBytecodeCache | None:
    """jinja's own bytecode cache in `folder`, the build's cache folder beside the output (the
    build writes nowhere else): compiling the templates costs ~6% of a compat build, loading
    their cached code a tenth of that. The file names carry the jinja version and the options
    that change the generated code, so code compiled under others is never loaded. None when
    the folder cannot be made or is reached through a symbolic link."""
    options = (jinja2.__version__, env.autoescape, env.trim_blocks, env.lstrip_blocks)
    key = hashlib.sha1(repr(options).encode()).hexdigest()[:12]
    try:
        if any(os.path.islink(p) for p in (folder, folder.parent)):
            return None
        folder.mkdir(mode=0o755, parents=True, exist_ok=True)
        return _TemplateCache(str(folder), pattern=f"__recipes_site_{key}_%s.cache")
    except OSError:  # no cache folder: compile in every process
        return None


@lru_cache(maxsize=4)
def _environment(templates: str) -> Environment:
    """One environment per templates folder and process: its templates are loaded once."""
    env = PageEnvironment(
        loader=FileSystemLoader(templates),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=True,  # `serve` renders an edited template anew
    )
    env.filters["script_json"] = script_json
    env.filters["gb"] = gb
    env.filters["params"] = format_params
    return env


def compile_recipe_templates(bytecode_folder: Path | None = None) -> None:
    """Load the model page's templates (model.html and the base.html it extends) in the build
    process before the recipe workers fork, so that they inherit them instead of each loading
    its own copies. With `bytecode_folder` their compiled code is kept there for the next
    build (_bytecode_cache); without it every template is compiled afresh."""
    env = _environment(str(TEMPLATES))
    env.bytecode_cache = (
        _bytecode_cache(env, bytecode_folder) if bytecode_folder is not None else None
    )
    for name in ("model.html", "base.html"):
        env.get_template(name)


def lean_js(text: str) -> str:
    """A script without its comment-only lines, blank lines and indentation: about 3 KB gzip off
    site.js, which every page loads. Line by line, so nothing inside a statement changes; a script
    with a template literal spanning lines (whose indentation is text) is served as written.
    (rjsmin, the usual tool, reads backtick strings as code and joins their words.)"""
    lines = text.splitlines()
    if any(line.count("`") % 2 for line in lines):
        return text
    out: list[str] = []
    in_comment = False
    for line in lines:
        stripped = line.strip()
        if in_comment:
            in_comment = not stripped.endswith("*/")
        elif stripped.startswith("/*"):
            in_comment = not stripped.endswith("*/")
        elif stripped and not stripped.startswith("//"):
            out.append(stripped)
    return "\n".join(out) + "\n"


def _static_asset(path: Path) -> tuple[bytes, str]:
    """A static file's bytes as served and the content hash its URL carries (read for every page
    set, so `serve` sees an edited file). Scripts lose their comments and indentation (lean_js)
    and the stylesheet is minified (rcssmin): every model page loads about 3.5 KB gzip less, which
    keeps pages within the 40 KB budget; templates/static keeps the readable source."""
    data = path.read_bytes()
    if path.suffix == ".js":
        data = lean_js(data.decode("utf-8")).encode("utf-8")
    elif path.suffix == ".css":
        data = rcssmin.cssmin(data.decode("utf-8")).encode("utf-8")
    return data, hashlib.sha256(data).hexdigest()[:10]


class _Pages:
    """The jinja environment and what every page shares (static asset URLs, config, labels)."""

    def __init__(self, profiles: dict, taxonomy: dict, config: SiteConfig | None):
        self.config = config or SiteConfig.from_env()  # callers pass site_config(catalog.root)
        self.profiles = profiles
        self.labels = hw_labels(profiles)
        self.task_labels = {
            t.get("id"): t.get("display_name") or t.get("id")
            for t in (taxonomy.get("tasks") or [])
            if isinstance(t, dict)
        }
        self.env = _environment(str(TEMPLATES))
        self.static = {}
        self.static_files = {}
        for name in STATIC:
            data, digest = _static_asset(TEMPLATES / "static" / name)
            self.static_files[f"static/{name}"] = data
            self.static[name] = url(f"/static/{name}?v={digest}")
        # templates write site links as `{{ base }}/path`: base is the site root without its last
        # slash ('' at the root of a host, '/recipes' under a path; site_root.py)
        self.globals = dict(
            site_name=self.config.site_name,
            static=self.static,
            config=self.config,
            hw_labels=self.labels,
            arch_labels=ARCH_LABELS,
            task_labels=self.task_labels,
            base=root()[:-1],
            vllm_version=VLLM_VERSION,  # the release every plan models, named on the pages
        )

    def render(self, template: str, path: str, **page) -> bytes:
        url = "/" + (path[: -len("index.html")] if path.endswith("index.html") else path)
        page.setdefault("canonical", self.config.absolute(url) if self.config.published else None)
        return (
            self.env.get_template(template)
            .render(page_url=url, **self.globals, **page)
            .encode("utf-8")
        )


def _provider_name(catalog, org: str) -> str:
    return catalog.index.provider_name(org)  # precomputed per org (catalog/index.py)


# -- one recipe -------------------------------------------------------------------------------


def site_paths(catalog) -> frozenset[str]:
    """Page paths (no slashes around) every build has: home, hardware, providers, recipes and
    the checkpoint redirects; computed once per catalog (catalog/index.py)."""
    return catalog.index.site_paths


def guide_linker(hf_id: str, known: Collection[str]):
    """Guide links are written for `/<org>/<repo>` pages: resolve relative ones against this
    page and keep a site link only when it leads to a page that exists (else the text stays)."""
    base = f"/{hf_id}/"

    def link(href: str) -> str | None:
        if href.startswith(("http://", "https://", "mailto:", "#")):
            return href
        parts = urlsplit(urljoin(base, href))
        path = posixpath.normpath(parts.path).strip("/") if parts.path else ""
        if path.startswith("api/"):
            return url(href) if href.startswith("/") else href
        if path not in known:
            return None
        return (
            url("/" + path)
            + ("/" if path else "")
            + (f"?{parts.query}" if parts.query else "")
            + (f"#{parts.fragment}" if parts.fragment else "")
        )

    return link


def unavailable_reasons(rec: RecipeInput, ctx, summary: dict) -> dict[str, dict[str, str]]:
    """Why each hardware profile is not offered for each variant tree (shown on disabled pills)."""
    variants = mapping(rec.data.get("variants"))
    declared = mapping(mapping(rec.data.get("meta")).get("hardware"))
    labels = {h: v["label"] for h, v in summary["hardware"].items()}
    out: dict[str, dict[str, str]] = {}
    # each variant's hardware as a set: asked for every profile, and for every other variant's
    offered = {key: set(tv["hardware"]) for key, tv in summary["variants"].items()}
    # the variant trees offering each profile, in variant order (for "available with ...")
    offering: dict[str, list[str]] = {}
    for key, tv in summary["variants"].items():
        for h in tv["hardware"]:
            offering.setdefault(h, []).append(key)
    for key in summary["variants"]:
        v = mapping(variants.get(key))
        constraint = precision_constraint(v)
        reasons = {}
        for h in ctx.profiles:
            if h in offered[key]:
                continue
            hw, label = ctx.hardware(h), labels[h]
            if declared.get(h) == "unsupported":
                why = f"This recipe marks {label} as unsupported"
            elif hw.restricted and h not in declared:
                why = f"{label} is opt-in and this recipe does not list it"
            elif not meets_constraint(constraint, hw):
                need = " ".join(
                    str(x) if str(x).isupper() else str(x).capitalize()
                    for x in (
                        mapping(constraint).get("brand"),
                        mapping(constraint).get("generation"),
                    )
                    if x
                )
                why = f"{(v.get('precision') or key).upper()} weights need {need} hardware"
            elif not allowed_by_variant(v, hw):
                why = "This variant is limited to " + ", ".join(
                    labels.get(x, x) for x in v.get("supported_hardware") or []
                )
            elif problem := hw.precision_problem(v.get("precision")):
                why = problem
            elif hw.profile.get("scalable") is False:
                why = f"The weights do not fit one {label} and it cannot be clustered"
            else:
                why = f"No serving layout of this variant fits {label}"
            other = next((k for k in offering.get(h, ()) if k != key), None)
            label = summary["variants"][other]["label"] if other else None
            reasons[h] = why + (f" (available with {label})" if label else "")
        out[key] = reasons
    return out


def strategy_notes(ctx, hw_docs: list[dict]) -> dict[str, str]:
    """First sentence of each strategy's description, for the strategies this recipe offers."""
    used = {r["strategy"] for doc in hw_docs for r in doc["renderings"]}
    out = {}
    for sid, spec in ctx.strategies.items():
        if sid in used and (note := _first_sentence(str(mapping(spec).get("description") or ""))):
            out[sid] = note
    return out


def _first_sentence(description: str) -> str:
    """A description's first sentence, whitespace collapsed ('' for none)."""
    first = " ".join(description.split()).split(". ")[0].rstrip(".")
    return first + "." if first else ""


def feature_conflicts(taxonomy) -> list[list[str]]:
    """The taxonomy's groups of features of which at most one may be on (site.js unchecks the rest)."""
    groups = mapping(taxonomy).get("feature_conflicts") or []
    return [[str(n) for n in g] for g in groups if isinstance(g, list) and len(g) > 1]


def node_pills(rs: list[dict], strategy: str, nodes: list[int]) -> list[NodePill]:
    """(node count, label, GPUs) of each node pill: the nodes and GPUs the rendering of that count
    really occupies (its plan), e.g. a disaggregated deployment's pools on several nodes (site.js
    `nodePill`)."""
    out = []
    for n in nodes:
        r = next(
            (x for x in rs if x["strategy"] == strategy and x["node_count"] == n), None
        ) or next(x for x in rs if x["node_count"] == n)
        p = r["plan"]["default"]
        used = p.get("nodes", 1)
        out.append(
            NodePill(
                n,
                f"{used} node{'s' if used > 1 else ''}",
                f"{p['gpus']} GPU{'s' if p['gpus'] > 1 else ''}",
            )
        )
    return out


def initial_view(summary: dict, labels: dict) -> dict:
    """The server-rendered default state of the picker (what the page shows without JavaScript)."""
    doc, variant, hw = (
        summary["initial"],
        summary["default"]["variant"],
        summary["default"]["hardware"],
    )
    rs, r = tree_renderings(doc, variant)
    strategies = list(dict.fromkeys(x["strategy"] for x in rs))
    nodes = sorted({x["node_count"] for x in rs})  # every count the tree offers (site.js `resolve`)
    features = doc["feature_sets"][r["parts"]["features"]]
    chosen = default_choice(features)
    tabs = tabs_of(doc, r)
    first = next(t for t in tabs if t["kind"] == "process")
    return {
        "variant": variant,
        "hardware": hw,
        "rendering": r,
        "parts": r["parts"],
        "features": features,
        "locked": r["parts"]["features_locked"],
        "strategies": strategies,
        "recommended": r["strategy"],
        "nodes": nodes,
        "node_count": r["node_count"],
        "node_pills": node_pills(rs, r["strategy"], nodes),
        "served": None
        if r["variant"] == variant
        else summary["variants"].get(r["variant"], {"label": r["variant"]}),
        "features_on": {f["name"]: (m["name"] if m else None) for f, m in chosen},
        "tabs": tabs,
        "tab": first["id"],
        "command": default_text(doc, r, first),
        **_initial_plan(summary, r, chosen, first),
    }


def _initial_plan(summary: dict, r: dict, chosen: list, first: dict) -> dict:
    """The memory panel, KV figures and throughput plan of the first view, from the rendering's plan."""
    hw = summary["hardware"][r["hardware"]]
    p = plan_of(r, chosen, hw)
    command = process_text(r, first, chosen, locked=r["parts"]["features_locked"])
    return {
        "plan_now": p,
        "sizing": plan_facts(p, hw["gpu"]),
        "window": window_note(p, summary["variants"].get(r["variant"], {}).get("context_length")),
        "kv": kv_view(p) if p.get("kv_bytes_per_token_per_gpu") is not None else None,
        "plan": plan_view(r, p, hw, command),
    }


class VariantRow(NamedTuple):
    """One row of the model page's variant table, generated from the plans (guides type none)."""

    key: str
    label: str
    model_id: str
    weights: str  # "130.4 GiB", from the plan of its recommended command
    runs_on: list[tuple[str, str]]  # (hardware label, the GPUs its recommended command takes)


def variant_rows(summary: dict, hw_docs: dict, labels: dict) -> list[VariantRow]:
    """Per variant: its checkpoint, its weights and, per hardware it runs on, what the recommended
    command occupies, all read from that command's plan (plan.py), as the picker shows it."""
    rows = []
    grouped: dict[str, dict] = {}  # per hardware, its document's by_variant, built once
    for key, tv in summary["variants"].items():
        weights, runs_on = None, []
        for h in tv["hardware"]:
            doc = hw_docs.get(h)
            if doc is None or key not in doc["recommended"]:
                continue
            if h not in grouped:
                grouped[h] = by_variant(doc)
            _rs, r = tree_renderings(doc, key, grouped[h])
            if r["variant"] != key:  # another variant serves this tree here
                continue
            p = r["plan"]["default"]
            if h == tv["default_hardware"] or weights is None:
                weights = p.get("weights_gib")
            nodes = p.get("nodes", 1)
            where = _count(p["gpus"], "GPU") + (f" on {nodes} nodes" if nodes > 1 else "")
            runs_on.append((labels.get(h, h), where if plan.holds(p) else where + ", cannot start"))
        rows.append(
            VariantRow(
                key,
                tv["label"],
                tv["model_id"],
                "?" if weights is None else f"{_gib(weights)} GiB",
                runs_on,
            )
        )
    return rows


def hardware_groups(summary: dict) -> list[tuple[str, list[str]]]:
    groups: dict[str, list[str]] = {}
    for h, p in summary["hardware"].items():
        groups.setdefault(p.get("brand") or "Other", []).append(h)
    return list(groups.items())


def hardware_buttons(
    summary: dict, reasons: dict[str, str], view: dict, hidden: Collection[str] = ()
) -> list[HardwareBrand]:
    """The model page's hardware pills by brand, but the `hidden` profiles (those listed
    collapsed: runs_on_view.unavailable_group)."""
    offered = set(summary["variants"][view["variant"]]["hardware"])
    profiles, chosen = summary["hardware"], view["hardware"]
    brands = [(b, [h for h in ids if h not in hidden]) for b, ids in hardware_groups(summary)]
    return [
        HardwareBrand(
            brand,
            [
                HardwarePill(
                    h,
                    profiles[h]["label"],
                    f"{profiles[h]['gpu_count']}×{gb(profiles[h]['vram_per_gpu_gb'])} GiB",
                    profiles[h]["verified"],
                    h == chosen,
                    h in offered,
                    None if h in offered else reasons[h],
                )
                for h in ids
            ],
        )
        for brand, ids in brands
        if ids
    ]


def hardware_json_links(hf_id: str, hw_docs: dict, labels: dict[str, str]) -> list[JsonLink]:
    """The model page's 'JSON per hardware' links."""
    return [
        JsonLink(i > 0, url("/" + hw_doc_path(hf_id, h)), labels[h]) for i, h in enumerate(hw_docs)
    ]


def _badges(data: dict, task_labels: dict) -> list[Badge]:
    model, meta = mapping(data.get("model")), mapping(data.get("meta"))
    out: list[Badge] = []
    if model.get("architecture"):
        out.append(Badge("arch", ARCH_LABELS.get(model["architecture"], model["architecture"])))
    total, active = model.get("parameter_count"), model.get("active_parameters")
    if total:
        out.append(
            Badge(
                "params",
                f"{format_params(total)} / {format_params(active)} active"
                if active and active != total
                else format_params(total),
            )
        )
    if context_label(model.get("context_length")):
        out.append(Badge("context", f"{context_label(model.get('context_length'))} context"))
    if model.get("min_vllm_version"):
        out.append(Badge("vllm", f"vLLM {model['min_vllm_version']}+"))
    if model.get("nightly_required") is True:
        out.append(Badge("nightly", "nightly"))
    out += [Badge("task", task_labels.get(t, t)) for t in meta.get("tasks") or []]
    return out


def _install_view(data: dict) -> dict:
    block = install_block(data)
    extras = [
        {
            "note": dep.get("note") or "",
            "command": dep["command"],
            "optional": dep.get("optional") is True,
            "brand": dep.get("brand") or "",
            "modes": dep.get("install_modes") or [],
            "unchecked": dep.get("unchecked_shell") is True,
        }
        for dep in block.get("extras") or []
        if isinstance(dep, dict) and dep.get("command")
    ]
    return {
        "pip": block.get("pip"),
        "docker": block.get("docker"),
        "extras": extras,
        "required": "\n".join(e["command"] for e in extras if not e["optional"]),
        "warning": UNCHECKED_SHELL_WARNING,  # beside each step marked `unchecked_shell`
    }


def page_neighbours(catalog, hf_id: str, meta: dict) -> tuple[list, list]:
    """(related, more from this provider): the (id, title) pairs of other recipes a model page
    shows, from the catalog's index; also part of the page's cache key (build.py)."""
    related = catalog.index.related(hf_id, meta.get("related_recipes"))
    more = catalog.index.more_from_provider(
        hf_id.split("/", 1)[0], {h for h, _ in related} | {hf_id}
    )
    return related, more


# Tabs under the command, each read from a per-model API document when opened (site.js docTabs)
# and shown only when the build wrote that document. The document's `renderings` maps a rendering
# key (inputs.rendering_key) to an entry whose fields are shown in order: a string as a text, an
# object as JSON text, a number as the document's `texts[n]` (indexes of `lines`, joined by
# newlines), a list as a checklist of the document's list of that field's name; each text gets
# copy and download buttons.
DOC_TABS = (("kubernetes", "Kubernetes"), ("monitoring", "Monitoring"))


def doc_tabs(hf_id: str, docs: dict) -> list[tuple[str, str, str]]:
    """(id, label, URL) of each tab whose part the recipe's deploy.json holds; the URL names the
    part as its fragment (`deploy.json#kubernetes`), which site.js fetches once for all tabs."""
    deploy = docs.get(deploy_doc_path(hf_id)) or {}
    href = url("/" + deploy_doc_path(hf_id))
    return [(tab, label, f"{href}#{tab}") for tab, label in DOC_TABS if deploy.get(tab)]


def recipe_pages(
    catalog,
    rec: RecipeInput,
    ctx,
    docs: dict[str, dict],
    config: SiteConfig | None = None,
    known_paths=None,
) -> dict[str, bytes]:
    """The model page `<org>/<repo>/index.html` and the agents' `<org>/<repo>.md` of one recipe.

    `docs` holds the recipe's API documents (at least its hardware documents)."""
    pages = _Pages(
        ctx.profiles,
        catalog.taxonomy if isinstance(catalog.taxonomy, dict) else {},
        config or site_config(catalog.root),
    )
    hw_docs = {
        h: docs[hw_doc_path(rec.hf_id, h)]
        for h in ctx.profiles
        if hw_doc_path(rec.hf_id, h) in docs
    }
    summary = view = data = script = speed_page = chart = None
    hw_buttons: list[HardwareBrand] = []
    hw_off: list[UnavailableHardware] = []
    runs_on: list[RunsOnRow] = []
    variant_table: list[VariantRow] = []
    if rec.rendered.trees:
        summary = picker_summary(rec, ctx, hw_docs.get(rec.rendered.trees[0].default_hardware))
        model_doc = docs.get(model_doc_path(rec.hf_id))
        kv = (
            model_doc.get("kv_sizing")
            if model_doc is not None
            else fit.kv_sizing(ctx, rec.data, rec.rendered)
        )
        summary = dict(summary, kv=bool(kv))
        data = dict(
            summary,
            reasons=unavailable_reasons(rec, ctx, summary),
            conflicts=feature_conflicts(catalog.taxonomy),
            notes=strategy_notes(ctx, list(hw_docs.values())),
            # the page names hardware by these, else by its `hardware` label (only differences)
            labels={
                h: name
                for h, name in pages.labels.items()
                if name != summary["hardware"].get(h, {}).get("label")
            },
        )
        if mapping(catalog.taxonomy).get("kv_offload"):  # the KV-offload row (kv_offload.py)
            data["kvo"] = kv_offload.recipe_blocks(rec.data, mapping(catalog.taxonomy))
        view = initial_view(summary, pages.labels)
        chart = speed_svg(hw_docs, pages.labels)
        speed_page = speed_view(view, hw_docs, rec.hf_id, chart is not None)
        if speed_page is not None:
            data["speed"] = speed_page["parts"]
        lean = without_speed(data["initial"])
        hw_off = unavailable_group(summary, data["reasons"])
        hw_buttons = hardware_buttons(
            summary, data["reasons"][view["variant"]], view, {h for x in hw_off for h in x.ids}
        )
        runs_on = runs_on_rows(summary, hw_docs, rec.data, speed=published_speed)
        variant_table = variant_rows(summary, hw_docs, pages.labels)
        # the page embeds the default view's rendering whole, stubs of the others (page_document);
        # its copy leaves the estimates to the API
        data["initial"] = lean
        shown = page_document(lean, view["variant"]) if lean is not None else None
        script = picker_json(dict(data, initial=shown))
    meta = mapping(rec.data.get("meta"))
    org = rec.hf_id.split("/", 1)[0]
    related, more = page_neighbours(catalog, rec.hf_id, meta)
    updated = meta.get("date_updated") or meta.get("date_added")
    linker = guide_linker(rec.hf_id, site_paths(catalog) if known_paths is None else known_paths)
    page = dict(
        title=f"{meta.get('title') or rec.hf_id} on vLLM",
        og_type="article",
        description=meta.get("description") or "",
        rec=rec,
        meta=meta,
        model=mapping(rec.data.get("model")),
        org=org,
        provider=_provider_name(catalog, org),
        badges=_badges(rec.data, pages.task_labels),
        install=_install_view(rec.data),
        data=data,
        view=view,
        summary=summary,
        guide=render_guide(rec.data.get("guide"), top_level=3, reserved_ids=PAGE_IDS, link=linker),
        related=related,
        more=more,
        hf_url=HF + rec.hf_id,
        json_url=url("/" + model_doc_path(rec.hf_id)),
        doc_tabs=doc_tabs(rec.hf_id, docs),
        hw_json=hardware_json_links(rec.hf_id, hw_docs, pages.labels),
        md_url=url(f"/{rec.hf_id}.md"),
        edit_url=pages.config.edit_url(rec.hf_id),
        issue_url=pages.config.issue_url(f"{rec.hf_id}: "),
        hw_buttons=hw_buttons,
        hw_off=hw_off,
        runs_on=runs_on,
        runs_on_speed=any(row.tokens_per_s for row in runs_on),
        variant_table=variant_table,
        updated=updated,
        kv_missing=fit.kv_cache.missing_facts(fit.hf_config_of(rec.data)),
        max_conc=MAX_CONCURRENCY_INPUT,
        speed=speed_page,
        measured=chart_sets(
            rec.data, ctx.profiles, pages.labels, docs.get(benchmarks_doc_path(rec.hf_id))
        ),
        benchmarks_url=url("/" + benchmarks_doc_path(rec.hf_id)),
    )
    html = _with_script(pages, "model.html", f"{rec.hf_id}/index.html", page, script)
    out = {
        f"{rec.hf_id}/index.html": html,
        f"{rec.hf_id}.md": recipe_markdown(
            pages, rec, summary, hw_docs, variant_table, linker, runs_on
        ).encode("utf-8"),
    }
    if chart is not None:
        out[f"{rec.hf_id}/speed.svg"] = chart
    return out


def without_speed(doc: dict | None) -> dict | None:
    """A hardware document without its speed estimates (`speed` of each rendering, `layouts`,
    `speed_calibration`), as the model page embeds its default hardware's: the page shows that
    choice's estimate itself and site.js fetches the API document for any other (`speedRender`).
    The document itself when it has none."""
    if (
        not doc
        or not any(k in doc for k in ("layouts", "speed_calibration"))
        and not any("speed" in r for r in doc.get("renderings", ()))
    ):
        return doc
    out = {k: v for k, v in doc.items() if k not in ("layouts", "speed_calibration")}
    out["renderings"] = [
        {k: v for k, v in r.items() if k != "speed"} for r in doc.get("renderings", ())
    ]
    return out


def speed_number(value: float) -> str:
    """A speed figure as the page writes it (site.js `speedNum`): three significant digits,
    thousands separated."""
    return f"{round(value):,}" if value >= 100 else f"{value:.3g}"


def speed_range(values: list, i: int) -> str:
    """The i-th [low, high] pair of a published estimate (site.js `speedRange`)."""
    return f"{speed_number(values[2 * i])}–{speed_number(values[2 * i + 1])}"


def speed_view(view: dict, hw_docs: dict, hf_id: str, has_chart: bool) -> dict | None:
    """The speed panel of the initial choice and the parts site.js fills for the others: the
    chart's `<use>` URL template, the TTFT sentence with its two slots and the calibration note.
    None when no rendering of the recipe has an estimate."""
    if not has_chart and not any(
        "speed" in r for doc in hw_docs.values() for r in doc["renderings"]
    ):
        return None
    cal = speed.CALIBRATION
    a, b = speed.TTFT_PROMPTS
    r = view["rendering"]
    parts = {
        # the choice this page shows first, whose estimate the embedded document leaves out
        "first": "|".join(
            str(x) for x in (view["hardware"], view["variant"], r["strategy"], r["node_count"])
        ),
        "svg": url(f"/{hf_id}/speed.svg") + SPEED_URL_TEMPLATE if has_chart else None,
        "ttft": f"First token alone: {{0}} ms ({a:,}-token prompt), {{1}} ms ({b:,}).",
        "none": "No estimate for this command.",
    }
    est = r.get("speed")
    layouts = hw_docs.get(view["hardware"], {}).get("layouts") or {}
    href = None
    if parts["svg"] and view["variant"] in layouts:
        href = url(f"/{hf_id}/speed.svg") + "#" + symbol_id(view["hardware"], view["variant"])
    rows = (
        [
            (f"{c:,}", speed_range(est["user"], i), speed_range(est["total"], i))
            for i, c in enumerate(est["c"])
        ]
        if est
        else []
    )
    ttft = (
        str(parts["ttft"]).format(speed_range(est["ttft_ms"], 0), speed_range(est["ttft_ms"], 1))
        if est
        else parts["none"]
    )
    note = (
        f"Roofline estimate calibrated on {cal.points} public vLLM runs: median error "
        f"{cal.median_error:.0%}, worst {cal.worst_error:.0%}. Requests of "
        f"{speed.PROMPT_TOKENS:,} + {speed.OUTPUT_TOKENS:,} tokens; last row: KV cache full."
    )
    return {"parts": parts, "href": href, "rows": rows, "ttft": ttft, "note": note}


def recipe_markdown(
    pages: _Pages,
    rec: RecipeInput,
    summary: dict | None,
    hw_docs: dict,
    variant_table: list[VariantRow],
    link=None,
    runs_on: list[RunsOnRow] | None = None,
) -> str:
    """`<org>/<repo>.md`: facts, install, the variant table the model page shows (`variant_rows`),
    the recommended command per variant, and the guide with its links made absolute to the site
    (`link`, the model page's guide linker)."""
    meta, model = mapping(rec.data.get("meta")), mapping(rec.data.get("model"))
    a, labels = pages.config.absolute, pages.labels
    active = model.get("active_parameters")
    facts = [
        ("Hugging Face id", f"`{rec.hf_id}`"),
        ("Provider", meta.get("provider")),
        (
            "Architecture",
            ARCH_LABELS.get(str(model.get("architecture")), model.get("architecture")),
        ),
        (
            "Parameters",
            format_params(model.get("parameter_count"))
            + (
                f" ({format_params(active)} active)"
                if active and active != model.get("parameter_count")
                else ""
            ),
        ),
        ("Context", context_label(model.get("context_length"))),
        ("Minimum vLLM", model.get("min_vllm_version")),
        ("Tasks", ", ".join(meta.get("tasks") or [])),
        ("Runs on", ", ".join(labels.get(h, h) for h in hw_docs)),
        ("Updated", meta.get("date_updated") or meta.get("date_added")),
        ("Page", a(f"/{rec.hf_id}/")),
        ("JSON", a("/" + model_doc_path(rec.hf_id))),
    ]
    out = [
        f"# {meta.get('title') or rec.hf_id}",
        "",
        f"> {' '.join(str(meta.get('description') or '').split())}",
        "",
    ]
    out += [f"- {k}: {v}" for k, v in facts if v] + [""]
    install = install_block(rec.data)
    if install.get("pip") or install.get("docker"):
        out += ["## Install", ""]
        for key, title in (("pip", "pip / uv"), ("docker", "Docker")):
            if install.get(key):
                out += [f"{title}:", ""]
                out += (
                    [f"**{UNCHECKED_SHELL_WARNING}**", ""]
                    if install[key].get("unchecked_shell")
                    else []
                )
                out += ["```bash", install[key]["command"], "```", ""]
                out += [install[key]["note"], ""] if install[key].get("note") else []
    if summary:
        out += [
            "## Variants and memory",
            "",
            f"From each command's plan for vLLM {VLLM_VERSION}.",
            "",
            "| Variant | Checkpoint | Weights | Recommended command takes |",
            "|---|---|---|---|",
        ]
        cell = lambda text: str(text).replace("|", "\\|")  # recipe text cannot end a cell
        out += [
            f"| {cell(row.label)} | `{cell(row.model_id)}` | {row.weights} | "
            + " · ".join(f"{cell(hw)}: {where}" for hw, where in row.runs_on)
            + " |"
            for row in variant_table
        ]
        if runs_on:
            out += [
                "",
                "## Runs on",
                "",
                "Per hardware, the command taking the fewest GPUs whose plan fits.",
                "",
                "| Hardware | Smallest layout that fits | Variant | Full-context requests |",
                "|---|---|---|---|",
            ]
            out += [
                f"| {cell(x.label)} | {cell(x.layout)} | {cell(x.variant)} | {x.room} |"
                for x in runs_on
            ]
        out += [
            "",
            "## Serve",
            "",
            "The recommended command for each variant on its default hardware.",
            "",
        ]
        grouped: dict[str, dict[str, list[dict]]] = {}
        for key, tv in summary["variants"].items():
            hw = tv["default_hardware"]
            doc = hw_docs[hw]
            if hw not in grouped:
                grouped[hw] = by_variant(doc)
            _rs, r = tree_renderings(doc, key, grouped[hw])
            out += [
                f"### {tv['label']} (`{tv['model_id']}`) on {labels.get(hw, hw)}",
                "",
                f"{r['parts']['summary']}; strategy `{r['strategy']}`.",
                "",
            ]
            tabs = tabs_of(doc, r)
            for tab in tabs:
                out += [f"{tab['label']}:", ""] if len(tabs) > 1 else []
                out += ["```bash", default_text(doc, r, tab), "```", ""]
            others = [h for h in tv["hardware"] if h != hw]
            if others:
                out += [
                    "Every rendering on other hardware, as JSON: "
                    + ", ".join(
                        f"[{labels.get(h, h)}]({a('/' + hw_doc_path(rec.hf_id, h))})"
                        for h in others
                    )
                    + ".",
                    "",
                ]
    elif "omni" in (meta.get("tasks") or []):
        out += ["This model runs under vLLM-Omni; the guide below explains how to serve it.", ""]
    guide = rec.data.get("guide")
    if isinstance(guide, str) and guide.strip():
        out += ["## Guide", "", rewrite_links(guide.strip(), link) if link else guide.strip(), ""]
    return "\n".join(out)


# -- catalog-wide pages -----------------------------------------------------------------------

# sitemap.xml is always written. The protocol wants each <loc> absolute
# (https://www.sitemaps.org/protocol.html#locdef: "must begin with the protocol"), which a build
# without a base URL cannot know: its sitemap lists site paths and says so, and robots.txt does
# not point crawlers at it. A published build (`--base-url`, `build --publish`) has absolute URLs.
PREVIEW_SITEMAP_NOTE = (
    "<!-- Local preview (no base URL): each loc is a path under the site root. Crawlers need"
    " absolute URLs: set base_url in recipes-site.yaml (or build with the base URL option) to"
    " publish. -->"  # an XML comment may not hold a double hyphen: no flag spelled out
)


class _Catalog:
    def __init__(self, catalog, api_docs: dict, config: SiteConfig | None, memo=None):
        self.catalog, self.api, self.memo = catalog, api_docs, memo
        taxonomy = catalog.taxonomy if isinstance(catalog.taxonomy, dict) else {}
        self.taxonomy = taxonomy
        self.profiles = catalog.hardware_profiles()
        self.pages = _Pages(self.profiles, taxonomy, config or site_config(catalog.root))
        self.config, self.labels = self.pages.config, self.pages.labels
        self.index = api_docs[f"{API}/models.json"]
        self.models = {m["id"]: m for m in self.index["models"]}
        self.docs = {d.hf_id: d for d in catalog.recipes if d.hf_id in self.models}
        self.strategy_labels = {
            sid: mapping(s).get("display_name") or sid
            for sid, s in {**catalog.strategies, **catalog.kv_stores}.items()
        }
        self.files: dict[str, bytes] = dict(self.pages.static_files)
        self.sitemap: list[tuple[str, str | None]] = [("/", None)]
        orgs: dict[str, list[str]] = {}
        for hf_id in self.models:
            orgs.setdefault(hf_id.split("/", 1)[0], []).append(hf_id)
        self.orgs = orgs
        self._rows: dict[str, dict] = {}

    def row(self, hf_id: str) -> dict:
        """What lists show of a recipe (provider and hardware pages); made once per recipe, since
        every hardware page of a large catalog asks again."""
        if hf_id in self._rows:
            return self._rows[hf_id]
        m = self.models[hf_id]
        labels = variant_labels(self.docs[hf_id].data) if hf_id in self.docs else {}
        variants = [{"key": k, "label": label} for k, label in labels.items()]
        active = m.get("active_parameters")
        row = self._rows[hf_id] = {
            **m,
            "params_label": format_params(m.get("parameter_count")),
            "active_label": format_params(active)
            if active and active != m.get("parameter_count")
            else "",
            "context": context_label(m.get("context_length")),
            "variants": variants,
            "variant_labels": labels,
        }
        return row

    def provider_name(self, org: str) -> str:
        return _provider_name(self.catalog, org)

    def render(self, template: str, path: str, **page) -> None:
        self.files[path] = (
            self.pages.render(template, path, **page)
            if self.memo is None
            else self.memo.render(self.pages.render, template, path, page)
        )

    def data_file(self, path: str, doc) -> str:
        """Write a JSON file the page script fetches; its URL carries a content hash (caches)."""
        data = encode_json(doc)
        self.files[path] = data
        return url(f"/{path}?v={hashlib.sha256(data).hexdigest()[:10]}")

    def search_shards(self) -> None:
        """The records in name order, in shards (search.py); `self.search` is the manifest the
        home and 404 pages inline instead of the records: shard URLs, sizes, labels."""
        checkpoints: dict[str, list[str]] = {}
        for cp, target in self.redirects.items():
            checkpoints.setdefault(site_path(target.split("?", 1)[0]).strip("/"), []).append(cp)
        self.browse = browse_index(
            self.index["models"],
            self.labels,
            self.taxonomy,
            {k: sorted(v) for k, v in checkpoints.items()},
        )
        records = self.browse["records"]
        size = shard_size(len(records))
        urls = [
            self.data_file(f"{SEARCH_DIR}/{k}.json", shard_doc(k, chunk, size))
            for k, chunk in enumerate(shards(records))
        ]
        self.search = {
            "total": len(records),
            "page_size": PAGE_SIZE,
            "shard_size": size,
            "shards": urls,
            "facets": list(FACETS),
            "hardware": self.labels,
            "task": {
                v: self.pages.task_labels.get(v, v) for v, _l, _n in self.browse["facets"]["task"]
            },
            "architecture": {v: label for v, label, _n in self.browse["facets"]["architecture"]},
        }
        self.files[HEADER_DOC] = encode_json(
            header_doc(
                self.browse,
                urls,
                self.labels,
                self.pages.task_labels,
                [(org, self.provider_name(org), len(ids)) for org, ids in self.orgs.items()],
            )
        )

    def index_page(self) -> None:
        """The first page of rows in name order, server-rendered, the facet counts and the
        manifest: bounded whatever the catalog size (the rest comes from the shards)."""
        records = self.browse["records"]
        first = records[:PAGE_SIZE]
        top = sorted(self.orgs.items(), key=lambda kv: (-len(kv[1]), kv[0].lower()))[
            :PROVIDER_CHIPS
        ]
        providers = [
            (org, self.provider_name(org), len(ids))
            for org, ids in sorted(top, key=lambda kv: kv[0].lower())
        ]
        pages = max(1, -(-len(records) // PAGE_SIZE))
        self.render(
            "index.html",
            "index.html",
            title=f"{self.config.site_name}: run any model on any hardware",
            description=f"Exact vllm serve and docker run commands for {len(records)} models on "
            f"{len(self.profiles)} hardware profiles.",
            records=first,
            total=len(records),
            pages=pages,
            facets=self.browse["facets"],
            more_providers=self.browse["more_providers"],
            facet_labels=FACET_LABELS,
            sorts=SORTS,
            data=self.search,
            providers=providers,
            more_orgs=len(self.orgs) - len(providers),
            hardware_count=len(self.advertised_hardware),
        )

    def provider_pages(self) -> None:
        order = list(self.pages.task_labels)
        for org, ids in self.orgs.items():
            groups: dict[str, list] = {}
            for hf_id in sorted(ids, key=lambda i: str(self.models[i].get("title") or i).lower()):
                tasks = self.models[hf_id].get("tasks") or ["other"]
                groups.setdefault(tasks[0], []).append(self.row(hf_id))
            ordered = sorted(
                groups.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)
            )
            name = self.provider_name(org)
            self.render(
                "provider.html",
                f"{org}/index.html",
                title=f"{name} models on vLLM",
                org=org,
                name=name,
                description=f"{len(ids)} {name} model recipe{'s' if len(ids) != 1 else ''} with exact vLLM commands per hardware.",
                groups=ordered,
                count=len(ids),
                hf_url=HF + org,
            )
            self.sitemap.append((f"/{org}/", None))

    def hardware_pages(self) -> None:
        """One page per hardware that runs some model, in pages of HW_PAGE_ITEMS models (what fits
        one node first, by title, then what needs more): `hardware/<hw>/`, then
        `hardware/<hw>/page/<k>/`. A profile no recipe runs gets no page and no index entry."""
        brands: dict[str, list] = {}
        for h, (fits, multi) in self.advertised_hardware.items():
            profile = self.profiles[h]
            entry = {
                "id": h,
                "label": self.labels[h],
                "profile": profile,
                "fits": len(fits),
                "multi": len(multi),
                "per_gpu": gb(round(sizing.per_gpu_gib(profile), 1)),
                "gpus": profile.get("gpu_count") or 1,
            }
            brands.setdefault(profile.get("brand") or "Other", []).append(entry)
            items = [dict(i, one=True) for i in fits] + [dict(i, one=False) for i in multi]
            pages = max(1, -(-len(items) // HW_PAGE_ITEMS))
            page_path = lambda k, h=h: f"/hardware/{h}/" + (f"page/{k}/" if k > 1 else "")
            href = lambda k, page_path=page_path: url(page_path(k))
            for k in range(1, pages + 1):
                chunk = items[(k - 1) * HW_PAGE_ITEMS : k * HW_PAGE_ITEMS]
                first = (k - 1) * HW_PAGE_ITEMS
                nav = {
                    "page": k,
                    "pages": pages,
                    "prev": href(k - 1) if k > 1 else None,
                    "next": href(k + 1) if k < pages else None,
                    "from": first + 1,
                    "to": first + len(chunk),
                    "links": [(n, href(n)) for n in _page_numbers(k, pages)],
                }
                self.render(
                    "hardware.html",
                    page_path(k)[1:] + "index.html",
                    hw=entry,
                    nav=nav,
                    fits=[i for i in chunk if i["one"]],
                    multi=[i for i in chunk if not i["one"]],
                    search_url=url("/?" + urlencode({"hardware": h})),
                    title=f"What runs on one {entry['gpus']} × {self.labels[h]} node"
                    + (f" (page {k} of {pages})" if k > 1 else ""),
                    description=f"{len(fits)} models fit one {entry['gpus']} × {entry['per_gpu']} GiB "
                    f"{self.labels[h]} node: the best variant and recommended vLLM command for each.",
                    json_url=url(f"/{API}/hardware/{h}.json"),
                    specs=spec_rows(profile),
                    compare_url=url("/compare/?" + urlencode({"hw": h})),
                )
                self.sitemap.append((page_path(k), None))
        self.render(
            "hardware_index.html",
            "hardware/index.html",
            brands=list(brands.items()),
            title="What runs where",
            description="Every hardware profile and the models that fit on one node of it.",
        )
        self.sitemap.append(("/hardware/", None))

    def compare_page(self) -> None:
        """/compare/: a model's hardware side by side (render/compare.py, static/compare.js)."""
        self.render(
            "compare.html",
            "compare/index.html",
            **compare.page_context(self.labels, list(self.advertised_hardware)),
        )
        self.sitemap.append(("/compare/", None))

    @cached_property
    def advertised_hardware(self) -> dict[str, tuple[list, list]]:
        """The profiles some recipe runs on, in taxonomy order, with `hardware_models`' lists: a
        profile that runs nothing gets no page, no index entry and no llms.txt line."""
        out = {}
        for h in self.profiles:
            fits, multi = self.hardware_models(h, hardware_entries_of(self.api, h))
            if fits or multi:
                out[h] = (fits, multi)
        return out

    def hardware_models(self, h: str, entries: list[dict]) -> tuple[list, list]:
        """Per recipe: the largest variant whose recommended layout is one node, else the
        variant needing the fewest nodes (`entries`: every entry of the hardware's documents)."""
        per_recipe: dict[str, list] = {}
        for m in entries:
            if m["recipe"] in self.models:
                per_recipe.setdefault(m["recipe"], []).append(m)
        fits: list[dict] = []
        multi: list[dict] = []
        for hf_id, entries in per_recipe.items():
            variants = mapping(self.docs[hf_id].data.get("variants")) if hf_id in self.docs else {}
            # what starts (its plan's verdict, as on the model page) before what cannot
            starts = [e for e in entries if plan.holds(e)] or entries
            one = [e for e in starts if e["node_count"] == 1 and plan.holds(e)]
            pick = (
                max(
                    one,
                    key=lambda e: mapping(variants.get(e["variant"])).get("vram_minimum_gb") or 0,
                )
                if one
                else min(starts, key=lambda e: e["node_count"])
            )
            item = {
                "row": self.row(hf_id),
                "variant": pick["variant"],
                "nodes": pick["node_count"],
                "strategy": self.strategy_labels.get(pick["strategy"], pick["strategy"]),
                "deploy_type": pick["deploy_type"],
                "model_id": pick.get("model_id"),
                "variant_label": self.row(hf_id)["variant_labels"].get(
                    pick["variant"], pick["variant"]
                ),
                "starts": plan.holds(pick),
                "href": url(f"/{hf_id}/?")
                + urlencode(
                    {
                        "hardware": h,
                        **({"variant": pick["variant"]} if pick["variant"] != "default" else {}),
                    }
                ),
                "command": exports(pick.get("env") or {}) + pick["command"]
                if pick.get("command")
                else "",
                **compare.listing(pick),  # tokens/s per GPU and layout (render/compare.py)
            }
            (fits if one else multi).append(item)
        key = lambda item: str(item["row"].get("title") or item["row"]["id"]).lower()
        return compare.ranked(fits, key), sorted(multi, key=key)

    @staticmethod
    def _trees_by_checkpoint(data: dict, standalone: set[str]) -> dict[str, str]:
        """{checkpoint id: the first variant tree serving it} of one recipe."""
        variants = mapping(data.get("variants"))
        if "default" not in variants:
            return {}
        found: dict[str, str] = {}
        for key in promotable_variants(data, standalone)[0]:
            mid = mapping(variants.get(key)).get("model_id")
            if isinstance(mid, str):
                found.setdefault(mid, key)
        return found

    def checkpoint_redirects(self) -> None:
        """A variant's own checkpoint id (`/nvidia/X-FP8/`) leads to its recipe, variant preselected."""
        standalone = set(self.models)
        self.redirects: dict[str, str] = {}
        tree_of_checkpoint: dict[str, dict[str, str]] = {}  # recipe -> checkpoint -> tree key
        for cp in self.index["checkpoints"]:
            path = f"{cp['id']}/index.html"
            if (
                cp["id"] in standalone
                or cp["id"] in self.redirects
                or path in self.files
                or cp["id"].count("/") != 1
                or cp["recipe"] not in self.docs
            ):
                continue
            if cp["recipe"] not in tree_of_checkpoint:
                tree_of_checkpoint[cp["recipe"]] = self._trees_by_checkpoint(
                    self.docs[cp["recipe"]].data, standalone
                )
            key = tree_of_checkpoint[cp["recipe"]].get(cp["id"])
            target = url(f"/{cp['recipe']}/") + (
                f"?{urlencode({'variant': key})}" if key and key != "default" else ""
            )
            self.redirects[cp["id"]] = target
            self.render(
                "redirect.html",
                path,
                title=cp["id"],
                target=target,
                recipe=cp["recipe"],
                canonical=self.config.absolute(f"/{cp['recipe']}/"),
                description=f"{cp['id']} is served by the {cp['recipe']} recipe.",
            )

    def not_found(self) -> None:
        """No inlined index: a mistyped letter case is fixed from one id bucket (every recipe,
        checkpoint redirect and organisation), suggestions come from the search shards."""
        targets = {m: url(f"/{m}/") for m in self.models}
        targets.update(self.redirects)
        targets.update({org: url(f"/{org}/") for org in self.orgs})
        buckets = [
            self.data_file(f"{SEARCH_DIR}/ids-{k}.json", {"ids": b})
            for k, b in enumerate(id_buckets(targets))
        ]
        self.render(
            "404.html",
            "404.html",
            title="Page not found",
            description="No page at this address.",
            data={"ids": buckets, "shards": self.search["shards"], "repo": self.config.repo_url},
            canonical=None,
        )

    def text_files(self) -> None:
        for hf_id in sorted(self.models, key=str.lower):
            m = self.models[hf_id]
            self.sitemap.append((f"/{hf_id}/", m.get("date_updated") or m.get("date_added")))
        lines = ['<?xml version="1.0" encoding="UTF-8"?>']
        if not self.config.published:
            lines.append(PREVIEW_SITEMAP_NOTE)
        lines.append('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">')
        for path, lastmod in self.sitemap:
            lines.append(
                f"  <url><loc>{escape(self.config.absolute(path))}</loc>"
                + (f"<lastmod>{escape(str(lastmod))}</lastmod>" if lastmod else "")
                + "</url>"
            )
        lines.append("</urlset>")
        robots = "User-agent: *\nAllow: /\n"
        self.files["sitemap.xml"] = ("\n".join(lines) + "\n").encode("utf-8")
        if self.config.published:  # robots.txt's Sitemap line must be an absolute URL too
            robots += f"\nSitemap: {self.config.absolute('/sitemap.xml')}\n"
        self.files["robots.txt"] = robots.encode("utf-8")
        self.files["llms.txt"] = self.llms_txt().encode("utf-8")

    def llms_txt(self) -> str:
        a = self.config.absolute
        out = [
            f"# {self.config.site_name}",
            "",
            f"> Exact, validated `vllm serve` and `docker run` commands for {len(self.models)} models on "
            f"{len(self.profiles)} hardware profiles, generated from one YAML recipe per Hugging Face model.",
            "",
            "Each recipe below links to a Markdown summary: install steps, the recommended command per variant, "
            f"and the guide. Every rendering is also JSON: start at {a('/' + API + '/models.json')}, then "
            f"`{url(f'/{API}/models/<org>/<repo>.json')}` and `{url(f'/{API}/models/<org>/<repo>/hw/<hardware>.json')}`.",
            "",
            "## Recipes",
            "",
        ]
        for hf_id in sorted(self.models, key=str.lower):
            m = self.models[hf_id]
            desc = " ".join(str(m.get("description") or "").split())
            out.append(
                f"- [{m.get('title') or hf_id}]({a('/' + hf_id + '.md')}): `{hf_id}`. {desc}".rstrip()
            )
        out += ["", "## Hardware", ""]
        for h in self.advertised_hardware:
            p = self.profiles[h]
            out.append(
                f"- [{self.labels[h]}]({a(f'/hardware/{h}/')}): {p.get('gpu_count') or 1} × "
                f"{gb(round(sizing.per_gpu_gib(p), 1))} GiB per node; what runs on it: {a(f'/{API}/hardware/{h}.json')} "
                "(in pages: follow `next`)"
            )
        out += [
            "",
            "## Optional",
            "",
            f"- [Recipe JSON Schema]({a('/' + API + '/schema/recipe.schema.json')}): the recipe format",
            *(
                [
                    f"- [Contributing]({self.config.blob_url('CONTRIBUTING.md')}): add or fix a recipe"
                ]
                if self.config.repo_url
                else []
            ),
            "",
        ]
        return "\n".join(out)


def _page_numbers(k: int, pages: int) -> list[int]:
    """The page links a pager shows: first, last and two either side of the current one."""
    return sorted({1, pages, *range(max(1, k - 2), min(pages, k + 2) + 1)})


def catalog_pages(
    catalog, api_docs: dict[str, dict], config: SiteConfig | None = None, memo=None
) -> dict[str, bytes]:
    """Every page that spans recipes, plus the static assets; `api_docs` needs models.json and
    hardware/<hw>.json (the catalog-wide API documents). `memo` (cache.PageMemo, in `serve`)
    hands back pages the previous build rendered from the same arguments."""
    site = _Catalog(catalog, api_docs, config, memo)
    site.provider_pages()
    site.hardware_pages()
    site.compare_page()
    site.checkpoint_redirects()
    site.search_shards()  # after the redirects: a checkpoint id finds its recipe
    site.index_page()
    site.not_found()
    site.text_files()
    return site.files


def site_pages(
    catalog,
    recipes: list[RecipeInput],
    ctx,
    api_docs: dict[str, dict],
    config: SiteConfig | None = None,
) -> dict[str, bytes]:
    """Both phases, serially (tests, scripts): every file of the human site, keyed by path."""
    config = config or site_config(catalog.root)
    files: dict[str, bytes] = {}
    for rec in recipes:
        files.update(recipe_pages(catalog, rec, ctx, api_docs, config))
    files.update(catalog_pages(catalog, api_docs, config))
    return files
