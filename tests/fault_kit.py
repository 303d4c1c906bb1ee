"""Helpers for the output-folder, fault and dev-server security tests: real `recipes-site` runs
(in a child process when signals or resource limits are involved) and looks at the disk."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from catalog_kit import FIXTURE_ROOT, VALID_RECIPE

from recipes_site.outdir import MANIFEST


def small_root(tmp_path: Path, name: str = "root") -> Path:
    """A copy of the one-recipe fixture root (a build takes well under a second)."""
    root = tmp_path / name
    shutil.copytree(FIXTURE_ROOT, root)
    return root


def big_root(tmp_path: Path, copies: int = 80) -> Path:
    """A root whose build runs for seconds with worker processes: the fixture root with `copies`
    copies of its recipe under new ids (independent of the compat corpus being present)."""
    root = small_root(tmp_path, "big-root")
    for i in range(copies):
        path = root / "models" / "acme" / f"Widget-7B-{i}.yaml"
        path.write_text(
            VALID_RECIPE.replace('model_id: "acme/Widget-7B"', f'model_id: "acme/Widget-7B-{i}"'),
            encoding="utf-8",
        )
    return root


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """relative path -> file bytes (or 'link -> target') of everything below `folder`."""
    found: dict[str, bytes | str] = {}
    for base, dirs, files in os.walk(folder):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(base, d))]:
            path = os.path.join(base, name)
            rel = os.path.relpath(path, folder)
            found[rel] = (
                f"link -> {os.readlink(path)}" if os.path.islink(path) else Path(path).read_bytes()
            )
    return found


def complete_site(out: Path) -> bool:
    """Every file the site's manifest lists is there (a build's output is whole, not partial)."""
    try:
        listed = json.loads((out / MANIFEST).read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError):
        return False
    return bool(listed) and all((out / rel).is_file() for rel in listed)


def leftovers(parent: Path, name: str) -> list[str]:
    """Staging, retired and lock entries a build into parent/name left next to it."""
    return sorted(p.name for p in parent.iterdir() if p.name.startswith(f".{name}."))


def cli(*args: str, **popen) -> subprocess.Popen:
    """`python -m recipes_site ARGS` in a child process (stdout/stderr piped, text)."""
    popen = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **popen}
    return subprocess.Popen([sys.executable, "-m", "recipes_site", *args], text=True, **popen)


def run_cli(*args: str, **popen) -> subprocess.CompletedProcess:
    proc = cli(*args, **popen)
    out, err = proc.communicate(timeout=300)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def wait_for(predicate, timeout: float = 120.0, step: float = 0.02) -> bool:
    """Poll `predicate` until it holds; False after `timeout` (a safety net, not a measurement)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return False


def children(pid: int) -> list[int]:
    """Live (not zombie) processes whose parent is `pid`, from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = _stat(int(entry))
            if stat and stat[1] == pid and stat[0] != "Z":
                found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    """Whether `pid` still runs (a zombie has exited: it only waits to be reaped)."""
    stat = _stat(pid)
    return stat is not None and stat[0] != "Z"


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of a process, None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[1])
