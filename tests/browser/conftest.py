"""Browser tests of the built site (issue 4): real headless Chromium driven by Playwright.

One session builds the project's own recipes (and the compat corpus, when
`../shared/compat/corpus` exists) into temporary folders with `python -m recipes_site build`,
serves each folder on 127.0.0.1 (a free port, `http.server` in a thread, `404.html` for
missing paths like a static host) and launches one Chromium for every test. Each test gets a
fresh browser context (clipboard permissions granted) and fails on any console error or
uncaught page error. Until the site pages are built (`index.html` present) the tests skip.

Chromium is Debian's `/usr/bin/chromium`; Playwright never downloads a browser here.
Screenshots for review land in `tests/browser/artifacts/` (git-ignored).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from browser_kit import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    COMPAT_CORPUS,
    PROJECT_ROOT,
    PageErrors,
    Site,
    StaticServer,
    new_context,
    run_builds,
)


def _require_pages(site_out: Path) -> None:
    if not (site_out / "index.html").is_file():
        pytest.skip(f"the site pages are not built yet ({site_out}/index.html missing)")


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> dict[str, tuple[Path, Path]]:
    """{name: (recipes root, output folder)} for the project and (if present) the compat corpus.

    RECIPES_SITE_TEST_SITES="project=DIR,compat=DIR" reuses sites built beforehand (debugging)."""
    prebuilt = dict(
        item.split("=", 1)
        for item in os.environ.get("RECIPES_SITE_TEST_SITES", "").split(",")
        if "=" in item
    )
    if prebuilt:
        roots = {"project": PROJECT_ROOT, "compat": COMPAT_CORPUS}
        return {name: (roots[name], Path(out)) for name, out in prebuilt.items()}
    base = tmp_path_factory.mktemp("browser-sites")
    jobs = {"project": (None, base / "project")}
    if (COMPAT_CORPUS / "models").is_dir():
        jobs["compat"] = (COMPAT_CORPUS, base / "compat")
    for name, result in run_builds(jobs).items():
        assert result.returncode == 0, f"build of {name} failed:\n{result.stdout[-4000:]}"
    return {name: (root or PROJECT_ROOT, out) for name, (root, out) in jobs.items()}


@pytest.fixture(scope="session")
def _servers():
    servers: list[StaticServer] = []
    yield servers
    for s in servers:
        s.close()


def _serve(name: str, root: Path, out: Path, servers: list) -> Site:
    server = StaticServer(out)
    servers.append(server)
    return Site(name, out, server.url, root)


@pytest.fixture(scope="session")
def project_site(built, _servers) -> Site:
    root, out = built["project"]
    _require_pages(out)
    return _serve("project", root, out, _servers)


@pytest.fixture(scope="session")
def compat_site(built, _servers) -> Site:
    if "compat" not in built:
        pytest.skip(f"no compat corpus at {COMPAT_CORPUS}")
    root, out = built["compat"]
    _require_pages(out)
    return _serve("compat", root, out, _servers)


@pytest.fixture(scope="session")
def serve_folder(_servers):
    """Serve another built folder: serve_folder(name, recipes_root, out) -> Site."""
    return lambda name, root, out: _serve(name, root, out, _servers)


# -- the browser ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} not installed")
    sync_api = pytest.importorskip("playwright.sync_api")
    pw = sync_api.sync_playwright().start()
    b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield b
    b.close()
    pw.stop()


@pytest.fixture
def page_errors() -> PageErrors:
    return PageErrors()


@pytest.fixture
def context(browser, page_errors):
    ctx = new_context(browser)
    ctx.on("page", page_errors.attach)
    yield ctx
    ctx.close()


@pytest.fixture
def page(context, page_errors):
    p = context.new_page()
    yield p
    # any console error or uncaught exception fails the test that caused it
    assert not page_errors.errors, "errors in the browser:\n" + "\n".join(page_errors.errors)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    ignore = ARTIFACTS / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n")
    return ARTIFACTS
