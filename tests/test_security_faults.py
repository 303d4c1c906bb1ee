"""Issue 10, "faults": builds killed (SIGKILL, SIGTERM, Ctrl-C) at any moment, killed exactly
around the swap, run twice at once, or starved by the file system. Each case is a real
`recipes-site build` in a child process; afterwards the test looks at /proc (no worker may
outlive its build) and at the disk (the output is always a complete site, the old or the new
one; whatever a killed build stranded is removed by the next build; output is world-readable).
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from fault_kit import (
    alive,
    big_root,
    children,
    cli,
    complete_site,
    leftovers,
    run_cli,
    small_root,
    snapshot,
    wait_for,
)

from recipes_site.posix import exclusive_lock
from recipes_site.write import write_tree

TWO_WORKERS = {
    **os.environ,
    "RECIPES_SITE_JOBS": "3",
}  # the build process and two forked workers, even on a one-core machine


@pytest.fixture(scope="module")
def roots(tmp_path_factory) -> tuple[Path, Path, Path]:
    """(small root, big root, a site built from the small root)."""
    base = tmp_path_factory.mktemp("faults")
    small, big = small_root(base), big_root(base)
    assert run_cli("build", str(small), "--out", str(base / "site")).returncode == 0
    return small, big, base / "site"


def _old_site(roots, tmp_path: Path) -> tuple[Path, dict]:
    out = tmp_path / "site"
    shutil.copytree(roots[2], out)
    return out, snapshot(out)


def _start_big_build(big: Path, out: Path, **popen) -> tuple[subprocess.Popen, list[int]]:
    """Start a build of the big root; return once its workers run and its staging folder exists."""
    proc = cli("build", str(big), "--out", str(out), env=TWO_WORKERS, **popen)
    started = wait_for(
        lambda: (
            len(children(proc.pid)) >= 2
            and any(".new-" in n for n in leftovers(out.parent, out.name))
        )
    )
    assert started and proc.poll() is None, "the build finished before it could be interrupted"
    return proc, children(proc.pid)


def _no_traceback(err: str) -> None:
    assert "Traceback" not in err and "Error:" not in err.replace("error:", ""), err


def test_sigkill_leaves_no_worker_and_the_next_build_removes_the_staging(roots, tmp_path):
    small, big, _ = roots
    out, before = _old_site(roots, tmp_path)
    proc, workers = _start_big_build(big, out)
    proc.kill()
    proc.wait()
    assert wait_for(lambda: not any(alive(w) for w in workers), timeout=30), [
        w for w in workers if alive(w)
    ]
    assert snapshot(out) == before  # the old site, whole
    stale = leftovers(tmp_path, "site")
    assert any(".new-" in name for name in stale), stale  # what the killed build stranded
    again = run_cli("build", str(small), "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert leftovers(tmp_path, "site") == []
    assert complete_site(out)


def test_sigterm_cleans_up_and_exits_143_without_a_traceback(roots, tmp_path):
    _, big, _ = roots
    out, before = _old_site(roots, tmp_path)
    proc, workers = _start_big_build(big, out)
    proc.terminate()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143
    assert err.splitlines()[-1] == "recipes-site: terminated"
    _no_traceback(err)
    assert not any(alive(w) for w in workers)
    assert leftovers(tmp_path, "site") == []
    assert snapshot(out) == before


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("started", ["foreground", "sigint-ignored"])
def test_ctrl_c_to_the_process_group_exits_130_without_a_traceback(roots, tmp_path, started):
    """Also when the build starts with SIGINT ignored, as a script's background job and nohup
    start it (and as this suite may be started): `kill -INT` still cleans up."""
    _, big, _ = roots
    out, before = _old_site(roots, tmp_path)
    preexec = _ignore_sigint if started == "sigint-ignored" else None
    proc, workers = _start_big_build(big, out, start_new_session=True, preexec_fn=preexec)
    os.killpg(proc.pid, signal.SIGINT)  # what the terminal does: parent and workers get SIGINT
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130
    assert err.splitlines()[-1] == "recipes-site: interrupted"
    _no_traceback(err)
    assert wait_for(lambda: not any(alive(w) for w in workers), timeout=30)
    assert leftovers(tmp_path, "site") == []
    assert snapshot(out) == before


KILL_AT_SWAP = """
import os, signal, sys
import recipes_site.write as w
real = w.exchange
def exchange_then_die(a, b):
    if sys.argv[1] == "after":
        assert real(a, b)
    os.kill(os.getpid(), signal.SIGKILL)
