"""Issue 28 points 4 and 5: the model document's `compare` block (render/compare.py), the power
facts it reads, and the ranking of hardware pages."""

from __future__ import annotations

import json

import jsonschema
import pytest
from pydantic import ValidationError

from recipes_site import plan, speed, speed_layouts
from recipes_site.build import recipe_files
from recipes_site.catalog.types import HardwareProfile
from recipes_site.render import compare
from recipes_site.render.api import hardware_pages
from recipes_site.render.benchmark_docs import benchmarks_doc_path
from recipes_site.render.hardware_specs import source_link, spec_rows
from recipes_site.render.inputs import hw_doc_path, model_doc_path
from recipes_site.render.picker import SEP
from recipes_site.render.schemas import schema_for

MODEL = "Qwen/Qwen3-8B"


@pytest.fixture(scope="module")
def built(catalog, ctx):
    """(documents by path, summary) of the recipe, as the build writes them."""
    index = next(i for i, d in enumerate(catalog.recipes) if d.hf_id == MODEL)
    files, summary = recipe_files(catalog, index, ctx=ctx)
    docs = {p: json.loads(b) for p, b in files.items() if p.endswith(".json")}
    return docs, summary


@pytest.fixture(scope="module")
def block(built):
    return built[0][model_doc_path(MODEL)]["compare"]


def _rendering(docs, hw, tree="default"):
    doc = docs[hw_doc_path(MODEL, hw)]
    pick = doc["recommended"][tree]
    return next(
        r
        for r in doc["renderings"]
        if (r["variant"], r["strategy"], r["node_count"])
        == (pick["variant"], pick["strategy"], pick["node_count"])
    )


def test_model_document_with_compare_matches_its_schema(built):
    jsonschema.validate(built[0][model_doc_path(MODEL)], schema_for("model"))


def test_every_rendered_hardware_has_a_column_per_variant_tree(built, block):
    docs, _ = built
    for hw in built[0][model_doc_path(MODEL)]["hardware"]:
        for tree in docs[hw_doc_path(MODEL, hw)]["recommended"]:
            assert hw in block["variants"][tree]


@pytest.mark.parametrize("hw", ["h100", "l40s", "h200"])
def test_estimate_is_speed_estimate_of_the_commands_plan(built, block, catalog, ctx, hw):
    docs, _ = built
    r = _rendering(docs, hw)
    p, profile = r["plan"]["default"], ctx.profiles[hw]
    data = next(d.data for d in catalog.recipes if d.hf_id == MODEL)
    shape, gpu = speed_layouts.model_inputs(plan.RecipePlans(data), r["variant"], profile)
    est = speed.estimate(shape, gpu, speed_layouts.plan_layout(p, profile))
    best = max(range(len(est.levels)), key=lambda i: (est.total[i], -est.levels[i]))
    low, high = est.total_range(best)
    entry = block["variants"]["default"][hw]
    assert entry["est"] == pytest.approx([low / p["gpus"], high / p["gpus"]], rel=1e-2)
    assert entry["est_c"] == est.levels[best]
    assert entry["max_concurrency"] == est.kv_max
    assert (entry["gpus"], entry["tp"], entry["kv_tokens"]) == (p["gpus"], p["tp"], p["max_tokens"])


def test_measured_is_the_best_benchmark_result_per_gpu(built, block):
    docs, _ = built
    results = [
        r
        for r in docs[benchmarks_doc_path(MODEL)]["results"]
        if r["hardware"] == "h100" and r["variant"] == "default"
    ]
    best = max(results, key=lambda r: r["metrics"]["output_throughput"] / r["gpus"])
    m = block["variants"]["default"]["h100"]["measured"]
    assert m["tps"] == pytest.approx(best["metrics"]["output_throughput"] / best["gpus"], rel=5e-3)
    assert (m["name"], m["label"], m["url"]) == (best["name"], best["label"], best["source_url"])
    assert m["avg_w"] == pytest.approx(best["metrics"]["avg_power_w"] * best["gpus"], rel=5e-3)
    assert block["benchmarks"].endswith(benchmarks_doc_path(MODEL))
    assert "measured" not in block["variants"]["default"]["l40s"]  # no result there


