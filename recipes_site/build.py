"""The pipeline: catalog -> synthesis -> documents (JSON API, HTML pages) -> atomic write.

Each recipe's files depend only on that recipe (and the shared vocabulary), so that part runs
in worker processes that write straight into the staging folder; the catalog-wide documents
(indexes) are assembled afterwards from small per-recipe summaries. No file's content depends
on scheduling, and the staging folder replaces the output only when everything succeeded
(write.py: locking, the atomic swap, cleanup after killed builds; outdir.py: which folders a
build may replace at all).
"""
from __future__ import annotations

import multiprocessing
import os
import signal
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from recipes_site.catalog import Catalog, load_catalog
from recipes_site.catalog.diagnostics import Diagnostic, errors
from recipes_site.catalog.types import recipe_json_schema
from recipes_site.outdir import check_output
from recipes_site.posix import die_with_parent
from recipes_site.render.api import RecipeInput, RecipeSummary, catalog_documents, recipe_documents
from recipes_site.render.pages import catalog_pages, recipe_pages
from recipes_site.render.schemas import published_schemas
from recipes_site.synthesis import Context, synthesize_recipe
from recipes_site.write import encode_json, staged_output, write_files


@dataclass
class BuildResult:
    diagnostics: list[Diagnostic]
    files_checked: int = 0
    files_written: int = 0
    recipes: list[str] = field(default_factory=list)   # ids of the recipes built

    @property
    def ok(self) -> bool:
        return not errors(self.diagnostics)


def synthesis_context(catalog: Catalog) -> Context:
    strategies = {**catalog.strategies, **catalog.kv_stores}
    return Context(profiles=catalog.hardware_profiles(), strategies=strategies,
                   kv_ids=tuple(catalog.kv_stores))


def synthesize_catalog(catalog: Catalog) -> list[RecipeInput]:
    ctx = synthesis_context(catalog)
    standalone = {doc.hf_id for doc in catalog.recipes}
    return [RecipeInput(doc.hf_id, doc.data, synthesize_recipe(ctx, doc.hf_id, doc.data, standalone))
            for doc in catalog.recipes]


def recipe_files(catalog: Catalog, index: int) -> tuple[dict[str, bytes], RecipeSummary]:
    """Everything written for one recipe, encoded, plus its summary for the indexes."""
    ctx = synthesis_context(catalog)
    doc = catalog.recipes[index]
    standalone = {d.hf_id for d in catalog.recipes}
    rec = RecipeInput(doc.hf_id, doc.data, synthesize_recipe(ctx, doc.hf_id, doc.data, standalone))
    docs, summary = recipe_documents(rec, ctx)
    files = {path: encode_json(d) for path, d in docs.items()}
    files.update(recipe_pages(catalog, rec, ctx, docs))
    return files, summary


_WORKER_STATE: tuple | None = None


def _worker_init(catalog: Catalog, staging: Path | None, parent: int | None = None) -> None:
    """Per-process state; a forked worker also dies with its parent and leaves signals to it.

    A build killed with SIGKILL cannot stop its workers, so each asks the kernel to kill it
    when the parent goes (`die_with_parent`). Ctrl-C reaches the whole process group: workers
    ignore SIGINT so only the parent reacts (cleanly, without worker tracebacks), and SIGTERM
    gets its default action back (the parent's handler is inherited through fork)."""
    global _WORKER_STATE
    _WORKER_STATE = (catalog, staging)
    if parent is not None:
        die_with_parent(parent)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _worker(index: int) -> tuple[int, RecipeSummary]:
    """Build one recipe's files and write them straight into the staging folder."""
    catalog, staging = _WORKER_STATE
    files, summary = recipe_files(catalog, index)
    return write_files(staging, files), summary


def jobs() -> int:
    """Worker processes: RECIPES_SITE_JOBS, else one per core; 1 means in-process."""
    wanted = os.environ.get("RECIPES_SITE_JOBS")
    return max(1, int(wanted)) if wanted and wanted.isdigit() else (os.cpu_count() or 1)


def write_recipes(catalog: Catalog, staging: Path) -> list[tuple[int, RecipeSummary]]:
    """Every recipe's files, written into `staging`; returns (files written, summary) per recipe."""
    indexes = range(len(catalog.recipes))
    n = min(jobs(), len(catalog.recipes))
    if n <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        _worker_init(catalog, staging)
        return [_worker(i) for i in indexes]
    pool = ProcessPoolExecutor(n, mp_context=multiprocessing.get_context("fork"),
                               initializer=_worker_init, initargs=(catalog, staging, os.getpid()))
    try:
        return list(pool.map(_worker, indexes, chunksize=2))
    finally:   # on an error or a signal, drop the queued recipes instead of building them all first
        pool.shutdown(wait=True, cancel_futures=True)


def catalog_files(catalog: Catalog, summaries: list[RecipeSummary]) -> dict[str, bytes]:
    """The documents and pages that span recipes: indexes, vocabulary, schemas, static assets."""
    docs = catalog_documents(summaries, catalog.taxonomy, {**catalog.strategies, **catalog.kv_stores})
    from recipes_site.site_config import site_config
    docs.update(published_schemas(site_config(catalog.root).site_url, recipe_json_schema()))
    files = {path: encode_json(doc) for path, doc in docs.items()}
    files.update(catalog_pages(catalog, docs))
    return files


def build(root: Path, out: Path) -> BuildResult:
    """Validate and build `root` into `out`. Raises OutputRefused (before reading anything) when
    `out` is not a folder a build may replace, OSError when the file system fails."""
    check_output(out, root)
    catalog, diags = load_catalog(root)
    result = BuildResult(diagnostics=diags, files_checked=catalog.files_checked)
    if not result.ok:
        return result
    with staged_output(out, root) as staging:
        written = write_recipes(catalog, staging)
        summaries = [summary for _, summary in written]
        result.files_written = sum(n for n, _ in written) + write_files(staging, catalog_files(catalog, summaries))
    result.recipes = [s.hf_id for s in summaries]
    return result
