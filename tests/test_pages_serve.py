"""The preview server: directory indexes, the site's 404 page, content types, and rebuilding when
a recipe changes (a broken recipe keeps the previous site online)."""

from __future__ import annotations

import shutil
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from recipes_site.catalog import PROJECT_ROOT
from recipes_site.serve import make_server, rebuild, watch, watched_state


@pytest.fixture
def served(tmp_path):
    out = _site(
        tmp_path / "site",
        {
            "index.html": "<p>home</p>",
            "404.html": "<p>not here</p>",
            "org/model/index.html": "<p>model</p>",
            "org/model.md": "# model ünïcode",
        },
    )
    for base in _serving(out):
        yield base, out


def _site(out: Path, files: dict[str, str]) -> Path:
    """A small served folder holding `files` (relative path -> text)."""
    for rel, text in files.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text)
    return out


def _serving(out: Path, generation=None):
    """Serve `out` on a free port for the duration of the fixture that iterates this; yields its URL."""
    server = make_server(out, 0, quiet=True, generation=generation)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def fetch(url: str):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def test_directories_serve_their_index(served):
    base, _ = served
    assert fetch(base + "/")[2] == b"<p>home</p>"
    assert fetch(base + "/org/model/")[2] == b"<p>model</p>"
    assert fetch(base + "/org/model")[2] == b"<p>model</p>"  # redirected to the slash form


def test_missing_paths_get_the_site_404_page_with_status_404(served):
    base, _ = served
    status, headers, body = fetch(base + "/no/such/page")
    assert status == 404 and body == b"<p>not here</p>"
    assert headers["Content-Type"] == "text/html; charset=utf-8"


def test_text_formats_are_utf8_and_nothing_is_cached(served):
    base, _ = served
    status, headers, body = fetch(base + "/org/model.md")
    assert status == 200 and headers["Content-Type"] == "text/markdown; charset=utf-8"
    assert body.decode("utf-8") == "# model ünïcode"
    assert headers["Cache-Control"] == "no-cache"


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    for name in ("models", "strategies", "kv_store"):
        shutil.copytree(PROJECT_ROOT / name, root / name)
    shutil.copy(PROJECT_ROOT / "taxonomy.yaml", root / "taxonomy.yaml")
    return root


def test_watched_state_sees_edits_additions_and_removals(tmp_path):
    root = _root(tmp_path)
    before = watched_state(root)
    recipe = root / "models" / "Qwen" / "Qwen3-8B.yaml"
    recipe.write_text(recipe.read_text() + "\n")
    assert watched_state(root) != before
    after_edit = watched_state(root)
    recipe.unlink()
    assert watched_state(root) != after_edit


