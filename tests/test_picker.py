"""The picker's parts, joined by the page's assembly rule, give exactly the engine's command for
any feature selection; and every rendering of the API is selectable in the picker."""
from __future__ import annotations

import itertools
import json

import pytest

from recipes_site.build import synthesis_context
from recipes_site.catalog import PROJECT_ROOT, load_catalog
from recipes_site.render.api import RecipeInput
from recipes_site.render.picker import picker_documents, picker_summary
from recipes_site.synthesis import render_choice, synthesize_recipe
from recipes_site.synthesis.types import Rendering


def assemble(process: dict, features: list[dict], selection: dict, docker: bool = False) -> str:
    """The page script's rule (site.js), restated: before + selected feature lines + after."""
    lines = list(process["before"])
    for f in features:
        if f["name"] in selection:
            lines += next(m["lines"] for m in f["modes"] if m["name"] == selection[f["name"]]) if f["modes"] else f["lines"]
    lines += process["after"]
    head = process["docker_head"] if docker else f"vllm serve {process['model']}"
    return head + (" \\\n  " + " \\\n  ".join(lines) if lines else "")


def engine_processes(r: Rendering):
    return [p for p in (r.single, r.head, *r.workers, r.prefill and r.prefill.process,
                        r.decode and r.decode.process, r.kv and r.kv.head, *(r.kv.workers if r.kv else ())) if p]


def selections(features: list[dict]):
    """Every on/off combination, with each modal feature in each of its modes (capped)."""
    options = []
    for f in features:
        states = [None] + ([m["name"] for m in f["modes"]] if f["modes"] else [True])
        options.append([(f["name"], s) for s in states])
    for combo in itertools.islice(itertools.product(*options), 64):
        yield {name: (None if state is True else state) for name, state in combo if state is not None}


@pytest.fixture(scope="module")
def project():
    catalog, _ = load_catalog(PROJECT_ROOT)
    ctx = synthesis_context(catalog)
    standalone = {d.hf_id for d in catalog.recipes}
    recs = [RecipeInput(d.hf_id, d.data, synthesize_recipe(ctx, d.hf_id, d.data, standalone)) for d in catalog.recipes]
    return ctx, recs


def test_joined_parts_equal_the_engine_for_every_feature_selection(project):
    ctx, recs = project
    checked = 0
    for rec in recs:
        for path, doc in picker_documents(rec, ctx).items():
            for entry in doc["renderings"]:
                if entry["features_locked"]:
                    continue
                for sel in selections(entry["features"]):
                    r = render_choice(ctx, rec.data, entry["variant"], doc["hardware"], entry["strategy"],
                                      entry["node_count"] if entry["deploy_type"] == "multi_node" else None, sel)
                    for part, proc in zip(entry["processes"], engine_processes(r)):
                        assert assemble(part, entry["features"], sel) == proc.command, (path, entry["strategy"], sel)
                        assert assemble(part, entry["features"], sel, docker=True) == proc.docker_command
                    checked += 1
    assert checked > 100


def test_default_selection_reproduces_the_api_rendering(project):
    ctx, recs = project
    for rec in recs:
        for tree in rec.rendered.trees:
            for res in tree.by_hardware:
                doc = picker_documents(rec, ctx)[f"{rec.hf_id}/picker/{res.hardware}.json"]
                for r in (res.recommended, *res.alternatives):
                    entry = next(e for e in doc["renderings"]
                                 if (e["variant"], e["strategy"], e["node_count"]) == r.key)
                    default = {f["name"]: (None if f["default"] is True else f["default"])
                               for f in entry["features"] if f["default"] is not False}
                    for part, proc in zip(entry["processes"], engine_processes(r)):
                        assert assemble(part, entry["features"], default) == proc.command


def test_summary_embeds_the_default_hardware_document(project):
    ctx, recs = project
    rec = next(r for r in recs if r.hf_id == "meta-llama/Llama-3.3-70B-Instruct")
    docs = picker_documents(rec, ctx)
    summary = picker_summary(rec, ctx, docs)
    hw = summary["default"]["hardware"]
    assert summary["initial"] == docs[f"{rec.hf_id}/picker/{hw}.json"]
    assert summary["sizing"]["default"]["h100"]["tensor_parallel"] == 2
    json.dumps(summary)  # serialisable
