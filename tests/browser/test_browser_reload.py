"""`recipes-site serve` live reload in Chromium: an open page reloads itself after a rebuild."""

from __future__ import annotations

import threading

import pytest

from recipes_site.serve import Generation, make_server

HEAD = (
    '<head><link rel="icon" href="data:,"></head>'  # no favicon request (a 404 is a console error)
)


@pytest.fixture
def reloading(tmp_path):
    out = tmp_path / "site"
    (out / "org" / "model").mkdir(parents=True)
    (out / "404.html").write_text("<p>not here</p>")
    (out / "org" / "model" / "index.html").write_text(HEAD + "<body><p>model</p></body>")
    generation = Generation()
    server = make_server(out, 0, quiet=True, generation=generation)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", out, generation
    server.shutdown()
    server.server_close()


def test_an_open_page_reloads_after_a_rebuild(reloading, page):
    base, out, generation = reloading
    page.goto(base + "/org/model/")
    assert page.text_content("p") == "model"
    (out / "org" / "model" / "index.html").write_text(HEAD + "<body><p>rebuilt</p></body>")
    page.wait_for_timeout(1200)
    assert page.text_content("p") == "model"  # no rebuild yet: no reload
    generation.bump()
    page.wait_for_function("document.querySelector('p').textContent === 'rebuilt'", timeout=15000)