def _wait(predicate, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_a_change_rebuilds_and_a_broken_recipe_keeps_the_old_site(tmp_path, monkeypatch):
    monkeypatch.setenv("RECIPES_SITE_JOBS", "1")
    root, out = _root(tmp_path), tmp_path / "_site"
    lines: list[str] = []
    log = lines.append
    assert rebuild(root, out, log)
    index = out / "api" / "v1" / "models.json"
    assert "Compact dense Qwen3" in index.read_text()
    stop = threading.Event()
    thread = threading.Thread(
        target=watch,
        args=(root, out, stop, 0.05),
        kwargs={"log": log, "seen": watched_state(root)},
        daemon=True,
    )
    thread.start()
    try:
        recipe = root / "models" / "Qwen" / "Qwen3-8B.yaml"
        recipe.write_text(recipe.read_text().replace("Compact dense Qwen3", "Freshly edited Qwen3"))
        assert _wait(lambda: index.exists() and "Freshly edited Qwen3" in index.read_text())
        recipe.write_text(recipe.read_text().replace("variants:", "varaints:", 1))
        assert _wait(lambda: any("still serving the previous site" in line for line in lines)), (
            lines
        )
        assert "Freshly edited Qwen3" in index.read_text()
        assert any("varaints" in line for line in lines)  # the diagnostics are printed
    finally:
        stop.set()
        thread.join(5)


# -- live reload ------------------------------------------------------------------------------


@pytest.fixture
def reloading(tmp_path):
    from recipes_site.serve import Generation

    out = _site(
        tmp_path / "site",
        {
            "index.html": "<html><body><p>home</p></body></html>",
            "404.html": "<p>not here</p>",
            "org/model/index.html": "<body><p>model</p></body>",
            "data.json": '{"a": "</body>"}',
        },
    )
    generation = Generation()
    for base in _serving(out, generation):
        yield base, out, generation


SCRIPT = b'<script src="/__recipes_site/reload.js" data-generation="%d" defer></script>'


def test_served_pages_carry_the_reload_script_and_the_files_do_not(reloading):
    base, out, generation = reloading
    status, headers, body = fetch(base + "/")
    assert status == 200 and body == b"<html><body><p>home</p>" + SCRIPT % 0 + b"</body></html>"
    assert int(headers["Content-Length"]) == len(body)
    assert fetch(base + "/org/model/")[2] == b"<body><p>model</p>" + SCRIPT % 0 + b"</body>"
    assert fetch(base + "/no/such/page")[:3:2] == (404, b"<p>not here</p>" + SCRIPT % 0)
    assert fetch(base + "/data.json")[2] == b'{"a": "</body>"}'  # only HTML pages get it
    assert (out / "index.html").read_bytes() == b"<html><body><p>home</p></body></html>"
    status, headers, body = fetch(base + "/__recipes_site/reload.js")
    assert (
        status == 200
        and headers["Content-Type"].startswith("text/javascript")
        and b"location.reload()" in body
    )
    generation.bump()
    assert fetch(base + "/__recipes_site/generation")[2] == b"1"
    assert fetch(base + "/")[2].count(SCRIPT % 1) == 1


def test_without_a_generation_the_server_adds_nothing(served):
    base, _ = served
    assert fetch(base + "/")[2] == b"<p>home</p>"
    assert fetch(base + "/__recipes_site/generation")[0] == 404


def test_a_rebuild_by_the_watcher_bumps_the_generation(tmp_path, monkeypatch):
    from recipes_site.serve import Generation

    monkeypatch.setenv("RECIPES_SITE_JOBS", "1")
    root, out = _root(tmp_path), tmp_path / "_site"
    assert rebuild(root, out, lambda line: None)
    generation, stop, lines = Generation(), threading.Event(), []
    thread = threading.Thread(
        target=watch,
        args=(root, out, stop, 0.05),
        kwargs={"log": lines.append, "seen": watched_state(root), "generation": generation},
        daemon=True,
    )
    thread.start()
    try:
        recipe = root / "models" / "Qwen" / "Qwen3-8B.yaml"
        recipe.write_text(recipe.read_text().replace("variants:", "varaints:", 1))
        assert _wait(lambda: any("still serving the previous site" in line for line in lines)), (
            lines
        )
        assert generation.value == 0  # a failed rebuild reloads nothing
        recipe.write_text(
            recipe.read_text()
            .replace("varaints:", "variants:", 1)
            .replace("Compact dense Qwen3", "Freshly edited Qwen3")
        )
        assert _wait(lambda: generation.value == 1), (
            lines
        )  # bumped as soon as the new site is in place
        assert _wait(lambda: any(line.startswith("built ") for line in lines)), lines
        built = [line for line in lines if line.startswith("built ")]
        assert (
            " 0 reused" not in built[-1] and "reused" in built[-1]
        )  # the other recipes came from the cache
    finally:
        stop.set()
        thread.join(5)


def test_the_first_build_and_every_rebuild_print_their_warnings(tmp_path, monkeypatch):
    """A mistyped flag is a warning, not an error: the site builds, and the person editing the
    recipe learns of it from serve's output, on the first build and again after each rebuild."""
    monkeypatch.setenv("RECIPES_SITE_JOBS", "1")
    root, out = _root(tmp_path), tmp_path / "_site"
    recipe = root / "models" / "Qwen" / "Qwen3-8B.yaml"
    text = recipe.read_text()
    assert "  base_args: []" in text
    recipe.write_text(text.replace("  base_args: []", '  base_args: ["--max-num-seqz", "8"]', 1))
    for _ in range(2):  # the first build, then a rebuild
        lines: list[str] = []
        assert rebuild(root, out, lines.append)
        warned = [line for line in lines if "--max-num-seqz" in line]
        assert warned and all("warning" in line for line in warned), lines
        assert "warning" in lines[-2] and lines[-1].startswith("built ")  # the summary, then built
        recipe.write_text(recipe.read_text() + "\n")  # an edit that keeps the warning


# the Chromium test of the reload itself: tests/browser/test_browser_reload.py


def test_a_rebuild_judges_its_diagnostics_once_however_many_warnings(monkeypatch, tmp_path):
    """`result.ok` scans every diagnostic: asked once per warning it made a rebuild of a 1,000-recipe
    corpus copy (6,700 warnings) spend 24 s after the swap, holding up the next rebuild."""
    import recipes_site.build as build_module
    import recipes_site.serve as serve_module
    from recipes_site.catalog.diagnostics import Diagnostic, Level

    scans = []
    real = build_module.errors
    monkeypatch.setattr(
        build_module, "errors", lambda diags: scans.append(len(diags)) or real(diags)
    )
    warning = Diagnostic("models/x.yaml", 1, 1, Level.WARNING, "meta", "a warning")
    result = build_module.BuildResult(diagnostics=[warning] * 500)
    monkeypatch.setattr(serve_module, "build", lambda *a, **k: result)
    logged = []
    assert rebuild(tmp_path, tmp_path / "site", log=logged.append)
    assert scans == [500] and logged[-1].startswith("built 0 recipes")
