#!/usr/bin/env python3
"""Our whole build against the reference's JSON step, on the compat corpus, in one run (printed, never asserted).

usage: python benchmarks/compat_bench.py [--corpus ROOT] [--repeat N] [--tmp DIR] [--python EXE]
                                         [--reference-cmd CMD] [--reference-root ROOT]

Issue 13 asks that our clean build of the compat corpus (validate + JSON API + HTML pages) use
less CPU than the reference site's JSON-only build step, measured side by side. CPU figures from
different runs, hours apart, on a machine shared with other work are not comparable, so this
script alternates the contenders within one run, --repeat rounds (default 5), and prints the
minimum and median of each:
- ours: `recipes-site build CORPUS --out <fresh temp dir>` as a child process (a fresh folder has
  no previous site and no cache beside it: a clean build, as the issue means);
- ours with RECIPES_SITE_JOBS=1: the same build in one process, since forked workers can cost
  CPU of their own (start-up, pickling results) that a single process does not pay;
- the reference: --reference-cmd run with a fresh copy of --reference-root as its working
  directory (the reference reads taxonomy.yaml, strategies/, kv_store/, models/ there and writes
  public/ there; the copy makes public/ start empty every round).
Each figure is user + sys CPU from getrusage(RUSAGE_CHILDREN) deltas around the child, which
include every process the child forked and waited for (our workers, node's threads), plus
wall-clock time. Outputs are deleted only after the last round: on ext4, creating files soon after
thousands were deleted costs seconds of sys time, so deleting between rounds would bill one side
for the other's cleanup (the reference, writing 7x as many files, the most). Sys time stays the
noisiest figure on disk (other builds on the machine delete files too); --tmp /dev/shm leaves
mostly the computation. It also prints file counts and byte totals of what each wrote (ours in total and
its api/ tree alone, the part that corresponds to the reference's output).

The reference is the JSON build script of the public vllm-project/recipes repository (the one
its package.json runs before `next build`). To set it up, take a checkout of that repository (a
revision close to the corpus's) outside this project, run `npm ci` there, and pass
`--reference-cmd "node /abs/path/to/checkout/scripts/build-recipes-api.mjs"` (an absolute path:
the command runs inside the temporary copy). --reference-root defaults to the compat corpus
(--corpus), which is laid out as a recipes root; a checkout works too (public/, node_modules/ and
.git/ are not copied; node_modules/ is linked into the copy). Without --reference-cmd only our
rows are printed. Nothing of the reference is kept in this repository.
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
COMPAT = HERE.parent / "shared" / "compat" / "corpus"
NOT_COPIED = {"public", "node_modules", ".git"}


@dataclass
class Runs:
    """The figures of one contender over all rounds, and the size of what it wrote (last round)."""

    label: str
    cpu: list[float] = field(default_factory=list)
    user: list[float] = field(default_factory=list)
    sys: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)
    sizes: dict[str, tuple[int, int]] = field(default_factory=dict)


def timed_child(
    cmd: list[str], cwd: Path | None = None, env: dict | None = None
) -> tuple[float, float, float]:
    """(user s, sys s, wall s) of one child process and everything it waited for; exits on failure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(
            f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
        )
    return after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime, wall


def tree_size(folder: Path) -> tuple[int, int]:
    """(files, bytes) of the regular files under `folder` (apparent sizes: what gets published)."""
    files = size = 0
    for dirpath, _dirs, names in os.walk(folder):
        for name in names:
            st = os.lstat(os.path.join(dirpath, name))
            files += 1
            size += st.st_size
    return files, size


def copy_root(source: Path, dest: Path) -> None:
    """A writable copy of a recipes root (without output, dependencies or history)."""
    shutil.copytree(
        source,
        dest,
        copy_function=shutil.copyfile,
        ignore=lambda d, names: [n for n in names if n in NOT_COPIED and Path(d) == source],
    )
    for dirpath, _dirs, _names in os.walk(dest):
        os.chmod(dirpath, 0o755)  # the corpus is read-only; copytree copies the folders' modes
    if (source / "node_modules").is_dir():
        (dest / "node_modules").symlink_to(source / "node_modules")


def record(runs: Runs, user: float, sys_: float, wall: float) -> None:
    runs.user.append(user)
    runs.sys.append(sys_)
    runs.cpu.append(user + sys_)
    runs.wall.append(wall)


def ours(runs: Runs, python: str, corpus: Path, env: dict, tmp: Path) -> None:
    out = tmp / "site"
    record(
        runs,
        *timed_child(
            [python, "-m", "recipes_site", "build", str(corpus), "--out", str(out)], env=env
        ),
    )
    runs.sizes = {"site": tree_size(out), "api/": tree_size(out / "api")}


def reference(runs: Runs, cmd: list[str], root: Path, tmp: Path) -> None:
    work = tmp / "root"
    copy_root(root, work)
    record(runs, *timed_child(cmd, cwd=work))
    runs.sizes = {"public/": tree_size(work / "public")}


