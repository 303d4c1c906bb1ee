"""The human site: HTML pages (jinja2, autoescaped), Markdown for agents, sitemap and friends.

    files = site_pages(catalog, recipes, ctx, api_docs)     # {relative path: bytes}

Pages are views: every command shown comes from the picker documents (render/picker.py),
which are cut from synthesis renderings; the Python here only picks which precomputed
rendering is the default and joins its lines with the same rule the page script uses
(`command_text`). The picker documents themselves are written next to each model page at
`<org>/<repo>/picker/<hw>.json`.

Configuration (environment, read at build time):
    RECIPES_SITE_REPO_URL   repository for "edit this recipe" / "request a recipe" links
    RECIPES_SITE_URL        absolute site URL for sitemap.xml, canonical and OpenGraph URLs
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlencode

from jinja2 import Environment, FileSystemLoader
from markupsafe import Markup

from recipes_site import sizing
from recipes_site.catalog import PROJECT_ROOT
from recipes_site.render.api import API, HF, RecipeInput, hw_doc_path, model_doc_path
from recipes_site.render.markdown import render_guide
from recipes_site.render.picker import picker_documents, picker_path, picker_summary
from recipes_site.render.search import ARCH_LABELS, FACET_LABELS, FACETS, SORTS, browse_index, format_params
from recipes_site.synthesis.install import install_block
from recipes_site.jsish import mapping
from recipes_site.synthesis.selection import allowed_by_variant, meets_constraint, precision_constraint
from recipes_site.write import encode_json

TEMPLATES = PROJECT_ROOT / "templates"
STATIC = ("site.css", "site.js")
SITE_NAME = "vLLM Recipes"
DEFAULT_REPO_URL = "https://github.com/example/recipes-site"
DEFAULT_SITE_URL = "http://127.0.0.1:8000"
# ids the model page uses itself; guide headings never take them
PAGE_IDS = frozenset({"main", "top", "install", "serve", "picker-data", "guide", "about", "command-panel",
                      "sizing", "related", "browse-data", "results", "filters", "search"})


@dataclass(frozen=True)
class SiteConfig:
    repo_url: str = DEFAULT_REPO_URL
    site_url: str = DEFAULT_SITE_URL

    @classmethod
    def from_env(cls) -> "SiteConfig":
        return cls(repo_url=(os.environ.get("RECIPES_SITE_REPO_URL") or DEFAULT_REPO_URL).rstrip("/"),
                   site_url=(os.environ.get("RECIPES_SITE_URL") or DEFAULT_SITE_URL).rstrip("/"))

    def edit_url(self, hf_id: str) -> str:
        return f"{self.repo_url}/edit/main/models/{hf_id}.yaml"

    def request_url(self, hf_id: str | None = None) -> str:
        query = {"labels": "recipe-request", "title": f"Recipe request: {hf_id}" if hf_id else "Recipe request: "}
        if hf_id:
            query["body"] = f"Model: https://huggingface.co/{hf_id}\nHardware:\nPrecision:\nNotes:\n"
        return f"{self.repo_url}/issues/new?{urlencode(query, quote_via=quote)}"

    def absolute(self, path: str) -> str:
        return self.site_url + path


# -- JSON inside <script> ---------------------------------------------------------------------

def script_json(data) -> Markup:
    """JSON safe inside <script type="application/json">: no `<`, `>` or `&` can end the tag."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for ch, esc in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e"),
                    ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return Markup(text)


# -- the command assembly rule (the page script implements the same) ---------------------------

def default_choice(rendering: dict) -> list[tuple[dict, dict | None]]:
    """The features a rendering starts with: (feature, mode or None) in the rendering's order."""
    out = []
    for f in rendering.get("features") or []:
        d = f.get("default")
        if d is False or d is None:
            continue
        if f.get("modes"):
            mode = next((m for m in f["modes"] if m["name"] == d), f["modes"][0])
            out.append((f, mode))
        else:
            out.append((f, None))
    return out


