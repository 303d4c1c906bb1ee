"""The two sides of `recipes-site diff`: a git ref, a recipes root or an already-built site,
each turned into a built site in a private temporary folder.

Git refs are read with `git archive` (read-only: no worktree, no change to the repository's
`.git`), unpacked with tarfile's `data` filter (no absolute paths, no `..`, no links leading
out), and built with the library's public `build()` into a fresh temporary output, so nothing
is ever written outside the system temporary folder.
"""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

from recipes_site.catalog.diagnostics import errors
from recipes_site.errors import DiffSourceError


def _git(root: Path, *args: str) -> bytes:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, check=False)
    except FileNotFoundError as exc:
        raise DiffSourceError("git is not installed; pass two folders instead of refs") from exc
    if done.returncode:
        raise DiffSourceError(
            done.stderr.decode("utf-8", "replace").strip() or f"git {args[0]} failed"
        )
    return done.stdout


def is_built_site(folder: Path) -> bool:
    return (folder / "api" / "v1" / "models.json").is_file()


def export_ref(root: Path, ref: str, dest: Path) -> Path:
    """The recipes root `root` as it was at git `ref`, unpacked under `dest`; returns that root."""
    if ref.startswith("-"):
        raise DiffSourceError(f"{ref!r} is not a git ref")
    try:
        sha = (
            _git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
            .decode()
            .strip()
        )
    except DiffSourceError:
        sha = ""
    if not sha:
        raise DiffSourceError(
            f"{ref!r} is neither a folder nor a git ref of the repository holding {root}"
        )
    prefix = _git(root, "rev-parse", "--show-prefix").decode().strip().rstrip("/")
    tree = f"{sha}:{prefix}" if prefix else sha
    archive = _git(root, "archive", "--format=tar", tree)
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        _extract_plain(tar, dest)
    return dest


def _extract_plain(tar: tarfile.TarFile, dest: Path) -> None:
    """Regular files and folders only, each inside `dest`: a committed symlink or a `../` name in a
    stranger's pull request must not reach outside the temp folder. tarfile's "data" filter does
    this, but only from Python 3.11.4 / 3.10.12 (Debian 12 ships 3.11.2), so the check is ours."""
    base = dest.resolve()
    for member in tar.getmembers():
        target = (base / member.name).resolve()
        if not (member.isfile() or member.isdir()) or (
            target != base and base not in target.parents
        ):
            continue  # links, devices and escaping names are skipped, not followed
        if member.isdir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        source = tar.extractfile(member)
        if source is None:  # (a regular file always has its data)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        with source:
            target.write_bytes(source.read())


def build_side(root: Path, out: Path, name: str) -> Path:
    """Build the recipes root `root` into `out` (a fresh folder); a side that fails to build is an error."""
    from recipes_site.build import build

    result = build(root, out)
    if not result.ok:
        shown = "\n".join(d.format() for d in errors(result.diagnostics)[:20])
        raise DiffSourceError(
            f"{name} does not build ({len(errors(result.diagnostics))} errors):\n{shown}"
        )
    return out


def built_site(spec: str | None, root: Path, workdir: Path, name: str) -> Path:
    """The built site for one side: `spec` None = the working tree of `root`; an existing folder =
    a built site as is, or a recipes root to build; anything else = a git ref of `root`'s repository."""
    if spec is None:
        return build_side(root, workdir / f"{name}-site", f"{name} (the working tree)")
    folder = Path(spec)
    if folder.is_dir():
        return (
            folder
            if is_built_site(folder)
            else build_side(folder, workdir / f"{name}-site", f"{name} ({spec})")
        )
    source = export_ref(root, spec, workdir / f"{name}-src")
    return build_side(source, workdir / f"{name}-site", f"{name} ({spec})")
