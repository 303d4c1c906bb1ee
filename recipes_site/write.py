"""Writing the output folder all at once: a failed or killed build leaves the previous site whole.

Everything is written into a sibling staging folder `.<name>.new-XXXXXXXX` (by the build's worker
processes, then the main process) and swapped in with one atomic exchange (renameat2
RENAME_EXCHANGE), so readers (the preview server, a deploy job) see the complete old site or the
complete new one at every instant; after the exchange the old site sits in the staging folder's
place and is deleted. Where the system cannot exchange, two renames are the fallback (a brief
gap). A kill at any point leaves the output complete; what it strands (a staging folder, an old
site) is removed by the next build into the same folder, which is safe because builds of one
output hold an exclusive lock (`.<name>.lock`) for their whole run, so a staging folder found
under the lock belongs to a dead build.

Only a folder `outdir.check_output` accepts is replaced, and the writer itself refuses any path
that would land outside the staging folder (absolute, `..`, or through a symlink): recipe ids
come from strangers, and validation is not the only line of defence.
"""

from __future__ import annotations

import errno
import json
import os
import re
import secrets
import shutil
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path

import orjson

from recipes_site.errors import UnsafePath
from recipes_site.outdir import GENERATOR, MANIFEST, check_output, read_manifest, scan_tree
from recipes_site.posix import exchange, exclusive_lock

DIR_MODE, FILE_MODE = 0o755, 0o644  # a published site is world-readable whatever the umask


# One encoder for every document, for the files and for the JSON the pages embed (pages.py).
# orjson writes the same bytes as `json.dumps(doc, ensure_ascii=False, separators=(",", ":"))`
# for strings (every code point: tests/test_write_json.py), ints, bools, None and floats in
# [1e-4, 1e16), at a fraction of its CPU (encoding is a few percent of a build with the standard
# encoder). Where the two differ, orjson's text is the published one and is still valid JSON:
# floats outside that range (1e-05 becomes 0.00001; none in either corpus), NaN and infinities
# (null, where json writes the invalid `NaN`). What orjson refuses (ints beyond 64 bits,
# non-string keys, lone surrogates, nesting deeper than 255, types it does not know) goes to the
# standard library's encoder: a document containing a date or another unknown type still fails
# loudly. check_circular=False there: the documents are trees of fresh data (YAML aliases are
# copied, and a recursive one is refused); a cycle would still fail, as RecursionError.
_ORJSON_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
_fallback_text = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), check_circular=False
).encode


def _refused(value):
    raise TypeError(f"orjson leaves {type(value).__name__} to the standard encoder")


def encode_json(doc) -> bytes:
    """Deterministic, compact JSON bytes with a final newline (key order is the documents' own
    insertion order)."""
    try:
        return orjson.dumps(
            doc, default=_refused, option=_ORJSON_OPTIONS | orjson.OPT_APPEND_NEWLINE
        )
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return _fallback_text(doc).encode("utf-8") + b"\n"


def json_text(doc) -> str:
    """`encode_json`'s text, without the newline."""
    try:
        return orjson.dumps(doc, default=_refused, option=_ORJSON_OPTIONS).decode("utf-8")
    except TypeError:
        return _fallback_text(doc)


def stat_stamp(st: os.stat_result) -> list[int]:
    """What a cache entry (cache.py) records of a file it lists: a hand edit or a replaced file
    changes it."""
    return [st.st_ino, st.st_size, st.st_mtime_ns]


def file_stamp(path: Path | str) -> list[int]:
    return stat_stamp(os.lstat(path))


def manifest_bytes(files: list[str] | None) -> bytes:
    """The manifest document (outdir.py): `files` is None while a build is still writing (staging)."""
    return encode_json({"generator": GENERATOR, "files": files})


def _parts(rel: str) -> list[str]:
    """The components of a relative document path, refusing ones that could climb out."""
    if not isinstance(rel, str) or not rel or "\0" in rel:
        raise UnsafePath(f"refusing to write {rel!r}: not a usable relative path")
    if rel.startswith("/") or os.path.isabs(rel):
        raise UnsafePath(f"refusing to write {rel!r}: an absolute path, outside the output folder")
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise UnsafePath(f"refusing to write {rel!r}: '..' would leave the output folder")
    if not parts:
        raise UnsafePath(f"refusing to write {rel!r}: it names the output folder itself")
    return parts


