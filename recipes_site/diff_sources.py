"""The two sides of `recipes-site diff`: a git ref, a recipes root or an already-built site,
each turned into a built site in a private temporary folder.

A git ref is read the way a checkout of it would be built, and no more: the files the loader
reads (`ROOT_INPUTS`) are listed with `git ls-tree` and written from `git cat-file` exactly as
committed. `git archive` would apply `.gitattributes` (`export-ignore` hides a new recipe from
the diff while the build publishes it) and drops links; a checkout would apply filters and
line-ending conversions. Each blob is streamed to disk on its own, and one larger than the
loader's cap becomes a sparse file of the same size (the loader refuses it by its size, as it
would in a checkout), so memory never holds more than one capped file.

Committed symbolic links are made as links, with their committed target, and whatever they lead
to inside the root is fetched too, so the loader follows or refuses them exactly as it does in
a checkout. Every name is checked before it is written: nothing lands outside the side's folder.
The repository is only read (no worktree, no index, no change to its `.git`).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from recipes_site.catalog.diagnostics import errors
from recipes_site.catalog.lint import PROJECT_MARKER
from recipes_site.catalog.loader import ROOT_FILES
from recipes_site.catalog.yaml import MAX_FILE_BYTES
from recipes_site.errors import DiffSourceError

# What the loader reads of a recipes root (the names `serve` watches), plus the marker of a
# project root that lint.py reads.
ROOT_INPUTS = (*ROOT_FILES, PROJECT_MARKER)
MAX_LINK_ROUNDS = 40  # links leading to links: Linux's own limit (ELOOP) on one path
MAX_LINK_TARGET = 4095  # PATH_MAX - 1: no checkout can make a longer link


def _git(root: Path, *args: str, stdin: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(
            ["git", "--literal-pathspecs", "-C", str(root), *args],
            input=stdin,
            capture_output=True,
            check=False,
        )
    except FileNotFoundError as exc:
        raise DiffSourceError("git is not installed; pass two folders instead of refs") from exc
    if done.returncode:
        raise DiffSourceError(
            done.stderr.decode("utf-8", "replace").strip() or f"git {args[0]} failed"
        )
    return done.stdout


def is_built_site(folder: Path) -> bool:
    return (folder / "api" / "v1" / "models.json").is_file()


@dataclass(frozen=True)
class TreeEntry:
    mode: str  # 100644/100755 file, 120000 link, 160000 submodule
    sha: str
    size: int  # 0 for a submodule
    path: str  # relative to the recipes root, "/"-separated


def _resolve(root: Path, ref: str) -> tuple[Path, str]:
    """(the repository's top folder, `commit:prefix` naming the recipes root's tree at `ref`)."""
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
    top = Path(os.fsdecode(_git(root, "rev-parse", "--show-toplevel").rstrip(b"\n")))
    prefix = os.fsdecode(_git(root, "rev-parse", "--show-prefix").rstrip(b"\n")).rstrip("/")
    return top, f"{sha}:{prefix}" if prefix else sha


def list_tree(top: Path, tree: str, paths: list[str], *, recursive: bool = True) -> list[TreeEntry]:
    """The entries of `tree` at `paths` (names, modes and sizes: no file is read)."""
    if not paths:
        return []
    out = _git(top, "ls-tree", "-z", "-l", *(["-r"] if recursive else []), tree, "--", *paths)
    entries = []
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        mode, _kind, sha, size = meta.split()
        entries.append(
            TreeEntry(
                mode.decode(), sha.decode(), 0 if size == b"-" else int(size), os.fsdecode(name)
            )
        )
    return entries


def _checked_name(dest: Path, rel: str, *, folder: bool = False) -> Path:
    """dest/rel with its parent folders made (and itself, with `folder`), refusing a name a
    checkout would refuse or that leaves `dest` (`..`, absolute, `.git`) and a parent folder that
    is a link: what is written never follows a link."""
    parts = rel.split("/")
    if any(p in ("", ".", "..") or p.lower() == ".git" for p in parts):
        raise DiffSourceError(f"the tree holds an unsafe file name: {rel!r}")
    here = dest
    for part in parts if folder else parts[:-1]:
        here = here / part
        if here.is_symlink() or (here.exists() and not here.is_dir()):
            raise DiffSourceError(f"the tree holds {rel!r} under a link or a file")
        here.mkdir(exist_ok=True)
    return dest.joinpath(*parts)


class _Blobs:
    """One `git cat-file --batch` for the whole side: a blob at a time, straight to disk."""

    def __init__(self, top: Path):
        self.proc = subprocess.Popen(
            ["git", "-C", str(top), "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )

    def copy(self, sha: str, out: IO[bytes] | None) -> bytes:
        """Write blob `sha` to `out` (or return it when `out` is None)."""
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(sha.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        if len(header) != 3 or header[1] != b"blob":
            raise DiffSourceError(f"git cat-file cannot read blob {sha}")
        left, kept = int(header[2]), b""
        while left:
            chunk = self.proc.stdout.read(min(left, 1 << 16))
            if not chunk:
                raise DiffSourceError(f"git cat-file stopped inside blob {sha}")
            left -= len(chunk)
            if out is None:
                kept += chunk
            else:
                out.write(chunk)
        self.proc.stdout.read(1)  # the newline after each object
        return kept

    def close(self) -> None:
        """Both pipes closed before the wait: git, stopped in the middle of a blob by an error
        here, gets EPIPE instead of waiting forever for us to read the rest."""
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe:
                pipe.close()
        self.proc.wait()


def _write_entry(blobs: _Blobs, dest: Path, entry: TreeEntry) -> None:
    target = _checked_name(dest, entry.path)
    if os.path.lexists(target):
        return  # (already fetched for another link)
    if entry.mode == "160000":  # a submodule: an empty folder in a checkout
        target.mkdir()
    elif entry.mode == "120000":
        if entry.size > MAX_LINK_TARGET:
            raise DiffSourceError(f"{entry.path}: link target longer than {MAX_LINK_TARGET} bytes")
        link = blobs.copy(entry.sha, None)
        if b"\0" in link:
            raise DiffSourceError(f"{entry.path}: link target holds a NUL byte")
        os.symlink(os.fsdecode(link), target)
    else:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as out:
            if entry.size > MAX_FILE_BYTES:
                out.truncate(entry.size)  # sparse: the loader refuses it by its size unread
            else:
                blobs.copy(entry.sha, out)


def _missing_targets(dest: Path, links: list[Path], complete: set[str]) -> tuple[set, set]:
    """(names to fetch one entry of, folders to fetch whole) so that each link of `links` leads
    where it leads in a checkout: the first missing step of its target inside `dest`, or the
    target folder itself when only part of it is here."""
    base = os.path.realpath(dest)
    single, whole = set(), set()
    for link in links:
        target = os.path.realpath(link)
        if os.path.commonpath([base, target]) != base:
            continue  # outside the root: the loader refuses it unread
        rel = PurePosixPath(os.path.relpath(target, base))
        if os.path.isdir(target):
            if not any(
                rel == PurePosixPath(c) or PurePosixPath(c) in rel.parents for c in complete
            ):
                whole.add(rel.as_posix())
            continue
        step = PurePosixPath()
        for part in rel.parts:
            step = step / part
            if not os.path.lexists(Path(base, step)):
                single.add(step.as_posix())
                break
    return single, whole


def _links(dest: Path) -> list[Path]:
    """Every link under `dest` (not followed)."""
    found = []
    for folder, dirs, files in os.walk(dest):
        found += [Path(folder, n) for n in dirs + files if os.path.islink(os.path.join(folder, n))]
    return sorted(found)


def export_ref(root: Path, ref: str, dest: Path) -> Path:
    """The recipes root `root` as it is committed at git `ref`, as far as the loader reads it,
    written under `dest`; returns that root."""
    top, tree = _resolve(root, ref)
    dest.mkdir(parents=True, exist_ok=True)
    blobs = _Blobs(top)
    try:
        entries = list_tree(top, tree, list(ROOT_INPUTS))
        complete = set(ROOT_INPUTS)
        asked_single: set[str] = set()
        for _ in range(MAX_LINK_ROUNDS):
            for entry in entries:
                _write_entry(blobs, dest, entry)
            single, whole = _missing_targets(dest, _links(dest), complete)
            single, whole = single - asked_single, whole - complete
            if not (single or whole):
                break
            asked_single |= single
            complete |= whole
            entries = list_tree(top, tree, sorted(whole))
            for entry in list_tree(top, tree, sorted(single), recursive=False):
                if entry.mode == "040000":
                    _checked_name(dest, entry.path, folder=True)  # its parts come as needed
                else:
                    entries.append(entry)
    finally:
        blobs.close()
    return dest


def build_side(root: Path, out: Path, name: str) -> Path:
    """Build the recipes root `root` into `out` (a fresh folder); a side that fails to build is an error."""
    from recipes_site.build import build

    result = build(root, out)
    if not result.ok:
        # named as in the recipes root, not by the diff's temporary folder
        shown = "\n".join(d.format() for d in errors(result.diagnostics)[:20])
        shown = shown.replace(f"{os.path.abspath(root)}{os.sep}", "")
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
