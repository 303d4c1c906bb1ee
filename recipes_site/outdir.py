"""Which folder a build may replace: only one it wrote itself, or an empty one.

A build replaces its output folder wholesale, which must never happen to a mistyped `--out`
(the recipes root, `.`, the home folder, a file). Every output carries a manifest,
`.recipes-site-manifest.json`, listing the files the build wrote; an existing `--out` is
replaced only when it is an empty folder, or holds that manifest and no file it does not list
(a file someone added by hand would be lost otherwise). Independently of that marker, some
places are never outputs: `/`, the home folder, the current folder, anything holding the
recipes root, and the root's input folders (models/, strategies/, kv_store/). `check_output`
is called before anything is created, and again under the build lock just before the swap.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

from recipes_site.errors import OutputRefused

MANIFEST = ".recipes-site-manifest.json"
GENERATOR = "recipes-site"
INPUT_FOLDERS = ("models", "strategies", "kv_store")  # the inputs a root may hold (catalog loader)


def read_manifest(folder: Path) -> dict | None:
    """The folder's manifest when it is a well-formed one of ours (not followed through a symlink)."""
    try:
        fd = os.open(folder / MANIFEST, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as f:
            doc = json.loads(f.read())
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and doc.get("generator") == GENERATOR else None


def scan_tree(folder) -> Iterator[tuple[str, os.DirEntry]]:
    """Every entry under `folder` as (relative path, directory entry), descending into real
    folders only (a symlink is an entry, never followed). One `scandir` per folder and no stat per
    entry (the entry's type comes with the listing): a build walks its output several times,
    and a 1,000-recipe site has 12,000 files. An unreadable subfolder raises: it must not hide
    what it holds."""
    stack = [("", os.fspath(folder))]
    while stack:
        rel, path = stack.pop()
        with os.scandir(path) as entries:
            for entry in entries:
                name = f"{rel}/{entry.name}" if rel else entry.name
                if entry.is_dir(follow_symlinks=False):
                    stack.append((name, entry.path))
                yield name, entry


def tree_files(folder: Path) -> tuple[list[str], list[str]]:
    """(regular files, other entries: symlinks, devices, sockets) under `folder`, relative, sorted.

    Symlinks are listed, never followed: the build writes none, so one is always foreign."""
    files, other = [], []
    for name, entry in scan_tree(folder):
        if entry.is_symlink():
            other.append(name)
        elif entry.is_file(follow_symlinks=False):
            files.append(name)
        elif not entry.is_dir(follow_symlinks=False):
            other.append(name)
    return sorted(files), sorted(other)


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _cwd() -> Path | None:
    try:
        return Path.cwd().resolve()
    except OSError:  # the current folder was deleted under us: nothing there to protect
        return None


def _home() -> Path | None:
    try:
        return Path.home().resolve()
    except (RuntimeError, KeyError, OSError):
        return None


def _examples(names: list[str]) -> str:
    shown = ", ".join(names[:3])
    return shown + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def check_output(out: Path, root: Path | None = None) -> Path:
    """The resolved output folder, or OutputRefused saying why it must not be replaced."""
    given = str(out)  # Path("") is "." : an empty --out is the current folder, refused below
    if os.path.islink(out) and not os.path.exists(out):
        raise OutputRefused(f"--out {given} is a symlink to nothing; refusing to write through it")
    target = Path(os.path.abspath(out)).resolve()
    shown = f"--out {given}" + (f" (= {target})" if given != str(target) else "")
    if target == Path(target.anchor):
        raise OutputRefused(f"{shown} is the file system root; refusing to replace it")
    if root is not None:
        root = Path(os.path.abspath(root)).resolve()
        if _inside(root, target):
            what = "is" if root == target else "contains"
            raise OutputRefused(
                f"{shown} {what} the recipes root {root}; refusing to replace it "
                "(choose a new folder, e.g. --out _site)"
            )
        for name in INPUT_FOLDERS:
            if _inside(target, root / name):
                raise OutputRefused(
                    f"{shown} lies inside the recipes' input folder {root / name}; "
                    "refusing to write there (choose a folder outside it, e.g. --out _site)"
                )
    for label, place in (("current folder", _cwd()), ("home folder", _home())):
        if place is not None and _inside(place, target):
            what = "is" if place == target else "contains"
            raise OutputRefused(
                f"{shown} {what} the {label} {place}; refusing to replace it "
                "(choose a new folder, e.g. --out _site)"
            )
    if not os.path.lexists(target):
        return target
    if not target.is_dir():
        raise OutputRefused(f"{shown} exists and is not a folder; refusing to replace it")
    files, other = tree_files(target)
    if not files and not other:
        return target
    manifest = read_manifest(target)
    if manifest is None or not isinstance(manifest.get("files"), list):
        raise OutputRefused(
            f"{shown} holds files recipes-site did not write ({_examples(files + other)}) "
            f"and no {MANIFEST}; refusing to replace it (choose a new or empty folder, "
            "or remove it yourself if it is an old site)"
        )
    listed = set(manifest["files"])
    foreign = other + [f for f in files if f != MANIFEST and f not in listed]
    if foreign:
        raise OutputRefused(
            f"{shown} holds files recipes-site did not write ({_examples(sorted(foreign))}); "
            "refusing to replace it (move them away first)"
        )
    return target