def _make_dirs(base: Path, parts: list[str], made: dict | None = None) -> Path:
    """Create base/parts... (mode 0755) and return it, refusing a chain that resolves outside base.

    `made` (folder parts -> path) remembers folders already made or checked in this write, so
    each folder is created or checked once however many files go into it or below it."""
    made = {} if made is None else made
    dirs = tuple(parts)
    if not dirs:
        return base
    folder = made.get(dirs)
    if folder is None:
        folder = _make_dirs(base, parts[:-1], made) / dirs[-1]
        try:
            os.mkdir(folder, DIR_MODE)
            os.chmod(folder, DIR_MODE)
        except FileExistsError:  # checked before anything is created below it
            real = folder.resolve()
            if real != base and base not in real.parents:
                raise UnsafePath(
                    f"refusing to write into {'/'.join(dirs)!r}: it resolves to {real}, "
                    "outside the output folder"
                ) from None
        made[dirs] = folder
    return folder


def _same_file(previous: Path, parts: list[str], data: bytes) -> Path | None:
    """`previous/parts` when it is a regular file (no symlink anywhere on the way) holding exactly
    `data`, else None: that file can be hard-linked instead of written again."""
    source = previous.joinpath(*parts)
    try:
        if os.path.realpath(source.parent) != str(previous.joinpath(*parts[:-1])):
            return None
        fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if (
            not stat.S_ISREG(st.st_mode)
            or st.st_size != len(data)
            or stat.S_IMODE(st.st_mode) != FILE_MODE
        ):
            return None
        return source if f.read() == data else None


def _create(target: Path):
    """A new file at `target`, opened for writing. An existing regular file is unlinked first,
    never truncated: it may be a hard link into the previous site (see link_files); an existing
    symlink is refused (ELOOP), as O_NOFOLLOW would."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(target, flags, FILE_MODE)
    except FileExistsError:
        if stat.S_ISLNK(os.lstat(target).st_mode):
            raise OSError(errno.ELOOP, "refusing to write through a symlink", str(target)) from None
        os.unlink(target)
        return os.open(target, flags, FILE_MODE)


def _write_all(fd: int, data: bytes) -> None:
    """All of `data` into `fd` with plain write(2) calls: a buffered file object around the fd
    (os.fdopen) would add an fstat, an ioctl and an lseek for every file of the site."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_files(
    folder: Path,
    files: dict[str, bytes],
    previous: Path | None = None,
    made: dict | None = None,
    stamps: dict | None = None,
) -> int:
    """Write `files` (relative path -> bytes) under `folder`; returns how many.

    Each path is checked before anything is written for it: no absolute path, no `..`, no
    folder that resolves (after symlinks) outside `folder`, no symlink as the file itself
    (O_NOFOLLOW). Files are 0644 and folders 0755 explicitly, not whatever the umask leaves.
    With `previous` (the site being replaced), a file whose bytes equal the previous site's file
    at the same path is hard-linked from it instead of written: unchanged files are not rewritten.

    `made`: the folders already made or checked under `folder` by earlier calls of the same
    writer (see _make_dirs); a build's worker passes one per staging folder, which only it
    writes into, so that api/v1/... is not created and checked again for every recipe.
    `stamps`: filled with each file's file_stamp, taken from the open file (no lstat)."""
    base = Path(folder).resolve()
    prev = Path(previous).resolve() if previous is not None and os.path.isdir(previous) else None
    made = {} if made is None else made
    if made.setdefault(None, base) != base:  # its paths lie under the folder it was made for
        raise ValueError(f"write_files: a folder memo of {made[None]} used for {base}")
    for rel in sorted(files):
        parts = _parts(rel)
        parent = _make_dirs(base, parts[:-1], made)
        target = parent / parts[-1]
        same = _same_file(prev, parts, files[rel]) if prev is not None else None
        if same is not None:
            try:
                os.link(same, target, follow_symlinks=False)
                if stamps is not None:
                    stamps[rel] = stat_stamp(os.lstat(target))
                continue
            except OSError:
                pass  # already there (replaced below), or no hard links here: write it
        fd = _create(target)
        try:
            try:
                os.fchmod(fd, FILE_MODE)
                _write_all(fd, files[rel])
                if stamps is not None:
                    stamps[rel] = stat_stamp(os.fstat(fd))
            finally:
                os.close(fd)
        except OSError as exc:  # ENOSPC/EFBIG name no file: say which one, for the error line
            if exc.filename is None:
                raise OSError(exc.errno, exc.strerror, str(target)) from None
            raise
    return len(files)


