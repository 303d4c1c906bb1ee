"""Writing the output folder all at once: a failed build leaves the previous site untouched.

Everything is written into a sibling staging folder first (by the build's worker processes and
then the main process) and swapped in with two renames, so readers (a preview server, a deploy
job) never see a half-written site.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path


def encode_json(doc) -> bytes:
    """Deterministic, compact JSON (key order is the documents' own insertion order)."""
    return (json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def write_files(folder: Path, files: dict[str, bytes]) -> int:
    made: set[Path] = set()
    for rel in sorted(files):
        target = folder / rel
        if target.parent not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(target.parent)
        target.write_bytes(files[rel])
    return len(files)


@contextmanager
def staged_output(out: Path):
    """Yield a staging folder; on a clean exit it replaces `out`, on an exception it vanishes."""
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    try:
        yield staging
        if out.exists():
            retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
            os.rename(out, retired / "site")
            os.rename(staging, out)
            shutil.rmtree(retired, ignore_errors=True)
        else:
            os.rename(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def write_tree(out: Path, files: dict[str, bytes]) -> None:
    with staged_output(out) as staging:
        write_files(staging, files)
