"""The build pipeline end to end on the project's own recipes: warnings, determinism, atomicity."""

from __future__ import annotations

import gc
import json
from pathlib import Path

from catalog_kit import copy_project_root

from recipes_site import build as build_module
from recipes_site.build import build
from recipes_site.catalog import PROJECT_ROOT
from recipes_site.catalog.diagnostics import Level


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def _copy_project(tmp_path: Path) -> Path:
    return copy_project_root(tmp_path / "root")


def test_project_recipes_build_without_any_warning(project_site):
    _, result = project_site
    assert [d.format() for d in result.diagnostics if d.level is Level.WARNING] == []
    assert len(result.recipes) >= 7


def test_build_is_byte_identical_across_runs(project_site, tmp_path):
    first, _ = project_site
    again = tmp_path / "again"
    assert build(PROJECT_ROOT, again).ok
    assert _tree(first) == _tree(again)


def test_build_gives_the_garbage_collector_back_as_it_found_it(tmp_path):
    """A build raises the collector's thresholds and freezes the loaded catalog (for speed); the
    long-running `serve` process must get both back, or each rebuild's catalog would stay frozen."""
    before = gc.get_threshold()
    assert build(PROJECT_ROOT, tmp_path / "site").ok
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_failed_build_writes_nothing_and_keeps_the_previous_site(tmp_path):
    root = _copy_project(tmp_path)
    out = tmp_path / "_site"
    assert build(root, out).ok
    before = _tree(out)
    recipe = root / "models" / "Qwen" / "Qwen3-8B.yaml"
    recipe.write_text(recipe.read_text().replace("variants:", "varaints:", 1))
    result = build(root, out)
    assert not result.ok
    assert any(
        d.key_path == "varaints" and "did you mean 'variants'" in d.hint for d in result.diagnostics
    )
    assert _tree(out) == before
    # no staging folder left behind; the cache of the first build stays beside (cache.py)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".recipes-site-cache", "_site", "root"]


def test_successful_build_replaces_stale_files(tmp_path):
    # A folder holding files the build did not write is refused (tests/test_security_output.py);
    # the stale files a rebuild must drop are the previous build's own, e.g. a removed recipe's.
    root = _copy_project(tmp_path)
    out = tmp_path / "_site"
    assert build(root, out).ok
    stale = out / "api" / "v1" / "models" / "Qwen" / "Qwen3-8B.json"
    assert stale.is_file()
    (root / "models" / "Qwen" / "Qwen3-8B.yaml").unlink()
    assert build(root, out).ok
    assert not stale.exists()
    assert (out / "api" / "v1" / "models.json").is_file()


def test_seed_example_70b_bf16_needs_two_h100(project_site):
    out, _ = project_site
    doc = json.loads((out / "api/v1/models/meta-llama/Llama-3.3-70B-Instruct.json").read_text())
    sizing = doc["sizing"]["default"]
    assert sizing["computed_vram_gb"] == 168
    h100 = sizing["hardware"]["h100"]
    assert (h100["min_gpus"], h100["tensor_parallel"], h100["replicas_per_node"]) == (2, 2, 4)
    assert h100["fits_one_gpu"] is False and h100["fits_one_node"] is True


def test_models_index_lists_recipes_and_their_checkpoints(project_site):
    out, _ = project_site
    index = json.loads((out / "api/v1/models.json").read_text())
    ids = [m["id"] for m in index["models"]]
    assert "meta-llama/Llama-3.3-70B-Instruct" in ids
    fp8 = [c for c in index["checkpoints"] if c["id"] == "nvidia/Llama-3.3-70B-Instruct-FP8"]
    assert fp8 == [
        {
            "id": "nvidia/Llama-3.3-70B-Instruct-FP8",
            "recipe": "meta-llama/Llama-3.3-70B-Instruct",
            "variant": "fp8",
            "json": "/api/v1/models/meta-llama/Llama-3.3-70B-Instruct.json",
            "huggingface": "https://huggingface.co/nvidia/Llama-3.3-70B-Instruct-FP8",
        }
    ]


def test_hardware_document_recommends_and_lists_every_rendering(project_site):
    out, _ = project_site
    model = json.loads((out / "api/v1/models/meta-llama/Llama-3.3-70B-Instruct.json").read_text())
    hw = model["default_hardware"]["default"]
    doc = json.loads(
        (out / f"api/v1/models/meta-llama/Llama-3.3-70B-Instruct/hw/{hw}.json").read_text()
    )
    pick = doc["recommended"]["default"]
    chosen = [
        r
        for r in doc["renderings"]
        if (r["variant"], r["strategy"], r["node_count"])
        == (pick["variant"], pick["strategy"], pick["node_count"])
    ]
    assert len(chosen) == 1
    assert chosen[0]["argv"][:3] == ["vllm", "serve", "meta-llama/Llama-3.3-70B-Instruct"]
    assert chosen[0]["command"].startswith("vllm serve meta-llama/Llama-3.3-70B-Instruct \\\n  ")
    keys = [(r["variant"], r["strategy"], r["node_count"]) for r in doc["renderings"]]
    assert len(keys) == len(set(keys))