w.exchange = exchange_then_die
from recipes_site.cli import main
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("moment", ["before", "after"])
def test_a_kill_at_the_swap_leaves_a_complete_site_and_the_next_build_tidies(
    roots, tmp_path, moment
):
    small = roots[0]
    out, before = _old_site(roots, tmp_path)
    newer = small_root(tmp_path, "newer")
    recipe = newer / "models" / "acme" / "Widget-7B.yaml"
    recipe.write_text(recipe.read_text().replace("A small dense test model.", "The newer Widget."))
    killed = subprocess.run(
        [sys.executable, "-c", KILL_AT_SWAP, moment, "build", str(newer), "--out", str(out)],
        capture_output=True,
        text=True,
        env={**os.environ, "RECIPES_SITE_JOBS": "1"},
    )
    assert killed.returncode == -signal.SIGKILL
    assert complete_site(out)
    models = (out / "api" / "v1" / "models.json").read_text()
    if moment == "before":
        assert snapshot(out) == before
    else:
        assert "The newer Widget." in models
    assert any(".new-" in name for name in leftovers(tmp_path, "site"))
    assert run_cli("build", str(small), "--out", str(out)).returncode == 0
    assert leftovers(tmp_path, "site") == []
    assert snapshot(out) == before  # rebuilt from the small root: the same bytes as at the start


POLL = """
import os, sys, json
out, stop = sys.argv[1], sys.argv[2]
index = os.path.join(out, "index.html")
checks = misses = 0
open(stop + ".ready", "w").close()
while not os.path.exists(stop):
    checks += 1
    try:
        os.stat(index)   # cheap, so the loop samples often enough to hit a gap of microseconds
    except OSError:
        misses += 1
print(json.dumps({"checks": checks, "misses": misses}))
"""


def test_the_site_never_goes_missing_during_a_swap(tmp_path):
    """Another process reads the site in a tight loop while it is replaced 150 times: with two
    renames it sometimes found nothing (the dev server's 404s); with the exchange it never may."""
    out, stop = tmp_path / "site", tmp_path / "stop"
    files = {"index.html": b"<p>home</p>", "api/v1/models.json": b"{}", "404.html": b"<p>no</p>"}
    write_tree(out, files)
    poller = subprocess.Popen(
        [sys.executable, "-c", POLL, str(out), str(stop)], stdout=subprocess.PIPE, text=True
    )
    assert wait_for(lambda: Path(str(stop) + ".ready").exists())
    try:
        for i in range(150):
            write_tree(out, {**files, "index.html": f"<p>build {i}</p>".encode()})
    finally:
        stop.touch()
    seen = json.loads(poller.communicate(timeout=60)[0])
    assert seen["checks"] > 0 and seen["misses"] == 0, seen
    assert (out / "index.html").read_bytes() == b"<p>build 149</p>"
    assert leftovers(tmp_path, "site") == []


def test_without_an_exchange_call_the_fallback_still_replaces_cleanly(tmp_path, monkeypatch):
    """Where renameat2 is missing (other systems, old glibc) two renames do the swap."""
    import recipes_site.write as writer

    monkeypatch.setattr(writer, "exchange", lambda a, b: False)
    out = tmp_path / "site"
    write_tree(out, {"index.html": b"one", "old.html": b"x"})
    write_tree(out, {"index.html": b"two"})
    assert snapshot(out) == {
        ".recipes-site-manifest.json": b'{"generator":"recipes-site","files":["index.html"]}\n',
        "index.html": b"two",
    }
    assert leftovers(tmp_path, "site") == []


