"""The site published under a path (https://example.org/recipes, a GitHub Pages project site),
served by a host that has nothing outside /recipes/: the home page's search (it fetches the
search shards), a model page's picker and copy, and the 404 page's case fix and suggestions
work, and no request fails (every fetch the script makes stays under the path)."""

from __future__ import annotations

import functools
import re
import sys
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from browser_kit import Picker, Site, _Handler

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from browser_paths import PREFIX, build_prefixed  # noqa: E402


class _PrefixHandler(_Handler):
    """/recipes/<path> is <folder>/<path> (404.html when missing, like GitHub Pages); anything
    outside /recipes/ is a bare 404: a link or fetch that escapes the path fails the test."""

    def translate_path(self, path):
        parts = urlsplit(path)
        if not parts.path.startswith(PREFIX):
            return str(Path(self.directory) / ".outside-the-site")  # never exists
        return super().translate_path(parts.path[len(PREFIX) - 1 :])

    def send_error(self, code, message=None, explain=None):
        if not urlsplit(self.path).path.startswith(PREFIX):
            return super(_Handler, self).send_error(code, message, explain)
        return super().send_error(code, message, explain)


@pytest.fixture(scope="module")
def prefixed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("prefixed-browser")
    out = build_prefixed(tmp)
    httpd = ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_PrefixHandler, directory=str(out))
    )
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, name="prefixed site", daemon=True)
    thread.start()
    yield Site(
        "prefixed", out, f"http://127.0.0.1:{httpd.server_address[1]}{PREFIX[:-1]}", tmp / "root"
    )
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def failures(page):
    """Every request that failed or answered 400+, except the documents a test opens on purpose."""
    seen: list[str] = []
    page.on("requestfailed", lambda r: seen.append(f"failed: {r.url}"))
    page.on("response", lambda r: seen.append(f"{r.status}: {r.url}") if r.status >= 400 else None)
    return seen


def _paths(page) -> list[str]:
    out: list[str] = []
    page.on("request", lambda r: out.append(urlsplit(r.url).path))
    return out


def test_home_search_fetches_the_shards_under_the_path(page, prefixed, failures):
    requested = _paths(page)
    page.goto(prefixed("/"))
    assert (
        page.locator("[data-rows] [data-recipe-row]").count() == 3
        and "/recipes/api/v1/search/0.json" not in requested
    )
    page.locator("[data-search]").fill("bge")
    # the rows the script draws from the shard (the first screen's three were the server's)
    page.wait_for_function(
        "() => document.querySelectorAll('[data-rows] [data-recipe-row]').length === 1",
        timeout=10000,
    )
    row = page.locator('[data-rows] a[href="/recipes/BAAI/bge-m3/"]')
    assert "/recipes/api/v1/search/0.json" in requested
    row.click()
    page.wait_for_url(re.compile(r"/recipes/BAAI/bge-m3/$"))
    page.locator("nav[aria-label=Site] a", has_text="Hardware").click()
    page.wait_for_url(re.compile(r"/recipes/hardware/$"))
    assert all(p.startswith(PREFIX) for p in requested), requested
    assert failures == []


def test_model_page_picker_and_copy_under_the_path(page, prefixed, failures):
    requested = _paths(page)
    p = Picker(page, prefixed, "meta-llama/Llama-3.3-70B-Instruct").open()
    other = next(
        v for v, checked, disabled in p.options("hardware") if not checked and not disabled
    )
    s = p.choose("hardware", other)  # fetches the hardware document; checked against the engine
    assert f"/recipes/api/v1/models/meta-llama/Llama-3.3-70B-Instruct/hw/{other}.json" in requested
    page.evaluate("() => navigator.clipboard.writeText('')")
    page.locator("[data-command-card] button[data-copy]").click()
    page.wait_for_function(
        "() => /Copied/.test(document.querySelector('[data-copy-status]').textContent)",
        timeout=3000,
    )
    assert page.evaluate("() => navigator.clipboard.readText()") == s.command
    assert all(p.startswith(PREFIX) for p in requested), requested
    assert failures == []


def test_404_page_fixes_the_case_and_suggests_under_the_path(page, prefixed, failures, page_errors):
    page_errors.allowed.append(r"status of 404")
    page.goto(prefixed("/qwen/qwen3-8b/"))
    page.wait_for_url(re.compile(r"/recipes/Qwen/Qwen3-8B/$"))
    page.goto(prefixed("/no-such-org/Llama-3.3-70B-Instruct-Turbo/"))
    link = page.locator("[data-nf-suggest]:not([hidden]) [data-nf-list] a").first
    link.wait_for(timeout=10000)
    hrefs = page.eval_on_selector_all(
        "[data-nf-list] a", "els => els.map(e => e.getAttribute('href'))"
    )
    assert "/recipes/meta-llama/Llama-3.3-70B-Instruct/" in hrefs and all(
        h.startswith(PREFIX) for h in hrefs
    ), hrefs
    assert page.locator("[data-nf-id]").inner_text() == "no-such-org/Llama-3.3-70B-Instruct-Turbo"
    link.click()  # a recipe, or a checkpoint's redirect page that leads on to its recipe
    page.wait_for_url(
        re.compile(r"/recipes/meta-llama/Llama-3.3-70B-Instruct/(\?variant=[\w.-]+)?$")
    )
    # the two documents opened on purpose are the only failures
    assert [
        f
        for f in failures
        if not re.search(r"^404: .*/recipes/(qwen/qwen3-8b|no-such-org/.*)/$", f)
    ] == []
    assert len(failures) == 2


def test_header_dropdown_and_more_options_stay_under_the_path(page, prefixed, failures):
    """Issue 27: the header dropdown (static/search.js, search/header.json, the shards) and the
    model page's "More options" row (static/more.js, picker-options.json) under the path."""
    requested = _paths(page)
    page.goto(prefixed("/hardware/"))
    box = page.locator("input[data-site-search]")
    box.focus()
    page.wait_for_selector("#ss-list:not([hidden]) [role=option]")
    assert "/recipes/api/v1/search/header.json" in requested
    hrefs = page.eval_on_selector_all(
        "#ss-list [role=option]", "els => els.map(e => e.dataset.href)"
    )
    assert hrefs and all(h.startswith(PREFIX) for h in hrefs), hrefs
    box.fill("bge")
    page.wait_for_function(
        "[...document.querySelectorAll('#ss-list [role=option]')]"
        ".some(e => e.dataset.href === '/recipes/BAAI/bge-m3/')"
    )
    # the search shards the typing asked for: loaded, not cut off by the next navigation
    page.wait_for_load_state("networkidle")
    page.goto(prefixed("/BAAI/bge-m3/"))
    page.locator("[data-more] > summary").click()
    page.wait_for_selector("[data-more] [data-axis=kvo] [role=radio]")
    assert "/recipes/api/v1/picker-options.json" in requested
    assert all(p.startswith(PREFIX) for p in requested), requested
    assert failures == []
