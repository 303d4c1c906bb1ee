"""The built human site on the project's own recipes (and on the compat corpus when present):
every internal link resolves, the default command is in the HTML, the DOM contract the browser
tests rely on is there, sitemap/robots/llms.txt, determinism and page weight."""

from __future__ import annotations

import gzip
import html
import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from recipes_site.build import build, synthesis_context, synthesize_catalog
from recipes_site.catalog import PROJECT_ROOT, load_catalog
from recipes_site.render.api import api_documents
from recipes_site.render.pages import (
    SiteConfig,
    default_choice,
    process_text,
    site_pages,
    without_speed,
)
from recipes_site.render.picker import page_document

COMPAT = PROJECT_ROOT.parent / "shared" / "compat" / "corpus"
WEIGHT_LIMIT = 60 * 1024
# issue 26: a model page (HTML + site.css + site.js, gzip) stays within 40 KB; WEIGHT_LIMIT is the
# bound of pages with plots (issue 28)
MODEL_PAGE_LIMIT = 40 * 1024


def build_site(root: Path, out: Path) -> Path:
    """The build, plus the pages written next to it while build.py does not write them itself."""
    result = build(root, out)
    assert result.ok, "\n".join(d.format() for d in result.diagnostics)
    if not (out / "index.html").exists():
        catalog, _ = load_catalog(root)
        recipes = synthesize_catalog(catalog)
        ctx = synthesis_context(catalog)
        for rel, data in site_pages(
            catalog, recipes, ctx, api_documents(recipes, ctx, catalog.taxonomy)
        ).items():
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            (out / rel).write_bytes(data)
    return out


class Page(HTMLParser):
    """Links, ids, <script> elements and <pre> texts of one HTML page."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.scripts: list[tuple[dict, str]] = []
        self.attrs: list[tuple[str, dict]] = []
        self.pres: dict[str, str] = {}
        self._script: dict | None = None
        self._pre: str | None = None
        self._buf: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.attrs.append((tag, a))
        if "id" in a:
            self.ids.add(a["id"])
        for key in ("href", "src"):
            if a.get(key) and not (tag == "link" and a.get("rel") in ("canonical", "icon")):
                self.links.append(a[key])
        if tag == "script":
            self._script, self._buf = a, []
        if tag == "pre":
            self._pre, self._buf = (
                next((k for k in a if k.startswith("data-")), a.get("id", "")),
                [],
            )

    def handle_data(self, data):
        if self._script is not None or self._pre is not None:
            self._buf.append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._script is not None:
            self.scripts.append((self._script, "".join(self._buf)))
            self._script = None
        if tag == "pre" and self._pre is not None:
            self.pres[self._pre] = "".join(self._buf)
            self._pre = None

    def json(self, element_id: str):
        return json.loads(next(body for a, body in self.scripts if a.get("id") == element_id))


def html_pages(out: Path) -> dict[str, Path]:
    return {str(p.relative_to(out)): p for p in sorted(out.rglob("*.html"))}


def resolve(out: Path, page_rel: str, link: str) -> tuple[Path | None, str]:
    """The file a site link leads to (None if it leaves the site) and its fragment."""
    url = urlsplit(link)
    if url.scheme or link.startswith("//"):
        return None, ""
    path = unquote(url.path)
    if not path:
        target = out / page_rel
    else:
        base = "/" + page_rel.rsplit("/", 1)[0] + "/" if "/" in page_rel else "/"
        absolute = path if path.startswith("/") else base + path
        target = out / absolute.lstrip("/")
        if absolute.endswith("/") or target.is_dir():
            target = target / "index.html"
    return target, url.fragment


def broken_links(out: Path) -> list[str]:
    parsed = {rel: Page(p.read_text(encoding="utf-8")) for rel, p in html_pages(out).items()}
    broken = []
    for rel, page in parsed.items():
        if rel == "404.html":  # served at any depth: its links must be absolute
            assert all(not l or l.startswith(("/", "http", "#", "mailto:")) for l in page.links), (
                page.links
            )
        for link in page.links:
            target, fragment = resolve(out, rel, link)
            if target is None:
                continue
            if not target.is_file():
                broken.append(f"{rel}: {link} -> missing {target.relative_to(out)}")
                continue
            if fragment and target.suffix == ".html":
                ids = parsed[str(target.relative_to(out))].ids
                if fragment not in ids:
                    broken.append(f"{rel}: {link} -> no id {fragment!r}")
    return broken


SITE_URL, REPO_URL = "https://recipes.test", "https://git.example.org/team/recipes"


@pytest.fixture(scope="module", autouse=True)
def published():
    """Every build of this module is one for publishing: the project's recipes-site.yaml names
    neither a base URL nor a repository (see test_site_config.py for preview builds)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RECIPES_SITE_URL", SITE_URL)
        mp.setenv("RECIPES_SITE_REPO_URL", REPO_URL)
        yield


