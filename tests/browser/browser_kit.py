"""Helpers of the browser tests: the engine's expected text for a picker state, and a driver
for the model page's picker that reads its state from the DOM contract.

The DOM contract (issue 4): picker root `[data-picker]`; radio groups
`[role=radiogroup][data-axis=hardware|variant|strategy|nodes]` with `[role=radio][data-value]`
options (`aria-checked`, `aria-disabled`); features `input[type=checkbox][data-feature]`, modes
`select[data-feature-mode]`; command card `[data-command-card]` with process tabs
`[role=tab][data-process]`, the command text in `pre[data-command]`, form toggles
`[data-form=serve|docker]`, `button[data-copy]`, `[data-copy-status]`; sizing `[data-sizing]`.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from catalog_kit import copy_project_root

from recipes_site.build import synthesis_context
from recipes_site.catalog import load_catalog
from recipes_site.render.picker import exports
from recipes_site.synthesis import render_choice
from recipes_site.synthesis.types import Rendering

PROJECT_ROOT = Path(__file__).resolve().parents[2]
COMPAT_CORPUS = PROJECT_ROOT.parent / "shared" / "compat" / "corpus"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Absolute URLs the build writes (canonical, sitemap, llms.txt) use this origin; the link
# walker treats it as internal. The builds are ones for publishing (base URL and repository set,
# as pages.yml does): the project's recipes-site.yaml names neither.
SITE_URL = "https://recipes.test"
REPO_URL = "https://git.example.org/team/recipes"


# -- building ---------------------------------------------------------------------------------


def build_command(root: Path | None, out: Path) -> list[str]:
    cmd = [sys.executable, "-m", "recipes_site", "build"]
    if root is not None:
        cmd.append(str(root))
    return cmd + ["--out", str(out)]


def build_env() -> dict:
    return {**os.environ, "RECIPES_SITE_URL": SITE_URL, "RECIPES_SITE_REPO_URL": REPO_URL}


def run_builds(jobs: dict[str, tuple[Path | None, Path]]) -> dict[str, subprocess.CompletedProcess]:
    """Run several builds at once (each is its own process); {name: finished process}."""
    procs = {
        name: subprocess.Popen(
            build_command(root, out),
            cwd=PROJECT_ROOT,
            env=build_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for name, (root, out) in jobs.items()
    }
    done = {}
    for name, p in procs.items():
        output, _ = p.communicate(timeout=300)
        done[name] = subprocess.CompletedProcess(p.args, p.returncode, output, "")
    return done


# -- serving ----------------------------------------------------------------------------------


class _Handler(SimpleHTTPRequestHandler):
    """Static files; a missing path gets the site's `404.html` with status 404 (as GitHub Pages
    and most static hosts do)."""

    def log_message(self, *args) -> None:  # keep pytest output clean
        pass

    def send_error(self, code, message=None, explain=None):
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            return super().send_error(code, message, explain)
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


class StaticServer:
    def __init__(self, directory: Path):
        handler = functools.partial(_Handler, directory=str(directory))
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, name=f"site {directory}", daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@dataclass
class Site:
    """A built and served site, plus the recipes root it came from (for the engine)."""

    name: str
    out: Path
    url: str
    root: Path

    def __call__(self, path: str = "/") -> str:
        return self.url + path

    @functools.cached_property
    def engine(self) -> Engine:
        return Engine(self.root)


def copy_recipes_root(dest: Path, recipes: list[str]) -> Path:
    """A small recipes root: the project's vocabulary plus the named recipes."""
    return copy_project_root(dest, recipes)


SETTLE_TIMEOUT = 5.0  # seconds a picker change may take (it may fetch a hardware document)


# -- the engine side --------------------------------------------------------------------------


