"""Issue 13, bounded pages: at 10,000 recipes the home page, the 404 page, the hardware pages and
the hardware API documents stay small, and nothing a user finds there is lost: the search shards
hold every recipe exactly once, the hardware pages together list every model that runs on the
hardware, and walking `next` through the hardware documents yields every entry.

The catalog is synthetic (scale_kit.py: the project's recipes copied under new ids), run through
the real catalog-wide steps; sizes are gzip level 9 of the file plus the CSS and JS it loads."""

from __future__ import annotations

import gzip
import json
import re
from urllib.parse import urlsplit

import jsonschema
import pytest
from scale_kit import HARDWARE, copies, synthetic_site

from recipes_site.render.api import HW_PAGE
from recipes_site.render.pages import HW_PAGE_ITEMS
from recipes_site.render.schemas import schema_for, schema_name_for_path
from recipes_site.render.search import MAX_SHARDS, PAGE_SIZE, bucket_of

N = 10_000
LIMIT = 100 * 1024


@pytest.fixture(scope="module")
def big():
    summaries = copies(N)
    docs, files = synthetic_site(N, summaries)
    return summaries, docs, files


def gz(data: bytes) -> int:
    return len(gzip.compress(data, 9))


def payload(files: dict, page: str) -> int:
    """What a first visit downloads before any interaction: the HTML, the CSS and the JS."""
    return gz(files[page]) + gz(files["static/site.css"]) + gz(files["static/site.js"])


def inline(files: dict, page: str, element_id: str):
    m = re.search(
        rf'<script type="application/json" id="{element_id}">(.*?)</script>', files[page].decode()
    )
    return json.loads(m.group(1))


def fetched(files: dict, url: str):
    return json.loads(files[urlsplit(url).path.lstrip("/")])


def test_the_home_page_stays_under_100_kb_gzip_at_10000_recipes(big):
    _s, _d, files = big
    assert payload(files, "index.html") < LIMIT
    assert files["index.html"].count(b"data-recipe-row") == PAGE_SIZE
    assert "10,000 models" in files["index.html"].decode()


def test_the_search_shards_hold_every_recipe_once_in_name_order(big):
    summaries, _d, files = big
    data = inline(files, "index.html", "browse-data")
    assert data["total"] == N and 1 < len(data["shards"]) <= MAX_SHARDS
    assert (
        data["shard_size"] % data["page_size"] == 0
    )  # a page of the unfiltered list is in one shard
    ids, starts = [], []
    for url in data["shards"]:
        doc = fetched(files, url)
        starts.append(doc["start"])
        assert len(doc["records"]) <= data["shard_size"]
        ids += [dict(zip(doc["fields"], r))["id"] for r in doc["records"]]
        jsonschema.validate(doc, schema_for(schema_name_for_path(urlsplit(url).path.lstrip("/"))))
    assert sorted(ids) == sorted(s.hf_id for s in summaries) and len(ids) == len(set(ids)) == N
    assert starts == [k * data["shard_size"] for k in range(len(starts))]
    rows = re.findall(r'data-recipe-row data-id="([^"]+)"', files["index.html"].decode())
    assert rows == ids[:PAGE_SIZE]


def test_the_404_page_inlines_no_index_and_its_buckets_find_every_id(big):
    summaries, _d, files = big
    assert payload(files, "404.html") < LIMIT and gz(files["404.html"]) < 4 * 1024
    data = inline(files, "404.html", "nf-data")
    buckets = [fetched(files, u)["ids"] for u in data["ids"]]
    assert max(len(b) for b in buckets) < 1000
    for s in summaries[::97]:
        assert (
            buckets[bucket_of(s.hf_id.upper().lower(), len(buckets))][s.hf_id.lower()]
            == f"/{s.hf_id}/"
        )
    assert data["shards"] == inline(files, "index.html", "browse-data")["shards"]


def test_hardware_pages_are_bounded_and_together_list_every_model(big):
    summaries, _d, files = big
    for hw in HARDWARE:
        pages = sorted(
            (k for k in files if re.fullmatch(rf"hardware/{hw}/(page/\d+/)?index\.html", k)),
            key=lambda k: int(re.search(r"page/(\d+)/", k).group(1)) if "page/" in k else 1,
        )
        listed = []
        for k in pages:
            assert payload(files, k) < LIMIT, k
            items = re.findall(r'data-hw-model="([^"]+)"', files[k].decode())
            assert 0 < len(items) <= HW_PAGE_ITEMS
            listed += items
        want = {s.hf_id for s in summaries if s.hardware_entries.get(hw)}
        assert len(listed) == len(set(listed)) and set(listed) == want, hw
        assert len(pages) == -(-len(want) // HW_PAGE_ITEMS)
        if len(pages) > 1:  # each page links the next one
            assert (
                f'href="/hardware/{hw}/page/2/" rel="next"'
                in files[f"hardware/{hw}/index.html"].decode()
            )


def test_hardware_documents_are_pages_a_consumer_walks_with_next(big):
    summaries, docs, _f = big
    schema = schema_for("hardware")
    for hw in HARDWARE:
        want = [e for s in summaries for e in s.hardware_entries.get(hw, [])]
        path, got, page = f"api/v1/hardware/{hw}.json", [], 1
        while path:
            doc = docs[path]
            jsonschema.validate(doc, schema)
            assert schema_name_for_path(path) == "hardware"
            assert (
                doc["page"] == page and doc["total"] == len(want) and len(doc["models"]) <= HW_PAGE
            )
            assert len(json.dumps(doc)) < 1024 * 1024
            got += doc["models"]
            path, page = (doc["next"] or "/")[1:], page + 1
        assert got == want and page - 1 == docs[f"api/v1/hardware/{hw}.json"]["pages"] > 1


def test_the_provider_facet_keeps_the_largest_providers():
    from recipes_site.render.search import PROVIDER_CHIPS, browse_index

    models = [
        {"id": f"org{k}/m{j}", "title": f"M{k}-{j}", "provider": f"P{k:03d}", "hardware": []}
        for k in range(100)
        for j in range(1 + k % 5)
    ]
    index = browse_index(models, {}, {})
    chips = index["facets"]["provider"]
    assert len(chips) == PROVIDER_CHIPS and index["more_providers"] == 100 - PROVIDER_CHIPS
    counts = {f"P{k:03d}": 1 + k % 5 for k in range(100)}
    largest = sorted(counts, key=lambda p: (-counts[p], p))[:PROVIDER_CHIPS]
    assert [(v, n) for v, _l, n in chips] == [
        (p, counts[p]) for p in sorted(largest)
    ]  # shown by name


def test_the_bounded_pages_are_deterministic():
    first = synthetic_site(1_200)[1]
    again = synthetic_site(1_200)[1]
    assert first == again