@pytest.fixture(scope="module")
def site(tmp_path_factory, published) -> Path:
    return build_site(PROJECT_ROOT, tmp_path_factory.mktemp("pages") / "_site")


@pytest.fixture(scope="module")
def api(site):
    return json.loads((site / "api/v1/models.json").read_text())


# -- links -------------------------------------------------------------------------------------


def test_every_internal_link_of_every_page_resolves(site):
    assert broken_links(site) == []


@pytest.mark.skipif(not COMPAT.is_dir(), reason="compat corpus not present")
def test_the_compat_corpus_site_has_no_broken_link_and_light_model_pages(tmp_path):
    out = build_site(COMPAT, tmp_path / "_site")
    assert broken_links(out) == []
    assert len(html_pages(out)) > 150
    models = json.loads((out / "api/v1/models.json").read_text())["models"]
    heaviest = max(_weight(out, f"{m['id']}/index.html") for m in models)
    assert heaviest < WEIGHT_LIMIT
    assert heaviest <= MODEL_PAGE_LIMIT


# -- page types ----------------------------------------------------------------------------------


def test_every_page_type_is_built(site, api):
    for m in api["models"]:
        assert (site / m["id"] / "index.html").is_file()
        assert (site / f"{m['id']}.md").is_file()
        assert (site / m["id"].split("/")[0] / "index.html").is_file()
    for rel in (
        "index.html",
        "404.html",
        "hardware/index.html",
        "hardware/h200/index.html",
        "sitemap.xml",
        "robots.txt",
        "llms.txt",
        "static/site.css",
        "static/site.js",
    ):
        assert (site / rel).is_file(), rel


def test_a_profile_that_runs_nothing_is_not_advertised(site):
    """Hardware with no model (its API document lists none) gets no page, no index entry and no
    llms.txt line; hardware that runs something keeps all three."""
    index = (site / "hardware/index.html").read_text(encoding="utf-8")
    llms = (site / "llms.txt").read_text(encoding="utf-8")
    empty, used = [], []
    for doc_path in sorted((site / "api/v1/hardware").glob("*.json")):
        h = doc_path.stem
        doc = json.loads(doc_path.read_text())
        (used if doc.get("models") else empty).append(h)
        advertised = [
            (site / "hardware" / h / "index.html").is_file(),
            f"/hardware/{h}/" in index,
            f"/hardware/{h}/" in llms,
        ]
        assert advertised == [bool(doc.get("models"))] * 3, (h, advertised)
    assert empty and used  # the bundled taxonomy has both kinds


def test_pages_have_opengraph_and_a_canonical_url(site):
    text = (site / "meta-llama/Llama-3.3-70B-Instruct/index.html").read_text()
    assert '<meta property="og:title" content="Llama 3.3 70B Instruct on vLLM">' in text
    assert '<meta property="og:type" content="article">' in text
    assert re.search(
        r'<link rel="canonical" href="http[^"]+/meta-llama/Llama-3.3-70B-Instruct/">', text
    )
    assert (
        '<meta property="og:description"' in text
        and '<meta name="twitter:card" content="summary">' in text
    )


