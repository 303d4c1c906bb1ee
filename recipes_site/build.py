"""The pipeline: catalog -> synthesis -> documents (JSON API, HTML pages) -> atomic write.

Each recipe's files depend only on that recipe (and the shared vocabulary), so that part runs
in a pool of forked worker processes that write straight into the staging folder; the
catalog-wide documents (indexes) are assembled afterwards from small per-recipe summaries. No
file's content depends on scheduling, and the staging folder replaces the output only when
everything succeeded
(write.py: locking, the atomic swap, cleanup after killed builds; outdir.py: which folders a
build may replace at all). A recipe whose inputs are unchanged since the previous build is not
built again: its files are hard-linked from the current output (cache.py). Catalog-wide lookups
(ids, providers, page paths) come from `catalog.index`, built once, never from a per-recipe scan.
"""

from __future__ import annotations

import gc
import json
import multiprocessing
import os
import signal
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from functools import lru_cache
from pathlib import Path

from recipes_site.cache import (
    Cache,
    RecordingPaths,
    catalog_key,
    keeping,
    page_memo,
    recipe_key,
    shared_fingerprint,
)
from recipes_site.catalog import Catalog, load_catalog
from recipes_site.catalog.diagnostics import Diagnostic, errors
from recipes_site.catalog.index import org_of
from recipes_site.catalog.types import recipe_json_schema
from recipes_site.jsish import mapping
from recipes_site.outdir import check_output
from recipes_site.posix import die_with_parent
from recipes_site.render.api import RecipeInput, RecipeSummary, catalog_documents, recipe_documents
from recipes_site.render.benchmark_docs import benchmarks_doc, benchmarks_doc_path
from recipes_site.render.compare import with_compare
from recipes_site.render.pages import (
    TEMPLATES,
    catalog_pages,
    compile_recipe_templates,
    page_neighbours,
    recipe_pages,
)
from recipes_site.render.schemas import published_schemas, recipe_schema_bytes
from recipes_site.runs_on import with_opening_hardware
from recipes_site.site_config import SMALLEST_FIT, SiteConfig, site_config
from recipes_site.site_root import served_under
from recipes_site.synthesis import Context, synthesize_recipe
from recipes_site.write import encode_json, link_files, recycle, staged_output, write_files


@dataclass
class BuildResult:
    diagnostics: list[Diagnostic]
    files_checked: int = 0
    files_written: int = 0  # files of the output (written, or reused: see files_reused)
    files_reused: int = (
        0  # of those, files of unchanged recipes hard-linked from the previous output
    )
    recipes: list[str] = field(default_factory=list)  # ids of the recipes built

    @property
    def ok(self) -> bool:
        return not errors(self.diagnostics)


def synthesis_context(catalog: Catalog) -> Context:
    strategies = {**catalog.strategies, **catalog.kv_stores}
    return Context(
        profiles=catalog.hardware_profiles(),
        strategies=strategies,
        kv_ids=tuple(catalog.kv_stores),
        kv_offload=mapping(catalog.taxonomy.get("kv_offload")),
    )


def synthesized(catalog: Catalog, ctx: Context, doc, config: SiteConfig) -> RecipeInput:
    """One recipe synthesized, each variant opening on the hardware the site's
    `default_hardware` setting picks (site_config.py; runs_on.py for `smallest_fit`)."""
    rendered = synthesize_recipe(ctx, doc.hf_id, doc.data, catalog.index.ids)
    if config.default_hardware == SMALLEST_FIT:
        rendered = with_opening_hardware(rendered, doc.data, ctx.profiles)
    return RecipeInput(doc.hf_id, doc.data, rendered)


def synthesize_catalog(catalog: Catalog) -> list[RecipeInput]:
    ctx, config = synthesis_context(catalog), site_config(catalog.root)
    return [synthesized(catalog, ctx, doc, config) for doc in catalog.recipes]


