"""Incremental builds: a recipe whose inputs did not change is neither synthesized nor rendered again.

Why: without it a rebuild with nothing changed costs a full build and rewrites every file, and
`serve` pays that on every save. Each recipe's output is a pure function of
- the recipe itself (its id, file path and loaded data),
- the shared vocabulary (taxonomy, strategies, kv-store specs, platforms) and the site settings,
- the templates and static assets, the package version and its code (every recipes_site/*.py),
- the few facts about other recipes its pages show: the titles of its related recipes, its
  provider's name and "more from this provider" listing, which of its checkpoints are recipes of
  their own, and, for each site link in its guide, whether that page exists,
so a sha256 over exactly those is its *key*. An entry (`<key>.json`) records the files the recipe
produced, each with the (inode, size, mtime) it has in the output folder, plus the recipe's summary
for the catalog-wide indexes. On a hit the build hard-links those files from the current output
into the staging folder (write.py keeps the atomic swap) instead of writing them: a no-change
rebuild writes almost nothing. An entry is used only if every file is still there with the same
inode, size and mtime (a hand edit or a failed build makes it a miss), and only if the guide's
links still resolve as they did; since hard-linked files keep their inode, entries stay valid
build after build, and those no build used are deleted after the swap.

The catalog-wide files (indexes, hardware and provider pages, search shards) have one entry too,
keyed by every recipe's key (catalog_key): a rebuild with no change renders none of them. A
long-lived process (`serve`, keep_in_memory) also keeps the entries it stored, its YAML parses and
the catalog-wide pages it rendered (PageMemo), so after one edit it reads no entry file again and
renders only the pages whose arguments changed.

Entries are JSON (never pickle: the folder sits beside the output, and loading must not run code)
in the folder `.recipes-site-cache/<out>` next to the output (cache_dir), written through
write.write_files (no symlinks followed) and only after a build succeeded. A corrupt or foreign
entry is a miss, never an error.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
from functools import lru_cache
from pathlib import Path

import recipes_site
from recipes_site.catalog.yaml import remember_parses
from recipes_site.render.schemas import recipe_schema_bytes
from recipes_site.write import encode_json, file_stamp, write_files

FORMAT = 1  # bump when the entry layout changes
PACKAGE = Path(recipes_site.__file__).resolve().parent


CACHE_FOLDER = ".recipes-site-cache"


def cache_dir(out: Path) -> Path:
    """`.recipes-site-cache/<name>` beside the output folder: never inside it (the output gets
    published), and not named `.<name>.*` (those are a build's transient files: lock, staging)."""
    return out.parent / CACHE_FOLDER / out.name


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """The package version and every module's bytes: any code change invalidates every entry."""
    h = hashlib.sha256(f"{FORMAT}:{recipes_site.__version__}".encode())
    for path in sorted(PACKAGE.rglob("*.py")):
        h.update(str(path.relative_to(PACKAGE)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _tree_digest(h, folder: Path) -> None:
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes() + b"\0")


def _data_bytes(value) -> bytes:
    """Loaded YAML data as bytes (plain dicts, lists, strings and numbers: pickling is
    deterministic for equal data built in the same key order)."""
    return pickle.dumps(value, protocol=5)


def shared_fingerprint(catalog, config, templates: Path) -> str:
    """What every recipe's output depends on besides the recipe: code, templates, the published
    recipe schema file (render/schemas.py), vocabulary, settings."""
    h = hashlib.sha256(code_fingerprint().encode())
    _tree_digest(h, templates)
    schema = recipe_schema_bytes()
    h.update(b"schema\0" + (schema if schema is not None else b"-") + b"\0")
    h.update(
        _data_bytes((catalog.taxonomy, catalog.strategies, catalog.kv_stores, catalog.platforms))
    )
    h.update(repr(config).encode())
    return h.hexdigest()


def recipe_key(shared: str, doc, neighbours) -> str:
    """The key of one recipe's output; `neighbours` are the facts about other recipes it shows."""
    h = hashlib.sha256(shared.encode())
    h.update(_data_bytes((doc.hf_id, doc.rel_path, doc.data, neighbours)))
    return h.hexdigest()


def catalog_key(shared: str, keys: list[str]) -> str:
    """The key of the catalog-wide files (indexes, hardware and provider pages, search shards):
    they are a function of the shared inputs and every recipe, which the recipes' keys cover."""
    h = hashlib.sha256(f"catalog:{shared}".encode())
    for key in keys:
        h.update(key.encode())
    return h.hexdigest()


class RecordingPaths:
    """The site's page paths, remembering which ones a guide asked about (and the answers)."""

    def __init__(self, paths):
        self.paths, self.asked = paths, {}

    def __contains__(self, path) -> bool:
        answer = self.asked[path] = path in self.paths
        return answer


# The entries a long-lived process stored, by cache folder and key: `serve` then only checks
# their files' stamps instead of reading 1,000 JSON files per rebuild. An entry is a function
# of its key, so a remembered one is as good as its file. None: nothing is remembered.
_SEEN: dict[tuple[str, str], dict] | None = None


class PageMemo:
    """The catalog-wide pages the previous build of this process rendered, by a digest of their
    arguments, for a long-lived process (`serve`): after an edit most hardware and provider
    pages get the same arguments again, and rendering them is most of the catalog-wide work.

    A page is a function of its template, path and arguments, and of what every page shares
    (templates, settings, vocabulary, code: the shared fingerprint), so the memo starts empty
    whenever that changes. Arguments that cannot be pickled are rendered every time."""

    def __init__(self):
        self.shared, self.pages, self.used = None, {}, {}

    def start(self, shared: str) -> PageMemo:
        """Begin a build: offer the pages of the last build that rendered any (one that reused
        every catalog-wide file renders none), unless the shared inputs changed since."""
        if shared != self.shared:
            self.pages = {}
        elif self.used:
            self.pages = self.used
        self.shared, self.used = shared, {}
        return self

    @property
    def empty(self) -> bool:
        return not self.pages and not self.used

    def render(self, render, template: str, path: str, page: dict) -> bytes:
        try:
            key = hashlib.sha256(pickle.dumps((template, path, page), protocol=5)).digest()
        except (pickle.PicklingError, TypeError, AttributeError):
            return render(template, path, **page)
        data = self.pages.get(key)
        if data is None:
            data = render(template, path, **page)
        self.used[key] = data
        return data


_PAGES: PageMemo | None = None


def keep_in_memory(on: bool = True) -> None:
    """Make this process keep between builds what the next build can use: YAML parses, cache
    entries and rendered catalog-wide pages (`on=False` forgets them). For `serve`, whose
    rebuilds follow each other; a one-shot build has no next build to keep them for."""
    global _SEEN, _PAGES
    remember_parses(on)
    _SEEN, _PAGES = ({}, PageMemo()) if on else (None, None)


def keeping() -> bool:
    """Whether this process keeps builds in memory (keep_in_memory): `serve`."""
    return _PAGES is not None


def page_memo(shared: str) -> PageMemo | None:
    """The page memo for a build with these shared inputs, when this process keeps one."""
    return _PAGES.start(shared) if _PAGES is not None else None


class Cache:
    """The entries of one output folder (see the module docstring)."""

    def __init__(self, out: Path):
        self.out, self.dir = out, cache_dir(out)
        usable = not any(os.path.islink(p) for p in (self.dir, self.dir.parent)) and (
            self.dir.is_dir() or not os.path.lexists(self.dir)
        )
        # reuse only from an output a cached build made (an output copied by hand or built
        # without a cache is rewritten in full once)
        self.enabled = (
            usable and self.dir.is_dir() and os.path.isdir(out) and not os.path.islink(out)
        )
        self.writable = usable

    def lookup(self, key: str, site_paths) -> dict | None:
        """The entry for `key` if every file it names is still the one it recorded, else None."""
        if not self.enabled:
            return None
        try:
            entry = (_SEEN or {}).get((str(self.dir), key)) or self._read(key)
            if entry.get("key") != key or any(
                (p in site_paths) != bool(v) for p, v in entry["links"].items()
            ):
                return None
            out = str(self.out)
            for rel, stamp in entry["files"].items():
                if (
                    rel.startswith("/")
                    or ".." in rel.split("/")
                    or file_stamp(f"{out}/{rel}") != stamp
                ):
                    return None
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None
        return entry

    def _read(self, key: str) -> dict:
        fd = os.open(self.dir / f"{key}.json", os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as f:
            entry = json.loads(f.read())
        if not isinstance(entry, dict) or not isinstance(entry.get("files"), dict):
            raise ValueError("not an entry")
        return entry

    def store(self, entries: dict[str, dict]) -> None:
        """After a successful swap: write the new entries (and any of those used whose file has
        gone meanwhile) and drop every entry this build did not use."""
        if not self.writable:
            return
        try:
            self.dir.mkdir(mode=0o755, parents=True, exist_ok=True)
            if any(os.path.islink(p) for p in (self.dir, self.dir.parent)) or not self.dir.is_dir():
                return
            present = set(os.listdir(self.dir))
            write_files(
                self.dir,
                {
                    f"{key}.json": encode_json({k: v for k, v in entry.items() if k != "new"})
                    for key, entry in entries.items()
                    if entry.get("new") or f"{key}.json" not in present
                },
            )
            keep = {f"{key}.json" for key in entries}
            for name in present:
                if name not in keep and name.endswith(".json"):
                    os.unlink(self.dir / name)
        except OSError:
            return  # a cache that cannot be written only costs the next build time
        if _SEEN is None:
            return
        folder = str(self.dir)
        for seen in [k for k in _SEEN if k[0] == folder and k[1] not in entries]:
            del _SEEN[seen]
        _SEEN.update(
            ((folder, key), {k: v for k, v in entry.items() if k != "new"})
            for key, entry in entries.items()
        )