def test_no_framework_no_cdn_no_external_fonts(site):
    for rel, p in html_pages(site).items():
        page = Page(p.read_text())
        for a, _ in page.scripts:
            # the project's own scripts only (compare.js: the /compare/ page's)
            assert not a.get("src") or a["src"].startswith(
                ("/static/site.js", "/static/compare.js")
            ), rel
        styles = [a for tag, a in page.attrs if tag == "link" and a.get("rel") == "stylesheet"]
        assert all(a["href"].startswith("/static/site.css") for a in styles), rel
    css = (site / "static/site.css").read_text()
    assert "@import" not in css and "url(http" not in css and "@font-face" not in css


# -- the model page --------------------------------------------------------------------------------


def _default_command(site: Path, hf_id: str) -> tuple[str, str]:
    mdoc = json.loads((site / f"api/v1/models/{hf_id}.json").read_text())
    hw = mdoc["default_hardware"]["default"]
    doc = json.loads((site / f"api/v1/models/{hf_id}/hw/{hw}.json").read_text())
    rec = doc["recommended"]["default"]
    r = next(
        r
        for r in doc["renderings"]
        if (r["variant"], r["strategy"], r["node_count"])
        == (rec["variant"], rec["strategy"], rec["node_count"])
    )
    part = r["parts"]["processes"][0]
    main = r
    for step in part["path"]:
        main = main[step]
    return hw, part["exports"] + main


def test_the_default_command_is_in_the_html(site, api):
    """Useful with JavaScript off: the recommended rendering on the default hardware, exactly."""
    for m in api["models"]:
        page = Page((site / m["id"] / "index.html").read_text())
        if not m["hardware"]:
            assert "data-command" not in page.pres
            continue
        hw, command = _default_command(site, m["id"])
        assert page.pres["data-command"] == command, m["id"]
        checked = [
            a["data-value"]
            for tag, a in page.attrs
            if a.get("role") == "radio" and a.get("aria-checked") == "true"
        ]
        assert checked[0] == hw


def test_the_page_assembly_rule_reproduces_every_rendering_by_default(site):
    """pages.process_text (site.js commandText says the same) on the API's picker parts."""
    checked = 0
    for path in sorted((site / "api/v1/models").rglob("hw/*.json")):
        doc = json.loads(path.read_text())
        for r in doc["renderings"]:
            parts = r["parts"]
            chosen = default_choice(doc["feature_sets"][parts["features"]])
            for part in parts["processes"]:
                serve, docker = r, r
                for step in part["path"]:
                    serve = serve[step]
                for step in part["docker_path"]:
                    docker = docker[step]
                locked = parts["features_locked"]
                assert process_text(r, part, chosen, locked=locked) == part["exports"] + serve
                assert process_text(r, part, chosen, "docker", locked=locked) == docker
                checked += 1
    assert checked > 100


def test_the_dom_contract_of_the_model_page(site):
    text = (site / "deepseek-ai/DeepSeek-R1-0528/index.html").read_text()
    page = Page(text)
    axes = [a["data-axis"] for tag, a in page.attrs if a.get("role") == "radiogroup"]
    assert axes == ["hardware", "gpus", "variant", "strategy", "nodes"]
    for selector in ("data-picker", "data-command-card", "data-sizing", "data-copy-status"):
        assert sum(1 for _, a in page.attrs if selector in a) == 1, selector
    assert [a["data-form"] for tag, a in page.attrs if tag == "button" and "data-form" in a] == [
        "serve",
        "docker",
    ]
    assert sum(1 for tag, a in page.attrs if tag == "button" and "data-copy" in a) == 1
    assert any(
        tag == "input" and a.get("type") == "checkbox" and "data-feature" in a
        for tag, a in page.attrs
    )
    radios = [a for _, a in page.attrs if a.get("role") == "radio"]
    assert all("data-value" in a and a["aria-checked"] in ("true", "false") for a in radios)
    disabled = [a for a in radios if a.get("aria-disabled") == "true"]
    assert all(a.get("title") for a in disabled)
    # the profiles no variant runs on are not pills: a collapsed list, each reason as text
    assert sum(1 for tag, a in page.attrs if tag == "details" and "data-hw-off" in a) == 1
    status = next(a for _, a in page.attrs if "data-copy-status" in a)
    assert status.get("aria-live") == "polite"