def recipe_files(
    catalog: Catalog, index: int, known_paths=None, ctx: Context | None = None, config=None
) -> tuple[dict[str, bytes], RecipeSummary]:
    """Everything written for one recipe, encoded, plus its summary for the indexes.

    `known_paths` stands in for the site's page paths (the guide's link check), so that the
    cache can record which ones the guide asked about; `config` is the site configuration
    (site_config.py), read from the recipes root when not given."""
    ctx = ctx or synthesis_context(catalog)
    config = config or site_config(catalog.root)
    doc = catalog.recipes[index]
    rec = synthesized(catalog, ctx, doc, config)
    docs, summary = recipe_documents(rec, ctx)
    results = [b for b in catalog.benchmarks if b.hf_id == doc.hf_id and b.spec is not None]
    if results:
        docs[benchmarks_doc_path(doc.hf_id)] = benchmarks_doc(ctx, doc.hf_id, doc.data, results)
    summary = with_compare(doc.hf_id, docs, ctx.profiles, summary)  # after the benchmarks
    files = {path: encode_json(d) for path, d in docs.items()}
    files.update(recipe_pages(catalog, rec, ctx, docs, config, known_paths=known_paths))
    return files, summary


def recipe_neighbours(catalog: Catalog, doc) -> tuple:
    """What one recipe's files show of other recipes (its cache key includes exactly this):
    related recipes' titles, "more from this provider", the provider's name, and which of its
    checkpoints are recipes of their own (synthesis skips promoting those), and its benchmark
    results (benchmarks/<org>/<repo>/, published in its API)."""
    meta = doc.data.get("meta") if isinstance(doc.data.get("meta"), dict) else {}
    related, more = page_neighbours(catalog, doc.hf_id, meta)
    variants = doc.data.get("variants") if isinstance(doc.data.get("variants"), dict) else {}
    standalone = sorted(
        mid
        for v in variants.values()
        if isinstance(v, dict)
        for mid in [v.get("model_id")]
        if isinstance(mid, str) and mid in catalog.index.ids
    )
    results = [(b.hardware, b.name, b.data) for b in catalog.benchmarks if b.hf_id == doc.hf_id]
    provider = catalog.index.provider_name(org_of(doc.hf_id))
    return related, more, provider, standalone, results


# Young-generation threshold of the cyclic garbage collector during a build (Python's default: 700).
GC_THRESHOLD = (20_000, 20, 10)


@contextmanager
def _build_collector():
    """The cyclic garbage collector tuned for a build, restored afterwards.

    A build allocates millions of short-lived containers (documents, tokens, plans) and makes
    few reference cycles, so with the default thresholds the collector runs hundreds of times per
    build, mostly traversing the long-lived catalog and modules, a large share of the build's
    CPU. Here collections are rarer, and `write_recipes` freezes what is loaded by then
    (gc.freeze: never traversed again, and the forked workers do not copy its pages by touching
    it). Cycles are still collected, so memory stays bounded; objects are freed by reference
    counting as before (no effect on output)."""
    previous = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*previous)
        gc.unfreeze()  # a long-running `serve` collects the old catalog's cycles again


@dataclass
class _WorkerState:
    """What every recipe a process builds shares: set up once per process (_worker_init)."""

    catalog: Catalog
    staging: Path
    previous: Path | None  # the site being replaced, whose equal files are hard-linked
    ctx: Context
    made: dict  # the staging folder's subfolders this process created or checked (write_files)
    config: SiteConfig


_WORKER_STATE: _WorkerState | None = None
_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


@contextmanager
def _held(signals: set):
    """Block `signals` in this thread for the block; arriving ones are delivered afterwards.

    Workers are forked with SIGINT/SIGTERM held, so a Ctrl-C landing between the fork and their
    initializer's SIG_IGN stays pending and is then discarded, instead of raising
    KeyboardInterrupt in a half-started worker (a traceback, and a broken pool: exit 1, not 130)."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, signals)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _worker_init(
    catalog: Catalog, staging: Path, parent: int | None = None, previous: Path | None = None
) -> None:
    """Per-process state; a forked worker also dies with its parent and leaves signals to it.

    A build killed with SIGKILL cannot stop its workers, so each asks the kernel to kill it
    when the parent goes (`die_with_parent`). Ctrl-C reaches the whole process group: workers
    ignore SIGINT so only the parent reacts (cleanly, without worker tracebacks), and SIGTERM
    gets its default action back (the parent's handler is inherited through fork)."""
    global _WORKER_STATE
    if parent is not None:  # first: a Ctrl-C arriving while the state is set up must not reach us
        die_with_parent(parent)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)  # held since the fork (_held)
    _WORKER_STATE = _WorkerState(
        catalog, staging, previous, synthesis_context(catalog), {}, site_config(catalog.root)
    )


