"""Issue 10, "dev server": the preview server must not serve anything outside its folder, whether
through a symlink planted in the output (a file, a folder, a folder's index.html, the 404 page)
or through `..` in the URL, and a rebuild must never make it answer 404. Each case is a real
request to a real server on 127.0.0.1 serving a real build."""

from __future__ import annotations

import http.client
import socket
import threading
import urllib.parse
from pathlib import Path

import pytest
from fault_kit import small_root

from recipes_site.serve import Generation, make_server, rebuild

SECRET = b"root:x:0:0:this must never be served"


def _serve(folder: Path):
    server = make_server(folder, 0, quiet=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def get(server, path: str) -> tuple[int, bytes]:
    """One GET with `path` sent exactly as given (no client-side normalisation of `..`)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """A built site with symlinks pointing out of it, next to a secret file and folder."""
    base = tmp_path_factory.mktemp("serve")
    root, out = small_root(base), base / "site"
    assert rebuild(root, out, log=lambda line: None)
    (base / "secret.txt").write_bytes(SECRET)
    (base / "private").mkdir()
    (base / "private" / "key").write_bytes(SECRET)
    (out / "leak.txt").symlink_to(base / "secret.txt")
    (out / "leakdir").symlink_to(base / "private")
    (out / "trap").mkdir()
    (out / "trap" / "index.html").symlink_to(base / "secret.txt")
    (out / "inside.html").symlink_to(out / "index.html")  # a link that stays inside is fine
    (out / "404.html").unlink()
    (out / "404.html").symlink_to(base / "secret.txt")
    server = _serve(out)
    yield server, out
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize(
    "path",
    [
        "/leak.txt",
        "/leakdir/key",
        "/leakdir/",
        "/trap/",
        "/trap/index.html",
        "/trap",
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/acme/../../secret.txt",
        "/acme/%2E%2E/%2E%2E/private/key",
        "/..%2fsecret.txt",
        "//../secret.txt",
        "/no/such/page",
    ],
)
def test_nothing_outside_the_output_is_served(planted, path):
    server, _ = planted
    status, body = get(server, path)
    assert status in (301, 403, 404), (status, body[:80])
    assert SECRET not in body


def test_the_site_itself_is_still_served(planted):
    server, out = planted
    assert get(server, "/") == (200, (out / "index.html").read_bytes())
    assert get(server, "/inside.html") == (200, (out / "index.html").read_bytes())
    assert get(server, "/api/v1/models.json")[0] == 200
    quoted = urllib.parse.quote("/acme/Widget-7B/")
    assert get(server, quoted)[0] == 200


def test_rebuilds_never_make_the_server_answer_404(tmp_path, monkeypatch):
    """Requests run without pause while the site is rebuilt eight times: every one finds a page."""
    monkeypatch.setenv("RECIPES_SITE_JOBS", "1")
    root, out = small_root(tmp_path), tmp_path / "site"
    assert rebuild(root, out, log=lambda line: None)
    server = _serve(out)
    statuses: list[int] = []
    done = threading.Event()

    def hammer():
        while not done.is_set():
            for path in ("/", "/api/v1/models.json", "/acme/Widget-7B/"):
                statuses.append(get(server, path)[0])

    thread = threading.Thread(target=hammer, daemon=True)
    thread.start()
    try:
        recipe = root / "models" / "acme" / "Widget-7B.yaml"
        for i in range(8):
            recipe.write_text(
                recipe.read_text()
                .replace("A small dense test model", f"Edit {i}:", 1)
                .replace(f"Edit {i - 1}:", f"Edit {i}:", 1)
            )
            assert rebuild(root, out, log=lambda line: None)
    finally:
        done.set()
        thread.join(30)
        server.shutdown()
        server.server_close()
    assert statuses and set(statuses) == {200}, {s: statuses.count(s) for s in set(statuses)}
    assert "Edit 7:" in (out / "api" / "v1" / "models.json").read_text()


def raw_get(server, target: bytes) -> bytes:
    """One GET whose request target is sent byte for byte (http.client refuses control
    characters), returning the raw response; b"" when the server dropped the connection."""
    with socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=10) as sock:
        sock.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    base = tmp_path_factory.mktemp("serve400")
    out = base / "site"
    assert rebuild(small_root(base), out, log=lambda line: None)
    return out


@pytest.mark.parametrize("live_reload", [False, True])
@pytest.mark.parametrize(
    "target",
    [b"/\x00", b"/%00", b"/acme/%00/index.html", b"/index.html%00.txt", b"/%ed%a0%80", b"/a\x00b/"],
)
def test_a_path_no_file_can_have_is_answered_400(built, live_reload, target):
    """Issue 25 point 8: a NUL (raw or %00) or a name the file system cannot encode used to
    raise `ValueError: embedded null byte` in the handler and drop the connection."""
    out = built
    server = make_server(out, 0, quiet=True, generation=Generation() if live_reload else None)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        response = raw_get(server, target)
        assert response.startswith(b"HTTP/1.0 400 ") or response.startswith(b"HTTP/1.1 400 "), (
            response[:120]
        )
        assert get(server, "/")[0] == 200  # and the server goes on serving
    finally:
        server.shutdown()
        server.server_close()