def test_the_embedded_picker_data_is_the_engine_summary(site):
    page = Page((site / "meta-llama/Llama-3.3-70B-Instruct/index.html").read_text())
    data = page.json("picker-data")
    assert data["id"] == "meta-llama/Llama-3.3-70B-Instruct"
    assert data["default"] == {"variant": "default", "hardware": data["initial"]["hardware"]}
    # the API document, less the speed estimates the page shows for its first choice itself
    whole = without_speed(
        json.loads(
            (
                site / data["api_url"].replace("{hw}", data["initial"]["hardware"]).lstrip("/")
            ).read_text()
        )
    )
    # the page embeds the rendering it shows whole, stubs of the others (fetched when picked)
    assert data["initial"] == page_document(whole, "default")
    assert data["initial"]["partial"] is True
    shown = [r for r in data["initial"]["renderings"] if not r.get("stub")]
    want = whole["recommended"]["default"]
    assert [(r["variant"], r["strategy"], r["node_count"]) for r in shown] == [
        (want["variant"], want["strategy"], want["node_count"])
    ]
    assert len(data["initial"]["renderings"]) == len(whole["renderings"])
    recipe = load_catalog(PROJECT_ROOT)[0].recipe("meta-llama/Llama-3.3-70B-Instruct").data
    assert list(data["variants"]) == list(recipe["variants"])
    assert "mi300x" not in data["variants"]["fp8"]["hardware"]
    assert "NVIDIA" in data["reasons"]["fp8"]["mi300x"]


def test_install_block_guide_and_footer(site):
    text = (site / "meta-llama/Llama-3.3-70B-Instruct/index.html").read_text()
    assert "uv pip install -U vllm --torch-backend auto" in text
    assert '<pre class="hl"><code class="language-bash">' in text
    assert '<div class="table-wrap"><table class="variants">' in text  # generated from the plans
    assert f'href="{REPO_URL}/edit/main/models/meta-llama/Llama-3.3-70B-Instruct.yaml"' in text
    assert 'href="/Qwen/Qwen3-30B-A3B/"' in text  # related recipe
    assert '<time datetime="2026-11-29">' in text


def test_the_repository_url_is_configurable(tmp_path, monkeypatch):
    monkeypatch.setenv("RECIPES_SITE_REPO_URL", "https://git.example.org/team/recipes/")
    monkeypatch.setenv("RECIPES_SITE_URL", "https://recipes.example.org")
    assert SiteConfig.from_env() == SiteConfig(
        "https://git.example.org/team/recipes", "https://recipes.example.org"
    )
    catalog, _ = load_catalog(PROJECT_ROOT)
    recipes = synthesize_catalog(catalog)
    ctx = synthesis_context(catalog)
    files = site_pages(catalog, recipes, ctx, api_documents(recipes, ctx, catalog.taxonomy))
    page = files["Qwen/Qwen3-8B/index.html"].decode()
    assert 'href="https://git.example.org/team/recipes/edit/main/models/Qwen/Qwen3-8B.yaml"' in page
    assert (
        "https://git.example.org/team/recipes/issues/new?labels=recipe-request"
        in files["404.html"].decode()
    )
    assert "<loc>https://recipes.example.org/Qwen/Qwen3-8B/</loc>" in files["sitemap.xml"].decode()


# -- browse, providers, hardware, 404, redirects ---------------------------------------------------