def _worker(index: int) -> tuple[dict[str, list[int]], RecipeSummary, dict[str, bool]]:
    """Build one recipe's files and write them straight into the staging folder (hard-linking
    those equal to the previous site's); returns their stamps, the summary and the guide's
    page-path questions with their answers (for the cache entry)."""
    state = _WORKER_STATE
    assert state is not None, "_worker_init sets up the process first"
    known = RecordingPaths(state.catalog.index.site_paths)
    files, summary = recipe_files(state.catalog, index, known, state.ctx, state.config)
    stamps: dict[str, list[int]] = {}
    write_files(state.staging, files, previous=state.previous, made=state.made, stamps=stamps)
    return stamps, summary, known.asked


def jobs() -> int:
    """Processes building recipes: RECIPES_SITE_JOBS, else one per core. 1 means this process
    alone; n means n forked workers."""
    wanted = os.environ.get("RECIPES_SITE_JOBS")
    return max(1, int(wanted)) if wanted and wanted.isdigit() else (os.cpu_count() or 1)


def write_recipes(
    catalog: Catalog,
    staging: Path,
    indexes: list[int] | None = None,
    previous: Path | None = None,
    template_cache: Path | None = None,
) -> list[tuple[dict, RecipeSummary, dict]]:
    """The files of the recipes at `indexes` (default: all), written into `staging`; returns
    (file stamps, summary, guide link answers) per recipe, in order. `template_cache`: where
    jinja keeps the templates' compiled code between builds (the build's cache folder).

    With more than one job the recipes are shared out by a process pool of forked workers: they
    inherit the loaded catalog, the site paths and the compiled templates instead of loading them
    again. Any worker's error fails the build; on an error or a signal the queued recipes are
    dropped rather than built first."""
    indexes = list(range(len(catalog.recipes)) if indexes is None else indexes)
    n = min(jobs(), len(indexes))
    forked = n > 1 and "fork" in multiprocessing.get_all_start_methods()
    _ = catalog.index.site_paths  # built once here, before any fork
    compile_recipe_templates(template_cache)
    gc.freeze()  # the catalog and modules: out of the collector's way (_build_collector)
    if not forked:
        _worker_init(catalog, staging, None, previous)
        return [_worker(i) for i in indexes]
    pool = ProcessPoolExecutor(
        n,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_worker_init,
        initargs=(catalog, staging, os.getpid(), previous),
    )
    try:
        with _held(_STOP_SIGNALS):  # with fork, the first submit starts every worker
            futures = [pool.submit(_worker, indexes[0])]
        futures += [pool.submit(_worker, i) for i in indexes[1:]]
        wait(futures, return_when=FIRST_EXCEPTION)  # a failed recipe ends the build now
        return [future.result() for future in futures]
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _recipe_schema() -> dict:
    """The recipe format's JSON schema (read-only): schema/recipe.schema.json, which `recipes-site
    schema` writes from the pydantic models and test_cli keeps byte-equal to them (generated
    here only when the file is missing or unreadable): the build publishes the committed file
    that editors already use, and reading it is cheaper than having pydantic generate it."""
    return _schema_of(recipe_schema_bytes())


@lru_cache(maxsize=2)
def _schema_of(data: bytes | None) -> dict:
    # per file content, so a rewritten file is read again (`serve`); two entries bound it
    try:
        schema = json.loads(data) if data is not None else None
    except ValueError:
        schema = None
    return schema if isinstance(schema, dict) else recipe_json_schema()


