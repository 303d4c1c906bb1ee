"""A site published under a path (a GitHub Pages project site, https://<owner>.github.io/<repo>):
every link of every page, text file and API document stays under that path and leads to a file
of the output; a build at the root of a host carries no trace of a prefix (site_root.py)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from browser_paths import BASE_URL, PREFIX, RECIPES, build_prefixed

from recipes_site.build import build
from recipes_site.site_config import SiteConfig, check_base_url, overridden
from recipes_site.site_root import root_of, served_under, site_path, url


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return build_prefixed(tmp_path_factory.mktemp("prefixed"))


class _Links(HTMLParser):
    """href/src/action attributes, meta refresh targets and inline JSON strings of one page."""

    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.json: list[str] = []
        self._in_json = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.links += [a[k] for k in ("href", "src", "action") if a.get(k) is not None]
        if tag == "meta" and (a.get("http-equiv") or "").lower() == "refresh":
            self.links.append(a["content"].split("url=", 1)[1])
        if tag == "meta" and a.get("name") == "site-root":
            self.links.append(a["content"])
        self._in_json = tag == "script" and a.get("type") == "application/json"

    def handle_data(self, data):
        if self._in_json:
            self.json.append(data)
            self._in_json = False


def _strings(doc):
    if isinstance(doc, str):
        yield doc
    elif isinstance(doc, dict):
        for v in doc.values():
            yield from _strings(v)
    elif isinstance(doc, list):
        for v in doc:
            yield from _strings(v)


def _site_link(link: str) -> str | None:
    """The site path of a link that must be under the prefix; None for external or fragment links."""
    if (
        link.startswith(("#", "data:", "mailto:"))
        or link.startswith(("https://", "http://"))
        and not link.startswith("https://example.org")
    ):
        return None
    if link.startswith("https://example.org"):
        assert link.startswith(BASE_URL + "/"), (
            f"{link} is on the host but not under the site's path"
        )
        return link[len(BASE_URL) :]
    assert link.startswith(PREFIX), f"{link!r} is not under {PREFIX}"
    return "/" + link[len(PREFIX) :]


def _resolves(out: Path, path: str) -> bool:
    p = unquote(urlsplit(path).path).lstrip("/")
    target = out / p
    return (target / "index.html").is_file() if (not p or p.endswith("/")) else target.is_file()


def _check(out: Path, where: str, links, problems: list) -> int:
    n = 0
    for link in links:
        try:
            path = _site_link(link)
        except AssertionError as e:
            problems.append(f"{where}: {e}")
            continue
        if path is not None:
            n += 1
            if not _resolves(out, path):
                problems.append(f"{where}: {link} leads to no file of the output")
    return n


def test_every_link_of_every_page_is_under_the_path_and_leads_to_a_file(site):
    problems, checked = [], 0
    for page in sorted(site.rglob("*.html")):
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        inline = [
            s
            for doc in parser.json
            for s in _strings(json.loads(doc))
            if s.startswith("/") and "{hw}" not in s
        ]  # the picker's api_url template
        checked += _check(site, str(page.relative_to(site)), parser.links + inline, problems)
    assert not problems, "\n".join(problems[:30])
    assert checked > 400  # the walker saw the pages' links (not a vacuous pass)
    redirect = site / "RedHatAI/Llama-3.3-70B-Instruct-quantized.w8a8/index.html"
    assert "url=/recipes/meta-llama/Llama-3.3-70B-Instruct/" in redirect.read_text()


def test_sitemap_llms_txt_and_robots_are_under_the_path(site):
    problems = []
    locs = re.findall(r"<loc>([^<]+)</loc>", (site / "sitemap.xml").read_text())
    assert len(locs) > len(RECIPES) and _check(site, "sitemap.xml", locs, problems) == len(locs)
    llms = (site / "llms.txt").read_text()
    links = re.findall(r"\]\(([^)]+)\)", llms)
    assert (
        _check(site, "llms.txt", links, problems)
        == len([k for k in links if "git.example.org" not in k])
        > len(RECIPES)
    )
    assert "`/recipes/api/v1/models/<org>/<repo>.json`" in llms
    robots = (site / "robots.txt").read_text()
    assert _check(site, "robots.txt", re.findall(r"Sitemap: (\S+)", robots), problems) == 1
    for md in site.rglob("*.md"):
        _check(
            site,
            str(md.relative_to(site)),
            re.findall(r"\]\(([^)#][^)]*)\)", md.read_text()),
            problems,
        )
    assert not problems, "\n".join(problems[:30])


def test_every_site_link_of_the_api_documents_is_under_the_path(site):
    problems, checked = [], 0
    for doc in sorted((site / "api").rglob("*.json")):
        where = str(doc.relative_to(site))
        data = json.loads(doc.read_text(encoding="utf-8"))
        links = [
            s
            for s in _strings(data)
            if s.startswith(("/api/", "/static/", PREFIX, "https://example.org"))
            or re.fullmatch(r"/[\w.-]+/[\w.-]+/", s)
        ]
        checked += _check(site, where, links, problems)
        if "schema" in where:
            assert data["$id"].startswith(BASE_URL + "/api/v1/schema/"), where
    assert not problems, "\n".join(problems[:30])
    assert checked > 100
    models = json.loads((site / "api/v1/models.json").read_text())["models"]
    assert models[0]["links"]["page"] == f"{PREFIX}{models[0]['id']}/"


def test_paged_hardware_documents_are_walked_under_the_path():
    """`next` links are under the root; the walker (hardware_entries_of) strips it again."""
    from recipes_site.render.api import HW_PAGE, hardware_entries_of, hardware_pages

    with served_under("/recipes/"):
        docs = hardware_pages("h100", {}, [{"recipe": f"o/m{i}"} for i in range(HW_PAGE + 3)])
        assert (
            docs["api/v1/hardware/h100.json"]["next"] == "/recipes/api/v1/hardware/h100/page-2.json"
        )
        assert len(hardware_entries_of(docs, "h100")) == HW_PAGE + 3


def test_the_root_is_read_from_the_base_url_and_url_puts_paths_under_it():
    assert check_base_url("https://acme.github.io/recipes") is None
    assert check_base_url("https://acme.github.io/recipes/") is None
    assert SiteConfig(site_url="https://acme.github.io/recipes").root == "/recipes/"
    assert SiteConfig(site_url="https://recipes.example.org").root == SiteConfig().root == "/"
    assert root_of("https://x.org/a/b/") == "/a/b/"
    assert url("/x/") == "/x/" and url("https://h/") == "https://h/"
    with served_under("/recipes/"):
        assert url("/x/") == "/recipes/x/" and url("#top") == "#top" and url("//evil/") == "//evil/"
        assert site_path("/recipes/x/") == "/x/"
    assert url("/x/") == "/x/"  # the previous root is back


def test_a_build_at_the_root_of_a_host_has_no_prefix(tmp_path):
    from browser_paths import recipes_root

    root = recipes_root(tmp_path / "root")
    with overridden(base_url="https://example.org"):
        assert build(root, tmp_path / "out").ok
    home = (tmp_path / "out" / "index.html").read_text()
    assert 'name="site-root"' not in home and 'href="/hardware/"' in home
    assert "/recipes/" not in (tmp_path / "out" / "api/v1/models.json").read_text()


def test_a_prefixed_build_is_deterministic(site, tmp_path):
    again = build_prefixed(tmp_path)
    files = sorted(p.relative_to(site) for p in site.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(again) for p in again.rglob("*") if p.is_file())
    assert [f for f in files if (site / f).read_bytes() != (again / f).read_bytes()] == []