def _shard_records(site: Path, urls: list[str]) -> list[dict]:
    out = []
    for url in urls:
        doc = json.loads((site / urlsplit(url).path.lstrip("/")).read_text())
        out += [dict(zip(doc["fields"], r)) for r in doc["records"]]
    return out


def test_the_browse_page_lists_its_first_page_and_shards_hold_every_recipe(site, api):
    page = Page((site / "index.html").read_text())
    rows = [a["data-id"] for _, a in page.attrs if "data-recipe-row" in a]
    data = page.json("browse-data")
    assert data["total"] == len(api["models"])
    records = _shard_records(site, data["shards"])
    assert sorted(r["id"] for r in records) == sorted(
        m["id"] for m in api["models"]
    )  # each exactly once
    assert rows == [r["id"] for r in records][: data["page_size"]]  # the first page, in name order
    facets = {a["data-facet"] for tag, a in page.attrs if tag == "input" and "data-facet" in a}
    assert facets == {"task", "architecture", "size", "precision", "hardware", "provider"}
    assert (
        sum(
            1
            for tag, a in page.attrs
            if tag == "input" and a.get("type") == "search" and "data-search" in a
        )
        == 1
    )
    assert any("data-result-count" in a for _, a in page.attrs) and any(
        "data-clear-filters" in a for _, a in page.attrs
    )
    by_id = {r["id"]: r for r in records}
    assert by_id["deepseek-ai/DeepSeek-R1-0528"]["size"] == ["200-1t"]
    assert by_id["meta-llama/Llama-3.3-70B-Instruct"]["size"] == ["70-200"]
    assert (
        "fp8" in by_id["meta-llama/Llama-3.3-70B-Instruct"]["precision"]
    )  # any variant, not just the default
    assert (
        "nvidia/Llama-3.3-70B-Instruct-FP8"
        in by_id["meta-llama/Llama-3.3-70B-Instruct"]["checkpoints"]
    )


def test_provider_pages_group_their_recipes(site):
    text = (site / "Qwen/index.html").read_text()
    assert 'href="/Qwen/Qwen3-8B/"' in text and 'href="/Qwen/Qwen3-30B-A3B/"' in text
    count = len(list((PROJECT_ROOT / "models" / "Qwen").glob("*.yaml")))
    assert f"{count} recipes" in text


def test_hardware_pages_show_what_fits_with_the_recommended_command(site):
    text = (site / "hardware/h200/index.html").read_text()
    assert "What runs on one 8 × H200 node" in html.unescape(text)
    page = Page(text)
    commands = [t for k, t in page.pres.items() if k.startswith("cmd-")]
    assert any(c.startswith("vllm serve meta-llama/Llama-3.3-70B-Instruct") for c in commands)
    assert 'href="/meta-llama/Llama-3.3-70B-Instruct/?hardware=h200"' in text
    index = (site / "hardware/index.html").read_text()
    assert 'href="/hardware/mi355x/"' in index


def test_a_variant_checkpoint_redirects_to_its_recipe(site):
    text = (site / "nvidia/Llama-3.3-70B-Instruct-FP8/index.html").read_text()
    assert (
        '<meta http-equiv="refresh" content="0; url=/meta-llama/Llama-3.3-70B-Instruct/?variant=fp8">'
        in text
    )


def test_the_404_page_offers_to_request_or_contribute(site, api):
    from recipes_site.render.search import bucket_of

    page = Page((site / "404.html").read_text())
    text = (site / "404.html").read_text()
    assert "Request this recipe" in text and "Contribute one yourself" in text
    assert "CONTRIBUTING.md" in text
    data = page.json("nf-data")
    assert "browse-data" not in text and "Llama-3.3-70B-Instruct" not in text  # nothing inlined
    buckets = [
        json.loads((site / urlsplit(u).path.lstrip("/")).read_text())["ids"] for u in data["ids"]
    ]

    def lookup(key):
        return buckets[bucket_of(key.lower(), len(buckets))].get(key.lower())

    for m in api["models"]:
        assert lookup(m["id"]) == f"/{m['id']}/"
    assert (
        lookup("NVIDIA/llama-3.3-70b-instruct-fp8")
        == "/meta-llama/Llama-3.3-70B-Instruct/?variant=fp8"
    )
    assert lookup("qwen") == "/Qwen/"
    assert sum(len(b) for b in buckets) == len({k for b in buckets for k in b})


