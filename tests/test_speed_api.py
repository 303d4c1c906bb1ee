"""The speed estimate in the API's hardware documents and in `recipes-site fit`."""

from __future__ import annotations

import json

import cli_kit
import jsonschema
import pytest

from recipes_site import speed
from recipes_site.render.api import RecipeInput, hw_doc_path, recipe_documents
from recipes_site.render.schemas import schema_for
from recipes_site.synthesis import synthesize_recipe

MODEL = "Qwen/Qwen3-8B"


@pytest.fixture(scope="module")
def h100_doc(catalog, ctx):
    doc = next(d for d in catalog.recipes if d.hf_id == MODEL)
    rec = RecipeInput(
        doc.hf_id, doc.data, synthesize_recipe(ctx, doc.hf_id, doc.data, catalog.index.ids)
    )
    docs, _ = recipe_documents(rec, ctx)
    return docs[hw_doc_path(MODEL, "h100")]


def test_hardware_document_with_speed_matches_its_schema(h100_doc):
    jsonschema.validate(h100_doc, schema_for("model-hardware"))


def test_each_rendering_that_starts_carries_its_estimate(h100_doc):
    single = [r for r in h100_doc["renderings"] if r["strategy"] == "single_node_tp"]
    assert single and all("speed" in r for r in single)
    s = single[0]["speed"]
    assert s["c"][: len(speed.LEVELS)] == list(speed.LEVELS)
    assert len(s["user"]) == len(s["total"]) == 2 * len(s["c"])
    assert len(s["ttft_ms"]) == 2 * len(speed.TTFT_PROMPTS)
    lows, highs = s["user"][0::2], s["user"][1::2]
    assert all(lo < hi for lo, hi in zip(lows, highs, strict=True))
    assert lows == sorted(lows, reverse=True)  # per request: slower as concurrency grows
    assert s["total"][0::2] == sorted(s["total"][0::2])  # in total: faster
    cal = h100_doc["speed_calibration"]
    assert cal["points"] == speed.CALIBRATION.points >= 15
    assert 0 < cal["median_error"] <= cal["worst_error"]


def test_one_instance_or_replicas_side_by_side(h100_doc):
    found = h100_doc["layouts"]["default"]
    assert found["min_gpus"] == 1 and found["replicas_per_node"] == 8  # 8B in BF16: one H100
    tps = [lay["tp"] for lay in found["layouts"]]
    assert tps == [1, 2, 4, 8]
    assert [lay["replicas"] for lay in found["layouts"]] == [8, 4, 2, 1]
    one, eight = found["layouts"][0], found["layouts"][-1]
    # a wider replica is faster per request at concurrency 1 (latency)...
    assert eight["user"][0] > one["user"][0]
    # ...and one copy of the weights leaves more room for KV cache than eight
    assert eight["c"][-1] >= one["c"][-1]


def test_fit_json_and_text_carry_the_estimate_and_the_layouts():
    def out(*extra):
        done = cli_kit.run("fit", MODEL, "--hardware", "h100", *extra)
        assert done.returncode == 0, done.stderr
        return done.stdout

    data = json.loads(out("--json"))
    assert data["speed"]["c"][: len(speed.LEVELS)] == list(speed.LEVELS)
    assert data["layouts"]["min_gpus"] == 1
    assert [lay["tp"] for lay in data["layouts"]["layouts"]] == [1, 2, 4, 8]
    text = out()
    assert "tokens/s per request" in text and "time to first token" in text
    assert f"calibrated on {speed.CALIBRATION.points} public measurements" in text
    assert "8 x TP 1" in text and "1 x TP 8" in text