def link_files(folder: Path, previous: Path, rels) -> None:
    """Hard-link each of `rels` from the previous site into `folder` (the cache's hits): the same
    path checks as write_files on the target side; the caller has checked the sources' stamps.

    This is most of a rebuild's file work (12,000 links at 1,000 recipes), so paths are plain
    strings, each folder is checked and created once, and a source folder counts as plain when
    its parent does and it is a real folder itself (one lstat, not a realpath per folder)."""
    base, prev = Path(folder).resolve(), str(Path(previous).resolve())
    made: dict[tuple[str, ...], Path] = {}
    targets: dict[tuple[str, ...], str] = {}
    plain: dict[tuple[str, ...], bool] = {(): True}

    def plain_source(dirs: tuple[str, ...]) -> bool:
        if dirs not in plain:
            try:
                is_dir = stat.S_ISDIR(os.lstat(os.path.join(prev, *dirs)).st_mode)
            except OSError:
                is_dir = False
            plain[dirs] = is_dir and plain_source(dirs[:-1])
        return plain[dirs]

    for rel in sorted(rels):
        parts = _parts(rel)
        dirs = tuple(parts[:-1])
        parent = targets.get(dirs)
        if parent is None:
            if not plain_source(dirs):
                raise UnsafePath(
                    f"refusing to reuse {rel!r}: its folder in the previous site is not a plain folder"
                )
            parent = targets[dirs] = str(_make_dirs(base, parts[:-1], made))
        source, target = os.path.join(prev, *parts), f"{parent}/{parts[-1]}"
        try:
            os.link(source, target, follow_symlinks=False)
        except FileExistsError:
            if stat.S_ISLNK(os.lstat(target).st_mode):
                raise OSError(errno.ELOOP, "refusing to replace a symlink", target) from None
            os.unlink(target)
            os.link(source, target, follow_symlinks=False)


def _staging_pattern(out: Path) -> re.Pattern:
    """Names of this output's staging and retired folders (tempfile's 8-character suffixes)."""
    return re.compile(rf"\.{re.escape(out.name)}\.(new|old)-[a-z0-9_]{{8}}")


def remove_stale(out: Path) -> list[Path]:
    """Delete staging/retired folders of `out` that a killed build left; returns them.

    Called under the output's lock, so none belongs to a live build; each must also be a real
    folder carrying our manifest, so a stranger's folder that merely matches the name stays."""
    pattern, removed = _staging_pattern(out), []
    for entry in sorted(out.parent.iterdir()):
        if (
            pattern.fullmatch(entry.name)
            and not entry.is_symlink()
            and entry.is_dir()
            and read_manifest(entry) is not None
        ):
            shutil.rmtree(entry)
            removed.append(entry)
    return removed


def _seal(staging: Path) -> None:
    """Remove the folders left empty (a recycled staging folder's: a build never makes one) and
    write the manifest listing every file of the finished tree (sorted: builds stay identical)."""
    files, entries, parent = [], {os.fspath(staging): 0}, {}
    for name, entry in scan_tree(staging):
        folder = os.path.dirname(entry.path)
        entries[folder] += 1
        if entry.is_dir(follow_symlinks=False):
            entries[entry.path], parent[entry.path] = 0, folder
        elif entry.is_file(follow_symlinks=False) and name != MANIFEST:
            files.append(name)
    empty = [path for path, count in entries.items() if count == 0 and path in parent]
    while empty:  # a folder whose last entry goes may leave its parent empty in turn
        path = empty.pop()
        os.rmdir(path)
        up = parent[path]
        entries[up] -= 1
        if entries[up] == 0 and up in parent:
            empty.append(up)
    write_files(staging, {MANIFEST: manifest_bytes(sorted(files))})


def _swap(staging: Path, out: Path) -> None:
    """Put `staging` at `out`, atomically when the system allows; the old site ends in `staging`."""
    if not os.path.lexists(out):
        os.rename(staging, out)
        return
    if exchange(staging, out):
        return
    retired = out.parent / f".{out.name}.old-{secrets.token_hex(4)}"  # fallback: a brief gap
    os.rename(out, retired)
    os.rename(staging, out)
    os.rename(retired, staging)


def spare_path(out: Path) -> Path:
    """Where a long-lived process (`serve`) keeps the site before the current one, to recycle as
    the next build's staging folder (see recycle); not a staging name, so remove_stale leaves it."""
    return out.parent / f".{out.name}.spare"


def _ours(folder: Path) -> bool:
    return (
        not os.path.islink(folder) and os.path.isdir(folder) and read_manifest(folder) is not None
    )


