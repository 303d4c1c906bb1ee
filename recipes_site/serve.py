"""`recipes-site serve`: build, serve the output folder on 127.0.0.1, rebuild when a recipe changes.

A standard-library preview server: `http.server` with directory indexes, the site's 404.html
for missing paths, UTF-8 content types for the site's text formats and no caching (so a
rebuild shows on reload). Nothing outside the output folder is served, not even through a
symlink inside it. A watcher thread polls the recipe files once a second; a rebuild that
fails prints its diagnostics and leaves the previous site in place (the build writes
atomically), so the server keeps serving it. A rebuild is incremental (cache.py: only the edited
recipe is built again, and the process keeps parses, cache entries, rendered pages and the previous
site to rebuild into: cache.keep_in_memory) and the open pages reload themselves: the server adds
a small script to each HTML page it sends (never to the built files) that polls
`/__recipes_site/generation`.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import time
import traceback
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from recipes_site.build import build
from recipes_site.cache import keep_in_memory
from recipes_site.catalog.diagnostics import Diagnostic, Level, summary
from recipes_site.catalog.loader import ROOT_FILES
from recipes_site.errors import OutputRefused, UnsafePath
from recipes_site.exits import describe_os_error
from recipes_site.outdir import check_output
from recipes_site.render.pages import TEMPLATES

WATCHED = ROOT_FILES  # what the loader reads of a recipes root
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".md": "text/markdown; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".xml": "application/xml; charset=utf-8",
    ".svg": "image/svg+xml",
}


def _contained(local: str, folder: str) -> bool:
    """Whether `local`, symlinks resolved, is `folder` or lies inside it (also resolved)."""
    real, base = os.path.realpath(local), os.path.realpath(folder)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


class SiteHandler(SimpleHTTPRequestHandler):
    """Serves one folder; unknown paths get its 404.html with status 404."""

    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, **TYPES}
    quiet = False

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def parse_request(self) -> bool:
        """400 for a path no file can have: a NUL (raw or `%00`) or a name the file system cannot
        encode, which would raise inside `os` calls and drop the connection instead."""
        if not super().parse_request():
            return False
        try:
            local = os.fsencode(self.translate_path(self.path))
        except ValueError:  # UnicodeEncodeError: a lone surrogate from %ED%A0%80
            local = b"\0"
        if b"\0" in local:
            self.send_error(HTTPStatus.BAD_REQUEST, "Bad request path")
            return False
        return True

    def send_head(self):
        """404 for any path that resolves outside the served folder: a symlink inside the output
        (the file itself, a folder on the way, or a folder's index.html) must not publish
        /etc/passwd or a home folder. `..` segments are already dropped by translate_path."""
        local = self.translate_path(self.path)
        candidates = [local] + (
            [os.path.join(local, name) for name in ("index.html", "index.htm")]
            if os.path.isdir(local)
            else []
        )
        if any(os.path.lexists(c) and not _contained(c, self.directory) for c in candidates):
            self.send_error(HTTPStatus.NOT_FOUND, "File not found")
            return None
        return super().send_head()

    def send_error(self, code, message=None, explain=None):
        page = Path(self.directory) / "404.html"
        if (
            code != HTTPStatus.NOT_FOUND
            or not page.is_file()
            or not _contained(str(page), self.directory)
        ):
            return super().send_error(code, message, explain)
        body = page.read_bytes()
        self.send_response(code, message)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        if not self.quiet and not getattr(self, "path", "").startswith(
            RELOAD_PREFIX
        ):  # pages poll it
            super().log_message(format, *args)


# -- live reload (serve mode only: the built files never carry it) ------------------------------

RELOAD_PREFIX = "/__recipes_site/"
# polls four times a second (a cheap request to this server): half of that is the average wait
# between a rebuild and the reload
RELOAD_JS = b"""(function () {
  var s = document.currentScript, seen = s && s.dataset.generation;
  function poll() {
    fetch("/__recipes_site/generation", {cache: "no-store"}).then(function (r) { return r.text(); })
      .then(function (g) { if (seen && g.trim() !== seen) location.reload(); else setTimeout(poll, 250); },
            function () { setTimeout(poll, 2000); });
  }
  setTimeout(poll, 250);
})();
"""


class Generation:
    """How many times the site was rebuilt: pages loaded from an older build reload themselves."""

    def __init__(self):
        self._value, self._lock = 0, threading.Lock()

    @property
    def value(self) -> int:
        return self._value

    def bump(self) -> None:
        with self._lock:
            self._value += 1


def with_reload_script(body: bytes, generation: int) -> bytes:
    """The page with the reload script before its last `</body>` (appended when it has none)."""
    tag = f'<script src="{RELOAD_PREFIX}reload.js" data-generation="{generation}" defer></script>'.encode()
    at = body.rfind(b"</body>")
    return body[:at] + tag + body[at:] if at >= 0 else body + tag


class ReloadingHandler(SiteHandler):
    """SiteHandler that adds the live-reload script to HTML pages and answers its two URLs."""

    generation: Generation  # set by make_server

    def _send(self, code: int, body: bytes, content_type: str) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _html_file(self) -> str | None:
        """The HTML file this GET would send (a folder's index.html included), if it is one we serve."""
        local = self.translate_path(self.path)
        if os.path.isdir(local):
            if not self.path.split("?", 1)[0].endswith("/"):
                return None  # the base class redirects to the slash form
            local = os.path.join(local, "index.html")
        if (
            not local.endswith(".html")
            or not os.path.isfile(local)
            or not _contained(local, self.directory)
        ):
            return None
        return local

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path == RELOAD_PREFIX + "reload.js":
            return self._send(200, RELOAD_JS, TYPES[".js"])
        if path == RELOAD_PREFIX + "generation":
            return self._send(200, str(self.generation.value).encode(), TYPES[".txt"])
        local = self._html_file()
        if local is None:
            return super().do_GET()
        try:
            body = Path(local).read_bytes()
        except OSError:
            return super().do_GET()
        self._send(200, with_reload_script(body, self.generation.value), TYPES[".html"])

    def send_error(self, code, message=None, explain=None):
        page = Path(self.directory) / "404.html"
        if (
            code == HTTPStatus.NOT_FOUND
            and page.is_file()
            and _contained(str(page), self.directory)
        ):
            return self._send(
                code, with_reload_script(page.read_bytes(), self.generation.value), TYPES[".html"]
            )
        return super().send_error(code, message, explain)


def watched_state(root: Path, extra: tuple[Path, ...] = ()) -> tuple:
    """(path, mtime, size) of every watched file: any edit, addition or removal changes it."""
    state = []
    for entry in [root / name for name in WATCHED] + list(extra):
        files = (
            sorted(p for p in entry.rglob("*") if p.is_file())
            if entry.is_dir()
            else [entry]
            if entry.is_file()
            else []
        )
        for p in files:
            try:
                st = p.stat()
            except OSError:
                continue
            state.append((str(p), st.st_mtime_ns, st.st_size))
    return tuple(state)


def _diagnostic_order(d: Diagnostic) -> tuple:
    return d.path, d.line, d.col, d.key_path, d.message


def rebuild(root: Path, out: Path, log=print, on_swapped=None) -> bool:
    """One build; prints what went wrong and returns False when it did not replace the site.
    `on_swapped()` runs once the new site is in place (before the old one is deleted).

    A build that succeeds prints its warnings too, as `validate` and `build` do, after every
    rebuild: a mistyped flag or a dead link is a warning, and would otherwise reach the page
    without the person editing the recipe ever being told."""
    started = time.perf_counter()
    try:
        result = build(root, out, on_swapped=on_swapped)
    except (OutputRefused, UnsafePath, OSError) as exc:  # the machine's problem: one line
        log(
            f"build failed: {describe_os_error(exc) if isinstance(exc, OSError) else exc}; "
            "still serving the previous site"
        )
        return False
    except Exception:  # a bug must not take the preview down: keep serving the last good site
        log(traceback.format_exc().rstrip())
        log("build crashed; still serving the previous site")
        return False
    for d in sorted(result.diagnostics, key=_diagnostic_order):
        log(d.format())
    if result.diagnostics:
        log(summary(result.diagnostics, result.files_checked))
    if not result.ok:
        errors = sum(1 for d in result.diagnostics if d.level is Level.ERROR)
        log(f"build failed: {errors} error(s); still serving the previous site")
        return False
    log(
        f"built {len(result.recipes)} recipes into {out} ({result.files_written} files, "
        f"{result.files_reused} reused, {time.perf_counter() - started:.2f}s)"
    )
    return True


def watch(
    root: Path,
    out: Path,
    stop: threading.Event,
    interval: float = 0.5,
    log=print,
    extra: tuple[Path, ...] = (),
    seen: tuple | None = None,
    generation: Generation | None = None,
) -> None:
    """Poll the recipe files every `interval` seconds and rebuild when they differ from `seen`
    (the state the current site was built from; taken now when not given); a rebuild that
    replaced the site bumps `generation`, which reloads the open pages."""
    seen = watched_state(root, extra) if seen is None else seen
    while not stop.wait(interval):
        now = watched_state(root, extra)
        if now != seen:
            seen = now
            log("change detected, rebuilding…")
            rebuild(root, out, log, on_swapped=generation.bump if generation is not None else None)


def make_server(
    out: Path,
    port: int = 8000,
    host: str = "127.0.0.1",
    quiet: bool = False,
    generation: Generation | None = None,
) -> ThreadingHTTPServer:
    """The preview server of `out`; with `generation`, pages reload themselves after a rebuild."""
    base = SiteHandler if generation is None else ReloadingHandler
    handler = type("Handler", (base,), {"quiet": quiet, "generation": generation})
    return ThreadingHTTPServer((host, port), functools.partial(handler, directory=str(out)))


def serve(
    root: Path,
    out: Path,
    port: int = 8000,
    host: str = "127.0.0.1",
    *,
    interval: float = 0.5,
    watch_templates: bool = True,
) -> int:
    """Build, serve `out` until interrupted, rebuilding on recipe changes. Returns an exit code.

    The recipe files are polled every `interval` seconds: half of it is the average wait between
    a save and its rebuild, and one poll of a 1,000-recipe root costs ~12 ms of CPU."""
    root, out = Path(root), check_output(Path(out), Path(root))  # refused like `build`, first
    keep_in_memory()  # a rebuild parses only the files that changed and re-renders only changed pages
    extra = (TEMPLATES,) if watch_templates else ()
    seen = watched_state(root, extra)  # before building: an edit made during it triggers another
    if not rebuild(root, out) and not (out / "index.html").is_file():
        print(
            "nothing to serve yet: fix the errors above; the server starts anyway and rebuilds on change",
            file=sys.stderr,
        )
        out.mkdir(parents=True, exist_ok=True)
    generation = Generation()
    try:
        server = make_server(out, port, host, generation=generation)
    except OSError as exc:
        print(f"recipes-site: cannot listen on {host}:{port}: {exc}", file=sys.stderr)
        return 1
    stop = threading.Event()
    watcher = threading.Thread(
        target=watch,
        args=(root, out, stop, interval),
        kwargs={"extra": extra, "seen": seen, "generation": generation},
        daemon=True,
    )
    watcher.start()
    print(f"serving {out} at http://{host}:{server.server_address[1]}/  (Ctrl+C to stop)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print()
    finally:
        stop.set()
        server.server_close()
    return 0