def test_command_lines_rebuild_each_hardware_documents_command(built, block):
    docs, _ = built
    for hw, entry in block["variants"]["default"].items():
        r = _rendering(docs, hw)
        text = r.get("command") or r.get("head_command") or r.get("vllm_command")
        assert block["sep"].join(block["lines"][i] for i in entry["cmd"]) == text
        assert block["sep"] == SEP
    assert len(block["lines"]) == len(set(block["lines"]))  # each line once


def test_board_power_is_the_cited_figure_times_the_gpus(block, ctx):
    for hw, entry in block["variants"]["default"].items():
        power = ctx.profiles[hw].get("power_watts")
        if power is None:
            assert "board_w" not in entry
        else:
            assert entry["board_w"] == power * entry["gpus"]
    assert "board_w" in block["variants"]["default"]["h100_pcie"]


# -- power facts ----------------------------------------------------------------------------------


def test_every_power_fact_cites_a_vendor_document_url(ctx):
    cited = [h for h, p in ctx.profiles.items() if "power_watts" in p]
    assert cited, "at least one profile states its board power"
    for hw in cited:
        source = ctx.profiles[hw]["sources"]["power_watts"]
        assert source_link(source), hw
        assert f"{ctx.profiles[hw]['power_watts']:g} W" in source, hw  # the vendor's own words


def test_power_without_its_source_is_refused():
    base = {"brand": "NVIDIA", "gpu_count": 1, "vram_gb": 80}
    with pytest.raises(ValidationError, match="sources.power_watts"):
        HardwareProfile.model_validate({**base, "power_watts": 700})
    ok = {**base, "power_watts": 700, "sources": {"power_watts": "datasheet https://x.example"}}
    assert HardwareProfile.model_validate(ok).power_watts == 700


def test_spec_rows_link_each_source(ctx):
    rows = {r["label"]: r for r in spec_rows(ctx.profiles["h100_pcie"])}
    power = rows["Board power, per GPU"]
    assert power["value"] == "350 W" and power["href"].startswith("https://")
    assert rows["Memory bandwidth, per GPU"]["href"].startswith("https://resources.nvidia.com/")
    assert "vllm/" in rows["Weight formats vLLM runs"]["source"]
    assert "Board power, per GPU" not in {r["label"] for r in spec_rows(ctx.profiles["l40s"])}


# -- hardware pages -------------------------------------------------------------------------------


def test_hardware_entries_carry_the_compare_figures_and_match_their_schema(built, block, ctx):
    _, summary = built
    for hw, entries in summary.hardware_entries.items():
        for e in entries:
            col = block["variants"][e["variant"]][hw]
            assert e.get("est_tps_per_gpu") == col.get("est")
            assert e.get("measured_tps_per_gpu") == col.get("measured", {}).get("tps")
        for doc in hardware_pages(hw, ctx.profiles[hw], entries).values():
            jsonschema.validate(doc, schema_for("hardware"))


def test_listing_prefers_measured_and_ranks_fastest_first():
    rows = [
        {"title": "b", **compare.listing({"est_tps_per_gpu": [100, 300], "gpus": 1, "tp": 1})},
        {"title": "a", **compare.listing({})},
        {
            "title": "c",
            **compare.listing({"est_tps_per_gpu": [100, 300], "measured_tps_per_gpu": 50}),
        },
        {"title": "d", **compare.listing({"est_tps_per_gpu": [400, 800], "gpus": 2, "tp": 2})},
    ]
    assert [r["speed_kind"] for r in rows] == ["estimated", None, "measured", "estimated"]
    assert rows[2]["speed"] == 50 and "measured" in rows[2]["speed_label"]
    assert rows[3]["layout_label"] == "2 GPUs, TP 2"
    assert [r["title"] for r in compare.ranked(rows, lambda r: r["title"])] == ["d", "b", "c", "a"]