def command_lines(process: dict, chosen: list[tuple[dict, dict | None]]) -> list[str]:
    selected = []
    for f, mode in chosen:
        selected.extend(mode["lines"] if mode is not None else (f.get("lines") or []))
    return list(process["before"]) + selected + list(process["after"])


def command_text(process: dict, chosen: list[tuple[dict, dict | None]], form: str = "serve") -> str:
    lines = command_lines(process, chosen)
    tail = (" \\\n  " + " \\\n  ".join(lines)) if lines else ""
    if form == "docker":
        return process["docker_head"] + tail
    return process["exports"] + "vllm serve " + process["model"] + tail


def tabs_of(rendering: dict) -> list[dict]:
    """Command tabs in launch order: helper steps, the vLLM processes, then the router."""
    extras = rendering.get("extras") or []
    before = [dict(e, kind="extra") for e in extras if e["id"] != "router"]
    after = [dict(e, kind="extra") for e in extras if e["id"] == "router"]
    return before + [dict(p, kind="process") for p in rendering["processes"]] + after


# -- labels -----------------------------------------------------------------------------------

def hw_labels(profiles: dict) -> dict[str, str]:
    """Display names, disambiguated by GPU count where two profiles share one."""
    names = [str(p.get("display_name") or h) for h, p in profiles.items()]
    out = {}
    for h, p in profiles.items():
        name = str(p.get("display_name") or h)
        out[h] = f"{name} ({p.get('gpu_count') or 1}×)" if names.count(name) > 1 else name
    return out


def gb(value) -> str:
    if value is None:
        return "?"
    return f"{value:g}" if isinstance(value, (int, float)) else str(value)


def context_label(tokens) -> str:
    if not isinstance(tokens, int) or tokens <= 0:
        return ""
    if tokens >= 1_000_000 and tokens % 1_000_000 == 0 or tokens >= 1_048_576 and tokens % 1_048_576 == 0:
        return f"{tokens // (1_048_576 if tokens % 1_000_000 else 1_000_000)}M"
    return f"{round(tokens / 1024)}K" if tokens % 1000 else f"{tokens // 1000}K"


def sizing_view(fit: dict | None, hw_label: str) -> dict:
    """Facts and a one-line explanation of one variant's weights on one hardware profile."""
    if not fit:
        return {"facts": [], "why": "This recipe gives no size for this variant, so there is no estimate."}
    w, per, n = fit["weights_gb"], fit["vram_per_gpu_gib"], fit["gpu_count"]
    facts = [("Weights", f"{gb(w)} GB"), ("GPUs needed", f"{fit['min_gpus']} × {gb(per)} GB")]
    if fit["fits_one_node"]:
        facts.append(("Tensor parallel", str(fit["tensor_parallel"])))
        facts.append(("Replicas per node", str(fit["replicas_per_node"])))
        if fit["fits_one_gpu"]:
            why = f"Fits on one {hw_label} GPU: {gb(w)} GB of weights within {gb(per)} GB."
        else:
            why = f"Fits on one node: {gb(w)} GB of weights need {fit['min_gpus']} of its {n} GPUs ({gb(per)} GB each)."
    else:
        facts.append(("Nodes", str(fit["nodes_needed"])))
        why = (f"Does not fit one node: {gb(w)} GB of weights exceed {n} × {gb(per)} GB; "
               f"one copy needs {fit['nodes_needed']} nodes.")
    return {"facts": facts, "why": why}


# -- the model page ---------------------------------------------------------------------------

