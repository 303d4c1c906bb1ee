"""The header search dropdown's document (search.py `header_doc`): the latest recipes by
meta.date_added, providers by count with their organisation ids, tasks, shard URLs."""

from __future__ import annotations

import json

from recipes_site.render.search import HEADER_DOC, browse_index, header_doc, latest_records


def _model(i: str, added: str | None, provider: str = "Acme", **kw) -> dict:
    return {"id": f"acme/{i}", "title": i, "provider": provider, "date_added": added, **kw}


def test_latest_is_newest_added_first_and_undated_last():
    models = [
        _model("old", "2024-01-01"),
        _model("new", "2026-05-01"),
        _model("none", None),
        _model("mid", "2025-03-01", date_updated="2026-12-01"),
    ]
    records = browse_index(models, {}, {})["records"]
    assert [r["id"] for r in latest_records(records, 3)] == ["acme/new", "acme/mid", "acme/old"]
    assert latest_records(records, 10)[-1]["id"] == "acme/none"


def test_ties_break_on_the_last_update_then_the_id():
    models = [
        _model(n, "2026-01-01", date_updated=u) for n, u in (("b", "1"), ("a", "1"), ("c", "2"))
    ]
    records = browse_index(models, {}, {})["records"]
    assert [r["id"] for r in latest_records(records)] == ["acme/c", "acme/b", "acme/a"]


def test_the_document_names_providers_by_org_and_tasks_by_label():
    models = [
        _model("x", "2026-01-01", tasks=["text"], parameter_count="8B", architecture="dense"),
        _model("y", "2026-02-01", tasks=["text", "embedding"]),
    ]
    browse = browse_index(
        models, {"h100": "H100"}, {"tasks": [{"id": "text", "display_name": "Text"}]}
    )
    doc = header_doc(
        browse,
        ["/s0.json"],
        {"h100": "H100"},
        {"text": "Text"},
        [("acme", "Acme AI", 2), ("zed", "Zed", 5)],
    )
    assert doc["total"] == 2 and doc["shards"] == ["/s0.json"]
    assert doc["latest"][0] == {"id": "acme/y", "title": "y", "sub": "Acme · 2026-02-01"}
    assert doc["latest"][1]["sub"] == "Acme · 8B · Dense · 2026-01-01"
    assert doc["providers"] == [["zed", "Zed", 5], ["acme", "Acme AI", 2]]
    assert doc["tasks"][0] == ["text", "Text", 2]
    json.dumps(doc)  # plain JSON


def test_the_built_site_serves_it_at_a_fixed_address_every_page_names(project_site):
    out, _ = project_site
    doc = json.loads((out / "api/v1/search/header.json").read_text())
    models = json.loads((out / "api/v1/models.json").read_text())["models"]
    newest = max(m.get("date_added") or "" for m in models)
    assert doc["latest"] and all(
        next(m for m in models if m["id"] == r["id"]).get("date_added") == newest
        for r in doc["latest"][:1]
    )
    for org, _name, n in doc["providers"]:
        assert (out / org / "index.html").is_file()
        assert n == sum(m["id"].split("/")[0] == org for m in models)
    for url in doc["shards"]:
        assert (out / url.split("?")[0].lstrip("/")).is_file()
    page = (out / "Qwen/Qwen3-8B/index.html").read_text()
    assert 'role="combobox"' in page and 'aria-controls="ss-list"' in page
    # search.js fetches HEADER_DOC under the site root (the form's action)
    assert f'root + "{HEADER_DOC}"' in (out / "static/search.js").read_text()
