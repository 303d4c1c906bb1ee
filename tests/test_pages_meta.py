"""What crawlers and link previews read: sitemap.xml in every build (absolute URLs only when the
site knows its address), Open Graph and Twitter card tags on every HTML page. Pages carry
`twitter:card` and no `twitter:title`/`twitter:description`: X reads og:title and og:description
when those are absent (https://developer.x.com/en/docs/x-for-websites/cards/guides/getting-started),
so repeating them would only add bytes to every page."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

from recipes_site.build import build
from recipes_site.catalog import PROJECT_ROOT

SITE_URL = "https://recipes.meta.test"
NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}


class Head(HTMLParser):
    """The <meta> and canonical <link> of one page."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.meta: dict[str, str] = {}
        self.canonical: str | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "meta" and (key := a.get("property") or a.get("name")):
            self.meta[key] = a.get("content") or ""
        if tag == "link" and a.get("rel") == "canonical":
            self.canonical = a.get("href")


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> Path:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RECIPES_SITE_URL", SITE_URL)
        out = tmp_path_factory.mktemp("meta") / "_site"
        assert build(PROJECT_ROOT, out).ok
    return out


def _pages(out: Path) -> list[Path]:
    return sorted(p for p in out.rglob("*.html") if "api" not in p.relative_to(out).parts)


def _locs(out: Path) -> list[str]:
    root = ET.fromstring((out / "sitemap.xml").read_bytes())
    return [u.find("s:loc", NS).text for u in root.findall("s:url", NS)]  # type: ignore[union-attr]


def test_a_preview_build_writes_a_sitemap_of_site_paths_that_says_so(project_site):
    out, _ = project_site
    text = (out / "sitemap.xml").read_text()
    assert "Local preview" in text and "base_url" in text
    locs = _locs(out)
    assert locs[0] == "/" and len(locs) == len(set(locs)) > 10
    for loc in locs:  # every path is a page of this build
        assert loc.startswith("/") and (out / loc.lstrip("/") / "index.html").is_file(), loc
    assert "Sitemap:" not in (out / "robots.txt").read_text()


def test_a_published_build_writes_absolute_urls_and_names_the_sitemap(published):
    locs = _locs(published)
    assert locs and all(loc.startswith(SITE_URL + "/") for loc in locs)
    assert "Local preview" not in (published / "sitemap.xml").read_text()
    assert f"Sitemap: {SITE_URL}/sitemap.xml" in (published / "robots.txt").read_text()


@pytest.mark.parametrize("which", ["preview", "published"])
def test_every_page_has_open_graph_and_twitter_tags(which, project_site, published):
    out = project_site[0] if which == "preview" else published
    pages = _pages(out)
    assert len(pages) > 50
    for p in pages:
        head = Head(p.read_text(encoding="utf-8"))
        meta, rel = head.meta, p.relative_to(out)
        for key in ("og:title", "og:description", "og:site_name", "og:type", "twitter:card"):
            assert meta.get(key, "").strip(), (rel, key)
        assert meta["og:type"] in ("website", "article"), rel
        if which == "published" and rel.name != "404.html":  # 404 is served at any address
            assert meta.get("og:url") == head.canonical and head.canonical.startswith(SITE_URL)
        else:
            assert "og:url" not in meta, rel


def test_model_pages_are_articles_named_after_the_model(published):
    head = Head((published / "Qwen/Qwen3-8B/index.html").read_text())
    assert head.meta["og:type"] == "article"
    assert "Qwen3" in head.meta["og:title"]
    assert head.meta["og:url"] == f"{SITE_URL}/Qwen/Qwen3-8B/"