def unavailable_reasons(rec: RecipeInput, ctx, summary: dict) -> dict[str, dict[str, str]]:
    """Why each hardware profile is not offered for each variant tree (shown on disabled pills)."""
    variants = mapping(rec.data.get("variants"))
    declared = mapping(mapping(rec.data.get("meta")).get("hardware"))
    labels = {h: v["label"] for h, v in summary["hardware"].items()}
    out: dict[str, dict[str, str]] = {}
    for key, tv in summary["variants"].items():
        v = mapping(variants.get(key))
        reasons = {}
        for h in ctx.profiles:
            if h in tv["hardware"]:
                continue
            hw, label = ctx.hardware(h), labels[h]
            constraint = precision_constraint(v)
            if declared.get(h) == "unsupported":
                why = f"This recipe marks {label} as unsupported"
            elif hw.restricted and h not in declared:
                why = f"{label} is opt-in and this recipe does not list it"
            elif not meets_constraint(constraint, hw):
                need = " ".join(str(x).capitalize() if x != "NVIDIA" and x != "AMD" else x
                                for x in (constraint.get("brand"), constraint.get("generation")) if x)
                why = f"{(v.get('precision') or key).upper()} weights need {need} hardware"
            elif not allowed_by_variant(v, hw):
                why = "This variant is limited to " + ", ".join(labels.get(x, x) for x in v.get("supported_hardware") or [])
            elif hw.profile.get("scalable") is False:
                why = f"The weights do not fit one {label} and it cannot be clustered"
            else:
                why = f"No serving layout of this variant fits {label}"
            others = [o["label"] for k, o in summary["variants"].items() if k != key and h in o["hardware"]]
            if others:
                why += f" (available with {others[0]})"
            reasons[h] = why
        out[key] = reasons
    return out


def strategy_notes(ctx, docs: dict) -> dict[str, str]:
    """First sentence of each strategy's description, for the strategies this recipe offers."""
    used = {r["strategy"] for doc in docs.values() for r in doc["renderings"]}
    out = {}
    for sid in ctx.strategies:
        if sid not in used:
            continue
        desc = " ".join(str(mapping(ctx.strategies[sid]).get("description") or "").split())
        first = desc.split(". ")[0].rstrip(".")
        if first:
            out[sid] = first + "."
    return out


def initial_view(summary: dict, labels: dict) -> dict | None:
    """The server-rendered default state of the picker (what the page shows without JavaScript)."""
    doc, default = summary.get("initial"), summary.get("default")
    if not doc or not default:
        return None
    variant, hw = default["variant"], default["hardware"]
    tree = doc["trees"][variant]
    rs = [doc["renderings"][i] for i in tree["renderings"]]
    r = doc["renderings"][tree["recommended"]]
    strategies = []
    for x in rs:
        if x["strategy"] not in strategies:
            strategies.append(x["strategy"])
    nodes = sorted({x["node_count"] for x in rs if x["strategy"] == r["strategy"]})
    chosen = default_choice(r)
    on = {f["name"]: (m["name"] if m else None) for f, m in chosen}
    tabs = tabs_of(r)
    first = next(t for t in tabs if t["kind"] == "process")
    fit = summary["sizing"].get(variant, {}).get(hw)
    return {
        "variant": variant, "hardware": hw, "rendering": r, "strategies": strategies,
        "recommended": r["strategy"], "nodes": nodes, "node_count": r["node_count"],
        "features_on": on, "tabs": tabs, "tab": first["id"], "command": command_text(first, chosen),
        "sizing": sizing_view(fit, labels.get(hw, hw)),
    }


def hardware_groups(summary: dict) -> list[tuple[str, list[str]]]:
    groups: dict[str, list[str]] = {}
    for h, p in summary["hardware"].items():
        groups.setdefault(p.get("brand") or "Other", []).append(h)
    return list(groups.items())


def _badges(rec: RecipeInput, task_labels: dict) -> list[tuple[str, str]]:
    model = mapping(rec.data.get("model"))
    meta = mapping(rec.data.get("meta"))
    out = []
    arch = model.get("architecture")
    if arch:
        out.append(("arch", ARCH_LABELS.get(arch, arch)))
    total, active = model.get("parameter_count"), model.get("active_parameters")
    if total:
        out.append(("params", f"{format_params(total)} / {format_params(active)} active"
                    if active and active != total else format_params(total)))
    ctx_len = context_label(model.get("context_length"))
    if ctx_len:
        out.append(("context", f"{ctx_len} context"))
    if model.get("min_vllm_version"):
        out.append(("vllm", f"vLLM {model['min_vllm_version']}+"))
    if model.get("nightly_required") is True:
        out.append(("nightly", "nightly"))
    for t in meta.get("tasks") or []:
        out.append(("task", task_labels.get(t, t)))
    return out