def catalog_files(catalog: Catalog, summaries: list[RecipeSummary], memo=None) -> dict[str, bytes]:
    """The documents and pages that span recipes: indexes, vocabulary, schemas, static assets
    (`memo`: cache.PageMemo, pages rendered by this process's previous build)."""
    docs = catalog_documents(
        summaries, catalog.taxonomy, {**catalog.strategies, **catalog.kv_stores}
    )
    docs.update(published_schemas(site_config(catalog.root).site_url, _recipe_schema()))
    files = {path: encode_json(doc) for path, doc in docs.items()}
    files.update(catalog_pages(catalog, docs, memo=memo))
    return files


def _summary_dict(summary: RecipeSummary) -> dict:
    """A summary as its cache entry stores it: its fields, holding the summary's own values.

    A shallow copy, not dataclasses.asdict's deep one: the values are JSON data that nothing
    changes after recipe_documents made them, and an entry reused from memory (`serve`) already
    shares them with the next build's summaries."""
    return {f.name: getattr(summary, f.name) for f in fields(summary)}


@_build_collector()
def build(root: Path, out: Path, *, incremental: bool = True, on_swapped=None) -> BuildResult:
    """Validate and build `root` into `out`. Raises OutputRefused (before reading anything) when
    `out` is not a folder a build may replace, OSError when the file system fails.

    Incremental (cache.py): a recipe whose inputs match an entry of the output's cache has its
    files hard-linked from the current output instead of being built again, and so have the
    catalog-wide files when no recipe changed; any other file equal to the current output's is
    hard-linked too. `incremental=False` builds and writes everything.
    `on_swapped()` runs as soon as the new site is in place (write.staged_output)."""
    out = check_output(out, root)
    catalog, diags = load_catalog(root)
    result = BuildResult(diagnostics=diags, files_checked=catalog.files_checked)
    if not result.ok:
        return result
    # every site link goes under the path the site is published at (site_root.py); the forked
    # workers inherit it
    with (
        served_under(site_config(catalog.root).root),
        staged_output(
            out, root, on_swapped, checked=True, spare=True, keep_spare=keeping()
        ) as staging,
    ):
        cache = Cache(out)
        previous = out if incremental and cache.enabled else None
        shared = shared_fingerprint(catalog, site_config(catalog.root), TEMPLATES)
        keys = [recipe_key(shared, doc, recipe_neighbours(catalog, doc)) for doc in catalog.recipes]
        paths = catalog.index.site_paths
        entries = [cache.lookup(key, paths) if previous is not None else None for key in keys]
        site_key = catalog_key(shared, keys)
        site = cache.lookup(site_key, paths) if previous is not None and all(entries) else None
        # the staging folder may be a recycled earlier site: keep what it already has right
        present = recycle(
            staging,
            out,
            {
                rel: stamp
                for entry in entries + [site]
                if entry is not None
                for rel, stamp in entry["files"].items()
            },
        )
        misses = [i for i, entry in enumerate(entries) if entry is None]
        template_cache = cache.dir / "templates" if cache.writable else None
        built = iter(write_recipes(catalog, staging, misses, previous, template_cache))
        summaries, stored, reused = [], {}, []
        for key, entry in zip(keys, entries):
            if entry is None:
                stamps, summary, links = next(built)
                entry = {
                    "key": key,
                    "files": stamps,
                    "links": links,
                    "summary": _summary_dict(summary),
                    "new": True,
                }
            else:
                reused.extend(entry["files"])
                summary = RecipeSummary(**entry["summary"])
            stored[key] = entry
            summaries.append(summary)
            result.files_written += len(entry["files"])
        result.files_reused = len(reused)
        memo = page_memo(shared) if incremental else None
        if site is None:
            files = catalog_files(catalog, summaries, memo)
            stamps = {}
            write_files(staging, files, previous=previous, stamps=stamps)
            site = {"key": site_key, "files": stamps, "links": {}, "new": True}
        else:
            reused = reused + list(site["files"])
        stored[site_key] = site
        result.files_written += len(site["files"])
        link_files(staging, out, [rel for rel in reused if rel not in present])
    if incremental:
        cache.store(stored)
    if memo is not None and memo.empty:
        # `serve` started from the cache: render the catalog-wide pages once now, after the
        # swap, so that the first edit finds the pages it does not change in the memo
        catalog_files(catalog, summaries, memo)
    result.recipes = [s.hf_id for s in summaries]
    return result
