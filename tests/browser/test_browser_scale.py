"""Issue 13, bounded pages, in Chromium on a synthetic 1,200-recipe site (tests/scale_kit.py: the
project's recipes copied under new ids, through the real catalog-wide pages; 24 result pages,
12 search shards of 100). The first screen fetches no shard; search finds a recipe that lives in
the last shard; paging in name order fetches only the page's shard; filters and pages live in the
URL and come back on reload and Back; the hardware pages, walked by their Next links, list every
model; the 404 page fixes a letter case from one id bucket and suggests from the shards."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlparse, urlsplit

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/scale_kit.py
from scale_kit import synthetic_site  # noqa: E402

N = 1_200
ROWS = """() => [...document.querySelectorAll('[data-recipe-row]')].filter(r => !r.hidden).map(r => r.dataset.id)"""


@pytest.fixture(scope="module")
def big_site(tmp_path_factory, serve_folder):
    out = tmp_path_factory.mktemp("scale") / "_site"
    docs, files = synthetic_site(N)
    for rel, data in files.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(data)
    for rel, doc in docs.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(json.dumps(doc))
    return serve_folder("scale", Path("."), out)


@pytest.fixture(scope="module")
def records(big_site) -> list[dict]:
    """Every record in name order, as the shards hold them."""
    text = (big_site.out / "index.html").read_text()
    manifest = json.loads(re.search(r'id="browse-data">(.*?)</script>', text).group(1))
    out = []
    for url in manifest["shards"]:
        doc = json.loads((big_site.out / urlsplit(url).path.lstrip("/")).read_text())
        out += [dict(zip(doc["fields"], r)) for r in doc["records"]]
    assert len(out) == N and len(manifest["shards"]) == 12
    return out


def shard_requests(page) -> list[str]:
    seen: list[str] = []
    page.on(
        "request",
        lambda r: seen.append(urlsplit(r.url).path) if "/api/v1/search/" in r.url else None,
    )
    return seen


def rows(page) -> list[str]:
    return page.evaluate(ROWS)


def wait_rows(page, want: list[str]) -> None:
    page.wait_for_function(
        f"want => JSON.stringify(({ROWS})()) === JSON.stringify(want)", arg=want, timeout=10000
    )


def query(page) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}


def test_the_first_screen_fetches_no_shard(page, big_site, records):
    seen = shard_requests(page)
    page.goto(big_site("/"))
    page.wait_for_load_state("networkidle")
    assert rows(page) == [r["id"] for r in records[:50]]
    assert page.locator("[data-result-count]").inner_text() == "Showing 1–50 of 1,200 recipes"
    assert seen == []


def test_search_finds_a_recipe_in_the_last_shard_and_the_url_restores_it(page, big_site, records):
    k, target = next(
        (k, r) for k, r in reversed(list(enumerate(records))) if re.search(r"-s\d{4}$", r["id"])
    )
    assert k >= 1_100  # name order: in the last shard
    word = target["id"].rsplit("-", 1)[1]  # "s<k>" of four digits: no other id holds it
    page.goto(big_site("/"))
    page.locator("[data-search]").fill(word)
    wait_rows(page, [target["id"]])
    assert query(page) == {"q": word}
    assert (
        page.locator(f'[data-recipe-row][data-id="{target["id"]}"] a').get_attribute("href")
        == f"/{target['id']}/"
    )
    page.reload()
    wait_rows(page, [target["id"]])
    assert page.locator("[data-search]").input_value() == word


def test_pages_in_name_order_fetch_only_their_shard(page, big_site, records):
    seen = shard_requests(page)
    page.goto(big_site("/"))
    page.locator("[data-pager] a[rel=next]").click()
    wait_rows(page, [r["id"] for r in records[50:100]])
    assert query(page) == {"page": "2"} and seen == ["/api/v1/search/0.json"]
    assert "Showing 51–100 of 1,200 recipes" == page.locator("[data-result-count]").inner_text()
    page.goto(big_site("/?page=13"))
    wait_rows(page, [r["id"] for r in records[600:650]])
    assert seen[-1] == "/api/v1/search/6.json" and len(seen) == 2
    assert page.locator("[data-pager] [aria-current=page]").inner_text() == "13"
    page.go_back()
    wait_rows(page, [r["id"] for r in records[50:100]])


def test_a_filter_and_a_page_come_back_from_the_url_and_back_button(page, big_site, records):
    want = [r["id"] for r in records if "rtx_5090" in r["hardware"]]
    assert len(want) > 100
    page.goto(big_site("/?hardware=rtx_5090&page=2"))
    wait_rows(page, want[50:100])
    assert page.locator("input[data-facet=hardware][value=rtx_5090]").is_checked()
    assert (
        page.locator("[data-result-count]").inner_text()
        == f"Showing 51–100 of {len(want):,} matching recipes"
    )
    page.locator("[data-pager] a[rel=next]").click()
    wait_rows(page, want[100:150])
    assert query(page) == {"hardware": "rtx_5090", "page": "3"}
    page.go_back()
    wait_rows(page, want[50:100])
    page.locator("[data-clear-filters]").click()  # clearing starts again at page 1
    wait_rows(page, [r["id"] for r in records[:50]])
    assert query(page) == {}


def test_rows_drawn_by_the_script_match_the_server_rendered_ones(page, big_site, records):
    page.goto(big_site("/"))
    server = page.locator("[data-rows]").inner_text()
    page.locator("[data-search]").fill(
        "s"
    )  # every id ends in -s<k>: all match, best-first ties keep name order
    page.wait_for_function(
        "() => document.querySelector('[data-result-count]').innerText.includes('matching')"
    )
    wait_rows(page, [r["id"] for r in records[:50]])
    assert page.locator("[data-rows]").inner_text() == server


def test_the_hardware_pages_walked_by_next_list_every_model(page, big_site):
    docs_dir = big_site.out / "api/v1/hardware"
    want, path = set(), "h100.json"
    while path:
        doc = json.loads((docs_dir / path).read_text())
        want |= {m["recipe"] for m in doc["models"]}
        path = doc["next"] and doc["next"].split("/api/v1/hardware/", 1)[1]
    page.goto(big_site("/hardware/h100/"))
    seen, pages = [], 0
    while True:
        pages += 1
        seen += page.evaluate(
            "() => [...document.querySelectorAll('[data-hw-model]')].map(e => e.dataset.hwModel)"
        )
        nxt = page.locator("nav.pager a[rel=next]").first
        if nxt.count() == 0:
            break
        nxt.click()
        page.wait_for_url(re.compile(rf"/hardware/h100/page/{pages + 1}/$"))
    assert pages > 1 and len(seen) == len(set(seen)) and set(seen) == want
    assert (
        page.locator("a", has_text="Search and filter them").get_attribute("href")
        == "/?hardware=h100"
    )


def test_the_404_page_fixes_the_case_and_suggests_from_the_shards(
    page, big_site, records, page_errors
):
    page_errors.allowed.append(r"status of 404")
    target = records[-2]["id"]
    page.goto(big_site("/" + target.upper() + "/"))
    page.wait_for_url(re.compile(re.escape("/" + target + "/") + "$"))
    org, repo = target.split("/")
    page.goto(big_site(f"/no-such-org/{repo}/"))
    link = page.locator("[data-nf-suggest]:not([hidden]) [data-nf-list] a").first
    link.wait_for(timeout=10000)
    assert link.get_attribute("href") == f"/{target}/"
    assert page.locator("[data-nf-id]").inner_text() == f"no-such-org/{repo}"