def test_the_published_recipe_schema_is_the_models_schema(monkeypatch, tmp_path):
    """The build publishes schema/recipe.schema.json (read, not generated by pydantic per build):
    the same bytes as the models' schema; a missing or broken file falls back to generating it,
    and the file is part of the cache's shared fingerprint (a rewritten file rebuilds the
    catalog-wide files)."""
    from recipes_site import cache
    from recipes_site.catalog import load_catalog
    from recipes_site.catalog.types import recipe_json_schema
    from recipes_site.render import schemas
    from recipes_site.render.pages import TEMPLATES
    from recipes_site.site_config import site_config
    from recipes_site.write import encode_json

    generated = encode_json(recipe_json_schema())
    assert encode_json(build_module._recipe_schema()) == generated
    catalog, _ = load_catalog(PROJECT_ROOT)
    fingerprint = lambda: cache.shared_fingerprint(catalog, site_config(catalog.root), TEMPLATES)  # noqa: E731
    before = fingerprint()
    for content in (None, b"{not json", b"[]"):
        if content is None:
            monkeypatch.setattr(schemas, "RECIPE_SCHEMA_FILE", tmp_path / "missing.json")
        else:
            (tmp_path / "schema.json").write_bytes(content)
            monkeypatch.setattr(schemas, "RECIPE_SCHEMA_FILE", tmp_path / "schema.json")
        assert encode_json(build_module._recipe_schema()) == generated
        assert fingerprint() != before


def _logging_worker(log: Path, fail_in_worker: int | None = None):
    """build.recipe_files, noting which process built each recipe (forked workers inherit the
    patch); optionally failing in a forked worker on one recipe."""
    import os

    real, parent = build_module.recipe_files, os.getpid()

    def recipe_files(catalog, index, *args):
        if index == fail_in_worker and os.getpid() != parent:
            raise OSError(28, "No space left on device", "from a worker")
        with open(log, "a") as f:
            f.write(f"{os.getpid()} {index}\n")
        return real(catalog, index, *args)

    return recipe_files


def test_forked_workers_build_each_recipe_once_and_the_same_bytes(tmp_path, monkeypatch):
    """RECIPES_SITE_JOBS=1 builds in this process; n > 1 shares the recipes out among forked
    workers (each built once, none here), and the site is the same bytes whoever built what."""
    import os

    log = tmp_path / "log1"
    monkeypatch.setenv("RECIPES_SITE_JOBS", "1")
    monkeypatch.setattr(build_module, "recipe_files", _logging_worker(log))
    assert build(PROJECT_ROOT, tmp_path / "one", incremental=False).ok
    assert {line.split()[0] for line in log.read_text().splitlines()} == {str(os.getpid())}
    alone = _tree(tmp_path / "one")
    for jobs in (2, 3):
        log = tmp_path / f"log{jobs}"
        monkeypatch.setenv("RECIPES_SITE_JOBS", str(jobs))
        monkeypatch.setattr(build_module, "recipe_files", _logging_worker(log))
        result = build(PROJECT_ROOT, tmp_path / f"site{jobs}", incremental=False)
        assert result.ok
        by = [line.split() for line in log.read_text().splitlines()]
        assert sorted(int(i) for _, i in by) == list(range(len(result.recipes)))  # each recipe once
        pids = {pid for pid, _ in by}
        assert str(os.getpid()) not in pids and 1 <= len(pids) <= jobs
        assert _tree(tmp_path / f"site{jobs}") == alone


def test_a_forked_build_returns_the_recipes_in_the_order_asked(tmp_path, monkeypatch):
    from recipes_site.catalog import load_catalog

    catalog, _ = load_catalog(PROJECT_ROOT)
    monkeypatch.setenv("RECIPES_SITE_JOBS", "2")
    staging = tmp_path / "staging"
    staging.mkdir()
    try:
        results = build_module.write_recipes(catalog, staging, [5, 3, 4])
    finally:
        gc.unfreeze()  # (write_recipes freezes the loaded catalog; build() gives it back)
    assert [summary.hf_id for _, summary, _ in results] == [
        catalog.recipes[i].hf_id for i in (5, 3, 4)
    ]


def test_an_error_in_a_forked_worker_fails_the_build_and_writes_nothing(tmp_path, monkeypatch):
    import pytest

    monkeypatch.setenv("RECIPES_SITE_JOBS", "2")
    monkeypatch.setattr(
        build_module, "recipe_files", _logging_worker(tmp_path / "log", fail_in_worker=0)
    )
    with pytest.raises(OSError, match="No space left on device"):
        build(PROJECT_ROOT, tmp_path / "site")
    assert not (tmp_path / "site").exists()
    assert "0" not in [line.split()[1] for line in (tmp_path / "log").read_text().splitlines()]