def recycle(staging: Path, previous: Path, keep: dict[str, list[int]]) -> set[str]:
    """Empty a staging folder of every file but those of `keep` (relative path -> the stamp of
    the file of `previous`, the current output, there, which the cache has checked) that already
    are that very file (a hard link: the same inode); returns the paths kept, which need no
    linking. Folders stay, for the files written next; those left empty go when the staging
    folder is sealed (_seal). Why: a staging folder recycled from the previous site already holds
    almost every file and folder of the next one, and creating 3,400 folders and deleting as many
    per rebuild costs seconds on a busy disk. Whatever the folder held (a killed build's leftovers
    included), afterwards it holds only files the build would link there anyway."""
    kept, doomed = set(), []
    if keep and os.stat(staging).st_dev != os.stat(previous).st_dev:
        keep = {}  # inode numbers compare only within one file system
    for name, entry in scan_tree(staging):
        if entry.is_dir(follow_symlinks=False):
            continue
        if name == MANIFEST or (
            name in keep and entry.is_file(follow_symlinks=False) and entry.inode() == keep[name][0]
        ):
            kept.add(name)  # the previous site's file itself (no stat: the inode is in the folder)
        else:
            doomed.append(entry.path)  # a changed file, a symlink, anything else
    for path in doomed:
        os.unlink(path)
    return kept - {MANIFEST}


def _folder_stamp(path: Path) -> tuple | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_mode, st.st_mtime_ns, st.st_ctime_ns


def _link_spare(out: Path, spare: Path) -> None:
    """A copy of `out` made of hard links (its manifest included), renamed to `spare` when whole."""
    manifest = read_manifest(out)
    if manifest is None:  # replaced by someone else since the swap: nothing of ours to copy
        return
    folder = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    try:
        os.chmod(folder, DIR_MODE)
        link_files(folder, out, list(manifest["files"]) + [MANIFEST])
        os.rename(folder, spare)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def staged_output(
    out: Path,
    root: Path | None = None,
    on_swapped=None,
    checked: bool = False,
    spare: bool = False,
    keep_spare: bool = False,
):
    """Yield a staging folder; on a clean exit it replaces `out`, on any exception it vanishes.

    Refuses (OutputRefused) before creating anything when `out` is not ours to replace; `root`
    is the recipes root, which must not be inside or hold the output. `on_swapped()` runs right
    after the swap, before the old site is deleted (the preview server reloads its pages then).
    `checked`: the caller has just called check_output(out, root) itself (build does, before
    reading the recipes), so the first check is not repeated, and the one under the lock only
    when the folder changed meanwhile; the one just before the swap always runs.

    `spare`: the caller calls recycle() on the staging folder before writing into it, so a spare
    site that a previous build kept (spare_path, ours by its manifest) may be the staging folder.
    `keep_spare`: keep the old site as that spare instead of deleting it (`serve`)."""
    out = Path(os.path.abspath(out)).resolve() if checked else check_output(out, root)
    before = _folder_stamp(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with exclusive_lock(
        out.parent / f".{out.name}.lock", f"waiting for another build into {out} to finish"
    ):
        # again if a build we waited for may have changed it (its swap gives `out` a new inode);
        # otherwise the check just made stands until the one before the swap, which always walks
        if not (checked and before is not None and _folder_stamp(out) == before):
            out = check_output(out, root)
        remove_stale(out)
        staging, spare_dir = None, spare_path(out)
        if spare and _ours(spare_dir):  # renamed to a staging name: a killed build leaves it stale
            staging = out.parent / f".{out.name}.new-{secrets.token_hex(4)}"
            try:
                os.rename(spare_dir, staging)
                if not stat.S_ISDIR(os.lstat(staging).st_mode):  # swapped for a symlink meanwhile
                    raise OSError(errno.ENOTDIR, "not a folder", str(staging))
            except OSError:
                staging = None
        if staging is None:
            staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
        try:
            os.chmod(staging, DIR_MODE)
            write_files(
                staging, {MANIFEST: manifest_bytes(None)}
            )  # marks it as ours while unfinished
            yield staging
            _seal(staging)
            check_output(out, root)
            _swap(staging, out)
            if on_swapped is not None:
                on_swapped()
            if keep_spare and not os.path.lexists(spare_dir):
                if os.path.isdir(staging):
                    os.rename(staging, spare_dir)
                else:  # the first site in this folder: a spare of hard links, so the next rebuild has one too
                    try:
                        _link_spare(out, spare_dir)
                    except OSError:
                        pass  # a spare only saves the next rebuild time
        finally:
            shutil.rmtree(staging, ignore_errors=True)  # the failed build's files, or the old site


def write_tree(out: Path, files: dict[str, bytes], root: Path | None = None) -> None:
    with staged_output(out, root) as staging:
        write_files(staging, files)