def process_table(r: Rendering) -> dict[str, tuple]:
    """{process tab id: (Process, env exported before it)} in tab order, ids as the picker parts
    name them (picker.py): main | head, worker-N | prefill, decode | instance, instance-worker-N."""
    if r.single:
        return {"main": (r.single, r.env)}
    if r.head:
        return {
            "head": (r.head, r.env),
            **{f"worker-{i}": (w, r.env) for i, w in enumerate(r.workers, 1)},
        }
    if r.prefill:
        return {
            "prefill": (r.prefill.process, r.prefill.process.env),
            "decode": (r.decode.process, r.decode.process.env),
        }
    return {
        "instance": (r.kv.head, r.env),
        **{f"instance-worker-{i}": (w, r.env) for i, w in enumerate(r.kv.workers, 1)},
    }


@dataclass(frozen=True)
class State:
    """What the picker shows as chosen (read from the DOM)."""

    hardware: str | None
    variant: str | None
    strategy: str | None
    nodes: str | None
    features: tuple  # ((name, mode or None), ...) of the checked features, sorted
    process: str | None  # data-process of the selected tab, None when there are no tabs
    form: str  # serve | docker
    command: str  # textContent of pre[data-command]
    tabs: tuple  # data-process ids of the visible process tabs

    @property
    def choice(self) -> dict:
        return {
            "hardware": self.hardware,
            "variant": self.variant,
            "strategy": self.strategy,
            "nodes": self.nodes,
            "features": dict(self.features),
        }


class Engine:
    """The Python engine for one recipes root: what the page must show for a choice."""

    def __init__(self, root: Path):
        catalog, _ = load_catalog(root)
        self.ctx = synthesis_context(catalog)
        self.recipes = {d.hf_id: d.data for d in catalog.recipes}

    @functools.cache
    def rendering(
        self,
        hf_id: str,
        variant: str,
        hardware: str,
        strategy: str,
        nodes: int | None,
        features: tuple,
    ) -> Rendering:
        multi = self.ctx.deploy_type(strategy) == "multi_node"
        return render_choice(
            self.ctx,
            self.recipes[hf_id],
            variant,
            hardware,
            strategy,
            nodes if multi else None,
            dict(features),
        )

    def expected(self, hf_id: str, s: State) -> str:
        """The exact text of pre[data-command] for this state, or an explanation starting with
        '!' when the engine rejects the choice the page shows."""
        try:
            nodes = int(s.nodes) if s.nodes and s.nodes.isdigit() else None
            r = self.rendering(hf_id, s.variant, s.hardware, s.strategy, nodes, s.features)
        except Exception as exc:  # ChoiceError, or a bad state such as no checked radio
            return f"! the engine rejects {s.choice}: {type(exc).__name__}: {exc}"
        table = process_table(r)
        pid = s.process if s.process is not None else next(iter(table))
        if pid not in table:
            return f"! no process {pid!r} in the engine's rendering (it has {list(table)})"
        process, env = table[pid]
        return process.docker_command if s.form == "docker" else exports(env) + process.command

    def recommended(self, hf_id: str, variant: str, hardware: str) -> tuple[str, int]:
        """(strategy, node count) the engine picks for a variant on a hardware."""
        r = render_choice(self.ctx, self.recipes[hf_id], variant, hardware)
        return r.strategy, r.node_count

    def process_ids(self, hf_id: str, s: State) -> list[str]:
        nodes = int(s.nodes) if s.nodes and s.nodes.isdigit() else None
        return list(
            process_table(
                self.rendering(hf_id, s.variant, s.hardware, s.strategy, nodes, s.features)
            )
        )


# -- the browser -----------------------------------------------------------------------------