def row(runs: Runs) -> str:
    def mm(xs: list[float]) -> str:
        return f"{min(xs):6.2f} {statistics.median(xs):6.2f}"

    return f"{runs.label:<28} {mm(runs.cpu)}   {mm(runs.user)}   {mm(runs.sys)}   {mm(runs.wall)}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--corpus", default=str(COMPAT), help="recipes root we build (default: the compat corpus)"
    )
    ap.add_argument(
        "--repeat", type=int, default=5, help="rounds; each runs every contender once (default 5)"
    )
    ap.add_argument(
        "--reference-cmd",
        default=None,
        help='the reference build, e.g. "node /abs/checkout/scripts/build-recipes-api.mjs"',
    )
    ap.add_argument(
        "--reference-root",
        default=None,
        help="recipes root the reference runs in, copied per round (default: --corpus)",
    )
    ap.add_argument(
        "--tmp",
        default=None,
        help="folder for both sides' outputs, all kept until the end of the run (default: the "
        "system's temp folder; /dev/shm takes the disk out of the sys figures)",
    )
    ap.add_argument(
        "--python",
        default=sys.executable,
        help="the interpreter that runs our build (default: this one); its environment needs our "
        "dependencies, e.g. a venv made with Debian's /usr/bin/python3 and `pip install -e .`: "
        "interpreters differ by 10-15%% (an optimised distribution build against a plain "
        "source build)",
    )
    args = ap.parse_args()
    corpus = Path(args.corpus).resolve()
    ref_root = Path(args.reference_root or corpus).resolve()
    ref_cmd = shlex.split(args.reference_cmd) if args.reference_cmd else None

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
    env.pop("RECIPES_SITE_JOBS", None)
    env_one = dict(env, RECIPES_SITE_JOBS="1")
    mine, mine_one, theirs = (
        Runs("ours (default workers)"),
        Runs("ours (RECIPES_SITE_JOBS=1)"),
        Runs("reference (JSON only)"),
    )

    commit = (
        subprocess.run(
            ["git", "-C", str(HERE), "log", "-1", "--format=%h %cI"], capture_output=True, text=True
        ).stdout.strip()
        or "?"
    )
    if subprocess.run(
        ["git", "-C", str(HERE), "status", "--porcelain", "--", "recipes_site", "templates"],
        capture_output=True,
        text=True,
    ).stdout.strip():
        commit += " + uncommitted changes"  # the build runs the working tree, not the commit
    recipes = sum(1 for _ in (corpus / "models").rglob("*.yaml"))
    print(
        f"corpus: {corpus} ({recipes} recipes); ours at {commit}; {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.2f} at start"
    )
    version = subprocess.run(
        [args.python, "-c", "import sys; print(sys.version.split()[0], sys.executable)"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    print(f"ours run by Python {version}")
    if ref_cmd:
        print(f"reference: {' '.join(ref_cmd)} in a copy of {ref_root}")
    print(f"outputs under {args.tmp or tempfile.gettempdir()}")
    # Every output stays until the end: on ext4, creating files right after thousands were deleted
    # costs seconds of sys time (the inode allocator skips recently freed inodes), which would
    # charge one side for the other's cleanup, the side that creates more files the most.
    scratch = Path(tempfile.mkdtemp(prefix="compat-bench-", dir=args.tmp))
    # Our modules' bytecode as an installed package has it (pip compiles a package when it
    # installs it; Python writes the .pyc files on the first run otherwise). Where
    # PYTHONDONTWRITEBYTECODE is set, every module edited since its last .pyc would be compiled
    # again in every round (~5 ms each), which no user's second build pays.
    subprocess.run([args.python, "-m", "compileall", "-q", str(HERE / "recipes_site")], check=True)
    try:
        for k in range(args.repeat):
            # alternate the order so that neither side always runs first (a cold page cache, a neighbour's burst)
            steps = [
                lambda: ours(mine, args.python, corpus, env, Path(tempfile.mkdtemp(dir=scratch))),
                lambda: ours(
                    mine_one, args.python, corpus, env_one, Path(tempfile.mkdtemp(dir=scratch))
                ),
            ]
            if ref_cmd:
                steps.append(
                    lambda: reference(
                        theirs, ref_cmd, ref_root, Path(tempfile.mkdtemp(dir=scratch))
                    )
                )
            for step in steps if k % 2 == 0 else steps[::-1]:
                step()
            print(
                f"  round {k + 1}/{args.repeat}: ours {mine.cpu[-1]:.2f} s CPU, JOBS=1 {mine_one.cpu[-1]:.2f} s"
                + (f", reference {theirs.cpu[-1]:.2f} s" if ref_cmd else ""),
                flush=True,
            )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    print(f"\n{'':<28} {'CPU s':>13}   {'user s':>13}   {'sys s':>13}   {'wall s':>13}")
    print(
        f"{'':<28} {'min median':>13}   {'min median':>13}   {'min median':>13}   {'min median':>13}"
    )
    for runs in (mine, mine_one) + ((theirs,) if ref_cmd else ()):
        print(row(runs))
    if ref_cmd:
        for runs in (mine, mine_one):
            print(
                f"CPU ratio {runs.label} / reference: min {min(runs.cpu) / min(theirs.cpu):.2f}x, "
                f"median {statistics.median(runs.cpu) / statistics.median(theirs.cpu):.2f}x "
                f"(below 1.00x = less CPU than the reference)"
            )
    print()
    for runs in (mine,) + ((theirs,) if ref_cmd else ()):
        for name, (files, size) in runs.sizes.items():
            print(f"{runs.label:<28} wrote {name:<8} {files:>7,} files {size:>14,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