def _install_view(rec: RecipeInput) -> dict:
    block = install_block(rec.data)
    extras = []
    for dep in block.get("extras") or []:
        if isinstance(dep, dict) and dep.get("command"):
            extras.append({"note": dep.get("note") or "", "command": dep["command"], "optional": dep.get("optional") is True,
                           "brand": dep.get("brand") or "", "modes": dep.get("install_modes") or []})
    return {"pip": block.get("pip"), "docker": block.get("docker"), "extras": extras,
            "required": "\n".join(e["command"] for e in extras if not e["optional"])}


# -- the builder ------------------------------------------------------------------------------

class _Site:
    def __init__(self, catalog, recipes: list[RecipeInput], ctx, api_docs: dict, config: SiteConfig):
        self.catalog, self.recipes, self.ctx, self.api = catalog, recipes, ctx, api_docs
        self.config = config
        self.profiles = ctx.profiles
        self.labels = hw_labels(self.profiles)
        taxonomy = catalog.taxonomy if isinstance(catalog.taxonomy, dict) else {}
        self.taxonomy = taxonomy
        self.task_labels = {t.get("id"): t.get("display_name") or t.get("id")
                            for t in (taxonomy.get("tasks") or []) if isinstance(t, dict)}
        self.models = {m["id"]: m for m in api_docs[f"{API}/models.json"]["models"]}
        self.by_id = {r.hf_id: r for r in recipes}
        self.files: dict[str, bytes] = {}
        self.pickers: dict[str, dict] = {}      # hf_id -> {picker path: document}
        self.sitemap: list[tuple[str, str | None]] = []
        self.env = Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=True,
                               trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
        self.env.filters["script_json"] = script_json
        self.env.filters["gb"] = gb
        self.env.filters["params"] = format_params
        self.static = {}
        for name in STATIC:
            data = (TEMPLATES / "static" / name).read_bytes()
            self.files[f"static/{name}"] = data
            self.static[name] = f"/static/{name}?v={hashlib.sha256(data).hexdigest()[:10]}"
        self.env.globals.update(site_name=SITE_NAME, static=self.static, config=config,
                                hw_labels=self.labels, arch_labels=ARCH_LABELS, task_labels=self.task_labels)

    # helpers
    def render(self, template: str, path: str, **page) -> None:
        url = "/" + (path[: -len("index.html")] if path.endswith("index.html") else path)
        page.setdefault("canonical", self.config.absolute(url))
        html = self.env.get_template(template).render(page_url=url, **page)
        self.files[path] = html.encode("utf-8")

    def providers(self) -> dict[str, list[RecipeInput]]:
        orgs: dict[str, list[RecipeInput]] = {}
        for r in self.recipes:
            orgs.setdefault(r.hf_id.split("/", 1)[0], []).append(r)
        return orgs

    def provider_name(self, org: str) -> str:
        names = [mapping(r.data.get("meta")).get("provider") for r in self.providers().get(org, [])]
        names = [n for n in names if n]
        return max(sorted(set(names)), key=names.count) if names else org

    def row(self, hf_id: str) -> dict:
        """What lists show of a recipe (index, provider and hardware pages)."""
        m = self.models[hf_id]
        rec = self.by_id[hf_id]
        variants = []
        for key, v in mapping(rec.data.get("variants")).items():
            v = mapping(v)
            variants.append({"key": key, "precision": (v.get("precision") or key).upper(), "vram": v.get("vram_minimum_gb")})
        return {**m, "params_label": format_params(m.get("parameter_count")),
                "active_label": format_params(m.get("active_parameters"))
                if m.get("active_parameters") and m.get("active_parameters") != m.get("parameter_count") else "",
                "context": context_label(m.get("context_length")), "variants": variants,
                "org": hf_id.split("/", 1)[0]}

    # pages
    def model_pages(self) -> None:
        for rec in self.recipes:
            docs = picker_documents(rec, self.ctx)
            self.pickers[rec.hf_id] = docs
            for path, doc in docs.items():
                self.files[path] = encode_json(doc)
            summary = picker_summary(rec, self.ctx, docs) if rec.rendered.trees else None
            self.model_page(rec, summary, docs)
            self.files[f"{rec.hf_id}.md"] = recipe_markdown(self, rec, summary).encode("utf-8")

    def model_page(self, rec: RecipeInput, summary: dict | None, docs: dict) -> None:
        meta, model = mapping(rec.data.get("meta")), mapping(rec.data.get("model"))
        guide = render_guide(rec.data.get("guide"), top_level=3, reserved_ids=PAGE_IDS)
        data = view = None
        if summary:
            data = dict(summary, reasons=unavailable_reasons(rec, self.ctx, summary),
                        notes=strategy_notes(self.ctx, docs), labels=self.labels)
            view = initial_view(summary, self.labels)
        related = [self.row(h) for h in (meta.get("related_recipes") or []) if h in self.by_id and h != rec.hf_id]
        org = rec.hf_id.split("/", 1)[0]
        seen = {r["id"] for r in related} | {rec.hf_id}
        more = [self.row(r.hf_id) for r in self.providers()[org] if r.hf_id not in seen][:6]
        hw_json = {h: "/" + hw_doc_path(rec.hf_id, h) for h in (self.models[rec.hf_id].get("hardware") or [])}
        self.render("model.html", f"{rec.hf_id}/index.html",
                    title=f"{meta.get('title') or rec.hf_id} on vLLM", og_type="article",
                    description=meta.get("description") or "", rec=rec, meta=meta, model=model,
                    org=org, provider=self.provider_name(org), badges=_badges(rec, self.task_labels),
                    install=_install_view(rec), data=data, view=view, summary=summary,
                    guide=guide, related=related, more=more,
                    hf_url=HF + rec.hf_id, json_url="/" + model_doc_path(rec.hf_id), hw_json=hw_json,
                    md_url=f"/{rec.hf_id}.md", edit_url=self.config.edit_url(rec.hf_id),
                    issue_url=f"{self.config.repo_url}/issues/new?{urlencode({'title': f'{rec.hf_id}: '}, quote_via=quote)}",
                    groups=hardware_groups(summary) if summary else [],
                    updated=meta.get("date_updated") or meta.get("date_added"))
        self.sitemap.append((f"/{rec.hf_id}/", meta.get("date_updated") or meta.get("date_added")))

    def checkpoint_redirects(self) -> None:
        """A variant's own checkpoint id (`/nvidia/X-FP8/`) leads to its recipe, variant preselected."""
        for cp in self.api[f"{API}/models.json"]["checkpoints"]:
            path = f"{cp['id']}/index.html"
            if cp["id"] in self.by_id or path in self.files or cp["id"].count("/") != 1:
                continue
            rec = self.by_id[cp["recipe"]]
            trees = {t.variant: t.model_id for t in rec.rendered.trees}
            key = cp["variant"] if cp["variant"] in trees else next((k for k, m in trees.items() if m == cp["id"]), None)
            target = f"/{cp['recipe']}/" + (f"?{urlencode({'variant': key})}" if key and key != "default" else "")
            self.render("redirect.html", path, title=cp["id"], target=target, recipe=cp["recipe"],
                        canonical=self.config.absolute(f"/{cp['recipe']}/"), description=f"{cp['id']} is served by the {cp['recipe']} recipe.")

    def provider_pages(self) -> None:
        order = list(self.task_labels)
        for org, recs in self.providers().items():
            path = f"{org}/index.html"
            if path in self.files:
                continue
            groups: dict[str, list] = {}
            for r in sorted(recs, key=lambda r: str(mapping(r.data.get("meta")).get("title") or r.hf_id).lower()):
                tasks = mapping(r.data.get("meta")).get("tasks") or ["other"]
                groups.setdefault(tasks[0], []).append(self.row(r.hf_id))
            ordered = sorted(groups.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order))
            name = self.provider_name(org)
            self.render("provider.html", path, title=f"{name} models on vLLM", org=org, name=name,
                        description=f"{len(recs)} {name} model recipe{'s' if len(recs) != 1 else ''}: exact vLLM commands per hardware.",
                        groups=ordered, count=len(recs), hf_url=HF + org)
            self.sitemap.append((f"/{org}/", None))

    def hardware_pages(self) -> None:
        brands: dict[str, list] = {}
        for h, profile in self.profiles.items():
            doc = self.api[f"{API}/hardware/{h}.json"]
            fits, multi = self.hardware_models(h, doc)
            entry = {"id": h, "label": self.labels[h], "profile": profile, "fits": fits, "multi": multi}
            brands.setdefault(profile.get("brand") or "Other", []).append(entry)
            n, per = profile.get("gpu_count") or 1, gb(round(sizing.per_gpu_gib(profile), 1))
            self.render("hardware.html", f"hardware/{h}/index.html", hw=entry,
                        title=f"What runs on one {n} × {self.labels[h]} node",
                        description=f"{len(fits)} models fit one {n} × {per} GB {self.labels[h]} node; "
                                    f"the recommended vLLM command for each.",
                        json_url=f"/{API}/hardware/{h}.json")
            self.sitemap.append((f"/hardware/{h}/", None))
        self.render("hardware_index.html", "hardware/index.html", brands=list(brands.items()),
                    title="Hardware: what runs where",
                    description="Every hardware profile and the models that fit on one node of it.")
        self.sitemap.append(("/hardware/", None))

    def hardware_models(self, h: str, doc: dict) -> tuple[list, list]:
        per_recipe: dict[str, list] = {}
        for m in doc["models"]:
            per_recipe.setdefault(m["recipe"], []).append(m)
        fits, multi = [], []
        for hf_id, entries in per_recipe.items():
            rec = self.by_id.get(hf_id)
            if rec is None:
                continue
            pdoc = self.pickers.get(hf_id, {}).get(picker_path(hf_id, h))
            variants = mapping(rec.data.get("variants"))

            def weight(e):
                return mapping(variants.get(e["variant"])).get("vram_minimum_gb") or 0
            one = [e for e in entries if e["node_count"] == 1]
            row = self.row(hf_id)
            if one:
                best = max(one, key=weight)   # max keeps the first (tree order) on ties
                item = {"row": row, "variant": best["variant"], "strategy": best["strategy"]}
                if pdoc and best["variant"] in pdoc["trees"]:
                    r = pdoc["renderings"][pdoc["trees"][best["variant"]]["recommended"]]
                    item["summary"] = r["summary"]
                    item["command"] = command_text(r["processes"][0], default_choice(r))
                    item["processes"] = len(r["processes"])
                item["variant_label"] = _variant_label(variants.get(best["variant"]), best["variant"])
                item["href"] = _picker_href(hf_id, h, best["variant"])
                fits.append(item)
            else:
                least = min(entries, key=lambda e: e["node_count"])
                multi.append({"row": row, "variant": least["variant"], "nodes": least["node_count"],
                              "strategy": least["strategy"],
                              "variant_label": _variant_label(variants.get(least["variant"]), least["variant"]),
                              "href": _picker_href(hf_id, h, least["variant"])})
        key = lambda item: str(item["row"].get("title") or item["row"]["id"]).lower()
        return sorted(fits, key=key), sorted(multi, key=key)

    def index_page(self) -> None:
        index = browse_index(list(self.models.values()), self.labels, self.taxonomy)
        rows = {r: self.row(r) for r in self.models}
        records = index["records"]
        data = {"records": [{k: v for k, v in r.items() if k != "title"} for r in records],
                "facets": list(FACETS)}
        self.render("index.html", "index.html", title=f"{SITE_NAME}: how to run any model on any hardware",
                    description=f"Exact vllm serve and docker run commands for {len(records)} models on "
                                f"{len(self.profiles)} hardware profiles.",
                    records=records, rows=rows, facets=index["facets"], facet_labels=FACET_LABELS,
                    sorts=SORTS, data=data, providers=[(org, self.provider_name(org), len(recs))
                                                       for org, recs in sorted(self.providers().items(), key=lambda kv: kv[0].lower())],
                    hardware_count=len(self.profiles))
        self.sitemap.insert(0, ("/", None))

    def not_found(self) -> None:
        ids = {m: f"/{m}/" for m in self.models}
        for cp in self.api[f"{API}/models.json"]["checkpoints"]:
            if f"{cp['id']}/index.html" in self.files and cp["id"] not in ids:
                ids[cp["id"]] = f"/{cp['id']}/"
        titles = {m: self.models[m].get("title") or m for m in self.models}
        self.render("404.html", "404.html", title="Page not found", description="No page at this address.",
                    data={"ids": ids, "titles": titles, "request": self.config.request_url("ORG/REPO")},
                    canonical=None)

    def text_files(self) -> None:
        lines = ['<?xml version="1.0" encoding="UTF-8"?>',
                 '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
        from html import escape
        for path, lastmod in self.sitemap:
            lines.append(f"  <url><loc>{escape(self.config.absolute(path))}</loc>"
                         + (f"<lastmod>{escape(str(lastmod))}</lastmod>" if lastmod else "") + "</url>")
        lines.append("</urlset>")
        self.files["sitemap.xml"] = ("\n".join(lines) + "\n").encode("utf-8")
        self.files["robots.txt"] = (f"User-agent: *\nAllow: /\n\nSitemap: {self.config.absolute('/sitemap.xml')}\n").encode("utf-8")
        self.files["llms.txt"] = llms_txt(self).encode("utf-8")


def _variant_label(variant, key: str) -> str:
    v = mapping(variant)
    if v.get("label"):
        return str(v["label"])
    p = (v.get("precision") or key).upper()
    return f"{p} · {v['vram_minimum_gb']} GB" if v.get("vram_minimum_gb") else p


def _picker_href(hf_id: str, hw: str, variant: str) -> str:
    query = {"hardware": hw}
    if variant != "default":
        query["variant"] = variant
    return f"/{hf_id}/?{urlencode(query)}"


# -- text for agents --------------------------------------------------------------------------

def recipe_markdown(site: _Site, rec: RecipeInput, summary: dict | None) -> str:
    meta, model = mapping(rec.data.get("meta")), mapping(rec.data.get("model"))
    m = site.models[rec.hf_id]
    out = [f"# {meta.get('title') or rec.hf_id}", "", f"> {' '.join(str(meta.get('description') or '').split())}", ""]
    facts = [("Hugging Face id", f"`{rec.hf_id}`"), ("Provider", meta.get("provider")),
             ("Architecture", ARCH_LABELS.get(model.get("architecture"), model.get("architecture"))),
             ("Parameters", format_params(model.get("parameter_count"))
              + (f" ({format_params(model.get('active_parameters'))} active)"
                 if model.get("active_parameters") and model.get("active_parameters") != model.get("parameter_count") else "")),
             ("Context", context_label(model.get("context_length"))),
             ("Minimum vLLM", model.get("min_vllm_version")),
             ("Tasks", ", ".join(meta.get("tasks") or [])),
             ("Precisions", ", ".join(p.upper() for p in m.get("precisions") or [])),
             ("Runs on", ", ".join(site.labels.get(h, h) for h in m.get("hardware") or [])),
             ("Updated", meta.get("date_updated") or meta.get("date_added")),
             ("Page", site.config.absolute(f"/{rec.hf_id}/")),
             ("JSON", site.config.absolute("/" + model_doc_path(rec.hf_id)))]
    out += [f"- {k}: {v}" for k, v in facts if v] + [""]
    install = install_block(rec.data)
    if install.get("pip") or install.get("docker"):
        out += ["## Install", ""]
        for key, title in (("pip", "pip / uv"), ("docker", "Docker")):
            if install.get(key):
                out += [f"{title}:", "", "```bash", install[key]["command"], "```", ""]
                if install[key].get("note"):
                    out += [install[key]["note"], ""]
    if summary:
        out += ["## Serve", ""]
        for key, tv in summary["variants"].items():
            hw = tv["default_hardware"]
            doc = site.pickers[rec.hf_id][picker_path(rec.hf_id, hw)]
            r = doc["renderings"][doc["trees"][key]["recommended"]]
            out += [f"### {tv['label']} (`{tv['model_id']}`) on {site.labels.get(hw, hw)}", "",
                    f"{r['summary']}, strategy `{r['strategy']}`.", ""]
            chosen = default_choice(r)
            for tab in tabs_of(r):
                text = command_text(tab, chosen) if tab["kind"] == "process" else tab["text"]
                if len(tabs_of(r)) > 1:
                    out += [f"{tab['label']}:", ""]
                out += ["```bash", text, "```", ""]
            others = [h for h in tv["hardware"] if h != hw]
            if others:
                out += ["Other hardware (every rendering as JSON): " + ", ".join(
                    f"[{site.labels.get(h, h)}]({site.config.absolute('/' + hw_doc_path(rec.hf_id, h))})" for h in others), ""]
    elif "omni" in (meta.get("tasks") or []):
        out += ["This model runs under vLLM-Omni; the guide below explains how to serve it.", ""]
    guide = rec.data.get("guide")
    if isinstance(guide, str) and guide.strip():
        out += ["## Guide", "", guide.strip(), ""]
    return "\n".join(out)


def llms_txt(site: _Site) -> str:
    a = site.config.absolute
    out = [f"# {SITE_NAME}", "",
           f"> Exact, validated `vllm serve` and `docker run` commands for {len(site.recipes)} models on "
           f"{len(site.profiles)} hardware profiles, generated from one YAML recipe per Hugging Face model.", "",
           "Each recipe below links to a Markdown summary (install, default command per variant, guide). "
           f"Every rendering is also available as JSON: start at {a('/' + API + '/models.json')}, then "
           f"`/{API}/models/<org>/<repo>.json` and `/{API}/models/<org>/<repo>/hw/<hardware>.json`.", "",
           "## Recipes", ""]
    for rec in sorted(site.recipes, key=lambda r: r.hf_id.lower()):
        meta = mapping(rec.data.get("meta"))
        desc = " ".join(str(meta.get("description") or "").split())
        out.append(f"- [{meta.get('title') or rec.hf_id}]({a('/' + rec.hf_id + '.md')}): `{rec.hf_id}`. {desc}".rstrip())
    out += ["", "## Hardware", ""]
    for h, p in site.profiles.items():
        out.append(f"- [{site.labels[h]}]({a(f'/hardware/{h}/')}): {p.get('gpu_count') or 1} × "
                   f"{gb(round(sizing.per_gpu_gib(p), 1))} GB per node; JSON {a(f'/{API}/hardware/{h}.json')}")
    out += ["", "## Optional", "",
            f"- [JSON Schemas]({a('/' + API + '/schema/recipe.schema.json')}): recipe format",
            f"- [Contributing]({site.config.repo_url}/blob/main/CONTRIBUTING.md): add or fix a recipe", ""]
    return "\n".join(out)


# -- entry point ------------------------------------------------------------------------------

def site_pages(catalog, recipes: list[RecipeInput], ctx, api_docs: dict,
               config: SiteConfig | None = None) -> dict[str, bytes]:
    """Every file of the human site (HTML, picker JSON, Markdown, sitemap...), keyed by path."""
    site = _Site(catalog, recipes, ctx, api_docs, config or SiteConfig.from_env())
    site.model_pages()
    site.provider_pages()
    site.hardware_pages()
    site.checkpoint_redirects()
    site.index_page()
    site.not_found()
    site.text_files()
    return site.files