@dataclass
class PageErrors:
    """Console errors and uncaught exceptions of one test's pages."""

    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    # console errors a test provokes on purpose (e.g. the 404 page's own status), as regexes
    allowed: list[str] = field(default_factory=list)

    def attach(self, page) -> None:
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.errors.append(f"page error on {page.url}: {exc}"))
        page.on("dialog", self._dialog)

    def _console(self, msg) -> None:
        if msg.type != "error":
            return
        loc = msg.location or {}
        text = f"console error: {msg.text} ({loc.get('url', '')}:{loc.get('lineNumber', '')})"
        if not any(re.search(pattern, text) for pattern in self.allowed):
            self.errors.append(text)

    def _dialog(self, dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()


def new_context(browser, **options):
    """A context with clipboard access; the caller closes it."""
    context = browser.new_context(**{"viewport": {"width": 1280, "height": 900}, **options})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    context.set_default_timeout(10_000)
    return context


# -- the page side ----------------------------------------------------------------------------

READ_STATE = """() => {
  const visible = el => !!el && !el.hidden && !el.closest('[hidden]') && el.getClientRects().length > 0;
  const root = document.querySelector('[data-picker]');
  if (!root) return null;
  const axis = a => {
    const el = root.querySelector(`[role=radiogroup][data-axis="${a}"] [role=radio][aria-checked="true"]`);
    return el ? el.dataset.value : null;
  };
  const features = [];
  for (const cb of root.querySelectorAll('input[type=checkbox][data-feature]')) {
    if (!cb.checked || !visible(cb)) continue;
    const sel = root.querySelector(`select[data-feature-mode="${CSS.escape(cb.dataset.feature)}"]`);
    features.push([cb.dataset.feature, sel ? sel.value : null]);
  }
  features.sort((a, b) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  const card = document.querySelector('[data-command-card]');
  const tabs = [...card.querySelectorAll('[role=tab][data-process]')].filter(visible);
  const sel = tabs.find(t => t.getAttribute('aria-selected') === 'true');
  const on = el => el && ['aria-pressed', 'aria-selected', 'aria-checked'].some(a => el.getAttribute(a) === 'true');
  const form = on(card.querySelector('[data-form=docker]') || document.querySelector('[data-form=docker]')) ? 'docker' : 'serve';
  const pre = card.querySelector('pre[data-command]');
  return {hardware: axis('hardware'), variant: axis('variant'), strategy: axis('strategy'), nodes: axis('nodes'),
          features, process: sel ? sel.dataset.process : null, form,
          command: pre ? pre.textContent : null, tabs: tabs.map(t => t.dataset.process)};
}"""


def _diff(expected: str, shown: str) -> str:
    import difflib

    return "\n".join(
        difflib.unified_diff(
            expected.splitlines(), (shown or "").splitlines(), "engine", "page", lineterm=""
        )
    )


class Picker:
    """Drives the picker of one model page and checks it against the engine."""

    def __init__(self, page, site, hf_id: str):
        self.page, self.site, self.hf_id = page, site, hf_id

    def open(self, query: str = "") -> Picker:
        resp = self.page.goto(self.site(f"/{self.hf_id}/{query}"))
        assert resp is not None and resp.status == 200, (
            f"/{self.hf_id}/ answered {resp and resp.status}"
        )
        self.page.wait_for_selector("[data-picker] pre[data-command]")
        # the server-rendered state is self-consistent: without this, a URL or remembered choice
        # whose document is still being fetched (aria-busy) would pass for the page's answer
        self.page.wait_for_selector("[data-picker]:not([aria-busy])")
        return self

    def state(self) -> State:
        raw = self.page.evaluate(READ_STATE)
        assert raw is not None, "no [data-picker] on the page"
        return State(
            raw["hardware"],
            raw["variant"],
            raw["strategy"],
            raw["nodes"],
            tuple((n, m) for n, m in raw["features"]),
            raw["process"],
            raw["form"],
            raw["command"],
            tuple(raw["tabs"]),
        )

    # actions
    @staticmethod
    def radio_selector(axis: str, value: str) -> str:
        return f'[data-picker] [role=radiogroup][data-axis="{axis}"] [role=radio][data-value="{value}"]'

    def radio(self, axis: str, value: str):
        return self.page.locator(self.radio_selector(axis, value))

    def wait_attr(
        self, selector: str, attr: str, value: str = "true", timeout: float = 5000
    ) -> None:
        """Wait until the element the selector finds now (pickers re-create their options) has attr=value."""
        self.page.wait_for_function(
            "([sel, attr, value]) => { const el = document.querySelector(sel); return !!el && el.getAttribute(attr) === value; }",
            arg=[selector, attr, value],
            timeout=timeout,
        )

    def options(self, axis: str) -> list[tuple[str, bool, bool]]:
        """(value, checked, disabled) of each option of an axis."""
        return self.page.eval_on_selector_all(
            f'[data-picker] [role=radiogroup][data-axis="{axis}"] [role=radio]',
            "els => els.map(e => [e.dataset.value, e.getAttribute('aria-checked') === 'true', "
            "e.getAttribute('aria-disabled') === 'true' || e.disabled === true])",
        )

    def choose(self, axis: str, value: str) -> State:
        el = self.radio(axis, value)
        assert el.count() == 1, f"no {axis} option {value!r} (options: {self.options(axis)})"
        assert el.get_attribute("aria-disabled") != "true", (
            f"{axis} option {value!r} is disabled: {el.get_attribute('title')}"
        )
        el.click()
        self.wait_attr(self.radio_selector(axis, value), "aria-checked")
        return self.check()

    def toggle_feature(self, name: str) -> State:
        box = self.page.locator(f'[data-picker] input[type=checkbox][data-feature="{name}"]')
        assert box.count() == 1, f"no feature checkbox {name!r}"
        assert box.is_enabled(), f"feature {name!r} is disabled (locked layout?)"
        was = box.is_checked()
        box.click()
        assert box.is_checked() != was
        return self.check()

    def set_mode(self, name: str, mode: str) -> State:
        self.page.locator(f'[data-picker] select[data-feature-mode="{name}"]').select_option(mode)
        return self.check()

    def form(self, form: str) -> State:
        self.page.locator(f"[data-command-card] [data-form={form}]").click()
        self.page.wait_for_function(
            "f => document.querySelector('[data-command-card] [data-form=' + f + ']')"
            ".matches('[aria-pressed=true],[aria-selected=true],[aria-checked=true]')",
            arg=form,
        )
        return self.check()

    def tab(self, process: str) -> State:
        selector = f'[data-command-card] [role=tab][data-process="{process}"]'
        t = self.page.locator(selector)
        assert t.count() == 1, f"no process tab {process!r} (tabs: {self.state().tabs})"
        t.click()
        self.wait_attr(selector, "aria-selected")
        return self.check()

    # checks
    def check(self) -> State:
        """Wait until pre[data-command] equals the engine's rendering of the state the picker
        shows; fail with a diff if it never does."""
        deadline = time.monotonic() + SETTLE_TIMEOUT
        while True:
            # busy first, then the state: read the other way round, a document arriving in between
            # would pass the stale state read before it for a settled one
            busy = self.page.evaluate("!!document.querySelector('[data-picker][aria-busy]')")
            s = self.state()
            want = self.site.engine.expected(self.hf_id, s)
            if s.command == want and not busy:
                return s
            if time.monotonic() > deadline:
                break
            self.page.wait_for_timeout(25)
        if want.startswith("!"):
            raise AssertionError(f"{self.hf_id}: {want}")
        raise AssertionError(
            f"{self.hf_id} {s.choice} tab={s.process} form={s.form}: the page's command "
            f"differs from the engine's rendering:\n{_diff(want, s.command)}"
        )

    def check_every_tab(self, forms=("serve", "docker")) -> list[str]:
        """Visit every process tab in each form; the tab set must be the engine's processes."""
        s = self.state()
        ids = self.site.engine.process_ids(self.hf_id, s)
        if len(ids) > 1:
            assert [t for t in s.tabs if t in ids] == ids, (
                f"process tabs {s.tabs}, engine processes {ids}"
            )
        for form in forms:
            self.form(form)
            for pid in ids if len(ids) > 1 else []:
                assert self.tab(pid).process == pid
        self.form("serve")
        if len(ids) > 1:
            self.tab(ids[0])
        return ids


def models_index(site) -> dict[str, dict]:
    data = json.loads((site.out / "api" / "v1" / "models.json").read_text())
    return {m["id"]: m for m in data["models"]}
