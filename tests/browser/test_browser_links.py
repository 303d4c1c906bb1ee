"""Issue 4: no broken internal link. Walk every page reachable from `/` (following internal
hrefs and srcs of HTML pages, plus the sitemap and llms.txt) on the project site and on the
compat-corpus site; every target must answer 200. Plain urllib, no browser."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from urllib.parse import urldefrag, urljoin, urlparse

from browser_kit import SITE_URL

LINK_ATTRS = {
    ("a", "href"),
    ("link", "href"),
    ("script", "src"),
    ("img", "src"),
    ("source", "src"),
    ("iframe", "src"),
    ("form", "action"),
    ("area", "href"),
}


class _Links(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for t, attr in LINK_ATTRS:
            if tag == t and a.get(attr) is not None:
                self.links.append(a[attr])
        if tag == "meta" and a.get("property") == "og:url" and a.get("content"):
            self.links.append(a["content"])


def _fetch(url: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status, resp.headers.get("Content-Type", ""), resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get("Content-Type", ""), b""


def _internal(base: str, page_url: str, href: str) -> str | None:
    """The local URL (path only) of an internal link, None for external ones."""
    href = href.strip()
    if not href or href.startswith(("#", "mailto:", "javascript:", "data:", "tel:")):
        return None
    if href.startswith(SITE_URL):  # absolute URL on the site's configured origin
        href = href[len(SITE_URL) :] or "/"
    elif urlparse(href).scheme or href.startswith("//"):
        return None
    url = urldefrag(urljoin(page_url, href)).url
    parsed = urlparse(url)
    if not url.startswith(base):
        return None
    return base + (parsed.path or "/")  # the query selects picker state; the file is the path


def walk(site) -> tuple[dict[str, int], dict[str, set[str]]]:
    """{url: status} of everything reachable, and {url: pages linking to it}."""
    base = site.url
    seen: dict[str, int] = {}
    referrers: dict[str, set[str]] = {}
    queue = deque([base + "/", base + "/sitemap.xml", base + "/llms.txt", base + "/robots.txt"])
    for u in queue:
        referrers.setdefault(u, set()).add("(start)")
    with ThreadPoolExecutor(8) as pool:
        while queue:
            batch = [queue.popleft() for _ in range(len(queue))]
            batch = [u for u in dict.fromkeys(batch) if u not in seen]
            for url, (status, ctype, body) in zip(batch, pool.map(_fetch, batch)):
                seen[url] = status
                if status != 200:
                    continue
                text = body.decode("utf-8", "replace")
                if "html" in ctype:
                    parser = _Links()
                    parser.feed(text)
                    hrefs = parser.links
                elif url.endswith((".xml", ".txt", ".md")):
                    hrefs = re.findall(r"(?:<loc>|\]\(|Sitemap: )\s*([^<)\s]+)", text)
                else:
                    continue
                for href in hrefs:
                    target = _internal(base, url, href)
                    if target is None:
                        continue
                    referrers.setdefault(target, set()).add(url[len(base) :])
                    if target not in seen:
                        queue.append(target)
    return seen, referrers


def _check(site, minimum_pages: int):
    seen, referrers = walk(site)
    broken = {u: s for u, s in seen.items() if s != 200}
    report = "\n".join(
        f"{s} {u[len(site.url) :]}  <- {', '.join(sorted(referrers.get(u, ()))[:3])}"
        for u, s in sorted(broken.items())
    )
    assert not broken, f"{len(broken)} broken internal links on the {site.name} site:\n{report}"
    pages = [u for u in seen if u.endswith("/")]
    assert len(pages) >= minimum_pages, (
        f"only {len(pages)} pages reached from / on the {site.name} site"
    )
    return seen


def test_project_site_has_no_broken_internal_link(project_site):
    seen = _check(project_site, minimum_pages=7 + 1)
    models = project_site.engine.recipes
    for hf_id in models:
        assert f"{project_site.url}/{hf_id}/" in seen, f"no link leads to the page of {hf_id}"
    assert f"{project_site.url}/hardware/" in seen


def test_compat_site_has_no_broken_internal_link(compat_site):
    seen = _check(compat_site, minimum_pages=100)
    for hf_id in compat_site.engine.recipes:
        assert f"{compat_site.url}/{hf_id}/" in seen, f"no link leads to the page of {hf_id}"