def test_two_concurrent_builds_into_one_folder_run_one_after_the_other(roots, tmp_path):
    small, big, _ = roots
    out, _ = _old_site(roots, tmp_path)
    first, _ = _start_big_build(big, out)
    second = cli("build", str(small), "--out", str(out))
    stagings: set[int] = set()

    def count() -> bool:
        stagings.add(sum(".new-" in n for n in leftovers(tmp_path, "site")))
        return first.poll() is not None and second.poll() is not None

    assert wait_for(count, timeout=300, step=0.01)
    _, err1 = first.communicate()
    _, err2 = second.communicate()
    assert (first.returncode, second.returncode) == (0, 0), err1 + err2
    assert max(stagings) == 1  # never two builds writing at once
    assert complete_site(out) and leftovers(tmp_path, "site") == []
    assert snapshot(out) == snapshot(roots[2])  # the second build (small root) ran last


def test_a_build_waits_while_another_holds_the_output_lock(roots, tmp_path):
    """The test holds the lock the way a running build does; a real build must wait, writing
    nothing, and go ahead once the lock is released."""
    small = roots[0]
    out, before = _old_site(roots, tmp_path)
    log = tmp_path / "stderr.txt"
    with exclusive_lock(tmp_path / ".site.lock", "unused"), log.open("w") as err:
        waiting = cli("build", str(small), "--out", str(out), stderr=err)
        assert wait_for(
            lambda: (
                "waiting for another build into" in log.read_text() or waiting.poll() is not None
            )
        )
        assert waiting.poll() is None, log.read_text()
        assert leftovers(tmp_path, "site") == [".site.lock"]  # no staging: it writes nothing yet
        assert snapshot(out) == before
    assert waiting.wait(timeout=120) == 0, log.read_text()
    assert complete_site(out) and leftovers(tmp_path, "site") == []


def _file_size_limit():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # so a write past the limit fails with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


def test_file_too_large_is_one_line_and_keeps_the_old_site(roots, tmp_path):
    small = roots[0]
    out, before = _old_site(roots, tmp_path)
    proc = cli("build", str(small), "--out", str(out), preexec_fn=_file_size_limit, env=TWO_WORKERS)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1
    assert err.splitlines()[-1].startswith("error: File too large: ")
    _no_traceback(err)
    assert snapshot(out) == before and leftovers(tmp_path, "site") == []


def _mount_namespace_works(tmp_path: Path) -> bool:
    probe = tmp_path / "probe"
    probe.mkdir()
    if not shutil.which("unshare"):
        return False
    return (
        subprocess.run(
            [
                "unshare",
                "--mount",
                "--propagation",
                "private",
                "mount",
                "-t",
                "tmpfs",
                "tmpfs",
                str(probe),
            ],
            capture_output=True,
        ).returncode
        == 0
    )


@pytest.mark.parametrize(
    "options, message",
    [("size=64k", "error: No space left on device: "), ("ro", "error: Read-only file system: ")],
)
def test_disk_full_and_read_only_are_one_line(roots, tmp_path, options, message):
    """A real full disk (a 64 KiB tmpfs) and a read-only one, mounted in a private mount namespace
    that vanishes with the child (needs root or user namespaces; skipped otherwise)."""
    if not _mount_namespace_works(tmp_path):
        pytest.skip("cannot mount a tmpfs in a private mount namespace here")
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    script = (
        f'mount -t tmpfs -o {options} tmpfs "$1" && exec "$2" -m recipes_site build "$3" --out "$1/site"; '
        "echo mount failed >&2; exit 9"
    )
    done = subprocess.run(
        [
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            script,
            "sh",
            str(mnt),
            sys.executable,
            str(roots[0]),
        ],
        capture_output=True,
        text=True,
        env=TWO_WORKERS,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines()[-1].startswith(message), done.stderr
    _no_traceback(done.stderr)


def test_output_is_world_readable_whatever_the_umask(roots, tmp_path):
    out = tmp_path / "site"
    done = run_cli("build", str(roots[0]), "--out", str(out), preexec_fn=lambda: os.umask(0o077))
    assert done.returncode == 0, done.stderr
    modes = {oct(os.stat(p).st_mode & 0o777) for p in [out, *out.rglob("*")] if p.is_dir()}
    assert modes == {"0o755"}
    modes = {oct(os.stat(p).st_mode & 0o777) for p in out.rglob("*") if p.is_file()}
    assert modes == {"0o644"}