# -- files for machines ---------------------------------------------------------------------------


def test_sitemap_lists_home_providers_hardware_and_recipes(site, api):
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    root = ET.fromstring((site / "sitemap.xml").read_bytes())
    locs = [urlsplit(u.find("s:loc", ns).text).path for u in root.findall("s:url", ns)]
    assert locs[0] == "/"
    assert len(locs) == len(set(locs))
    for m in api["models"]:
        assert f"/{m['id']}/" in locs
    assert "/hardware/h200/" in locs and "/Qwen/" in locs
    assert not any(l.endswith("404.html") or "Llama-3.3-70B-Instruct-FP8" in l for l in locs)
    lastmod = {
        urlsplit(u.find("s:loc", ns).text).path: u.find("s:lastmod", ns)
        for u in root.findall("s:url", ns)
    }
    assert lastmod["/meta-llama/Llama-3.3-70B-Instruct/"].text == "2026-11-29"


def test_robots_allows_everything_and_names_the_sitemap(site):
    text = (site / "robots.txt").read_text()
    assert "User-agent: *\nAllow: /\n" in text
    assert re.search(r"^Sitemap: https?://\S+/sitemap\.xml$", text, re.M)


def test_llms_txt_and_one_markdown_file_per_recipe(site, api):
    text = (site / "llms.txt").read_text()
    assert text.startswith("# vLLM Recipes\n\n> ")
    for m in api["models"]:
        assert f"/{m['id']}.md): `{m['id']}`" in text
        md = (site / f"{m['id']}.md").read_text()
        assert md.startswith(f"# {m['title']}\n")
        if m["hardware"]:
            _hw, command = _default_command(site, m["id"])
            assert f"```bash\n{command}\n```" in md
    assert "/api/v1/models.json" in text


# -- properties of the whole output ----------------------------------------------------------------


def test_the_pages_are_deterministic(site, tmp_path):
    again = build_site(PROJECT_ROOT, tmp_path / "again")
    first = {str(p.relative_to(site)): p.read_bytes() for p in site.rglob("*") if p.is_file()}
    second = {str(p.relative_to(again)): p.read_bytes() for p in again.rglob("*") if p.is_file()}
    assert first.keys() == second.keys()
    assert [k for k in first if first[k] != second[k]] == []


def _weight(out: Path, page: str) -> int:
    parts = [out / page, out / "static/site.css", out / "static/site.js"]
    return sum(len(gzip.compress(p.read_bytes(), 9)) for p in parts)


def test_model_pages_stay_light(site, api):
    for m in api["models"]:
        assert _weight(site, f"{m['id']}/index.html") < WEIGHT_LIMIT, m["id"]


def _has_plots(site, hf_id: str) -> bool:
    return 'id="measured"' in (site / f"{hf_id}/index.html").read_text()


def test_every_model_page_weighs_at_most_40_kb(site, api):
    """Issue 26: 40 KB gzip; issue 28: a page with measured-result plots 60 KB."""
    heavy = {
        m["id"]: w
        for m in api["models"]
        if (w := _weight(site, f"{m['id']}/index.html"))
        > (WEIGHT_LIMIT if _has_plots(site, m["id"]) else MODEL_PAGE_LIMIT)
    }
    assert heavy == {}
    assert any(_has_plots(site, m["id"]) for m in api["models"])  # the 60 KB case is exercised


def test_script_json_cannot_close_its_tag(site):
    for rel, p in html_pages(site).items():
        for a, body in Page(p.read_text()).scripts:
            if a.get("type") == "application/json":
                assert "<" not in body and ">" not in body and "&" not in body, rel
                json.loads(body)
