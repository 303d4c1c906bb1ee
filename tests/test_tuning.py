"""Issue 27, point 3: the tuning table's coefficients (tuning.py, published in verify.json) give,
through the page's arithmetic (`tuning.apply`, transcribed by site.js), exactly the figures of
plan.py for the command as tuned: at the rendered values, the plan every hardware document
publishes; at any other values, `plan.plan_of` of the tuned argv."""

from __future__ import annotations

import itertools
import json
import random
import shlex

import jsonschema
import pytest

from recipes_site import fit, plan, tuning
from recipes_site.render.schemas import schema_for
from recipes_site.synthesis import render_choice

KEYS = "utmLd"


@pytest.fixture(scope="module")
def verify_docs(project_site) -> dict[str, dict]:
    out, _ = project_site
    docs = {}
    for path in sorted((out / "api" / "v1" / "models").glob("*/*/verify.json")):
        docs[json.loads(path.read_text())["recipe"]] = json.loads(path.read_text())
    assert len(docs) >= 30
    return docs


def _hw_doc(project_site, hf_id: str, hw: str) -> dict:
    out, _ = project_site
    return json.loads((out / f"api/v1/models/{hf_id}/hw/{hw}.json").read_text())


def tuned_argv(argv, doc: dict, values: dict, pick: dict) -> list[str]:
    """The page's assembly in argv form: every spelling of a tuned flag removed, then the chosen
    option's line (none: the flag left out) appended."""
    names = {n for row in doc["rows"] for n in row["names"]}
    out, i = [], 0
    argv = [str(a) for a in argv]
    while i < len(argv):
        flag, eq, _ = argv[i].partition("=")
        if flag in names:
            i += 1 if eq else 2
            continue
        out.append(argv[i])
        i += 1
    for k in KEYS:
        line = doc["lines"][k].get(str(values[k][pick[k]]))
        if line:
            out += shlex.split(line)
    return out


def test_verify_documents_follow_their_schema(verify_docs):
    schema = schema_for("model-verify")
    for doc in verify_docs.values():
        jsonschema.validate(doc, schema)


def test_rendered_values_give_the_published_plan_exactly(project_site, verify_docs):
    checked = 0
    for hf_id, doc in verify_docs.items():
        for hw, h in doc["hardware"].items():
            plans = {
                f"{e['variant']}|{e['strategy']}|{e['node_count']}": e["plan"]["default"]
                for e in _hw_doc(project_site, hf_id, hw)["renderings"]
            }
            for key, entry in h["renderings"].items():
                if "tune" not in entry:
                    continue
                tune = {**entry["tune"], "v": doc["values"][entry["tune"]["v"]]}
                got = tuning.apply(tune, doc["kv"], h["r"], tune["at"])
                p = plans[key]
                assert (got["kv_cache_bytes_per_gpu"], got["concurrency"], got["verdict"]) == (
                    p["kv_cache_bytes_per_gpu"],
                    p["concurrency"],
                    p["verdict"],
                ), (hf_id, hw, key)
                assert round(got["budget_gib_per_gpu"], 2) == p["budget_gib_per_gpu"]
                assert round(got["weights_gib_per_gpu"], 2) == p["weights_gib_per_gpu"]
                checked += 1
    assert checked > 500


def test_other_values_give_the_plan_of_the_tuned_command(ctx, recipes, verify_docs):
    rng = random.Random(27)
    checked = 0
    for hf_id in (
        "Qwen/Qwen3-8B",
        "openai/gpt-oss-20b",
        "google/gemma-3-27b-it",
        "Qwen/Qwen3.5-27B",
    ):
        doc = verify_docs[hf_id]
        for hw in ("h100", "h200", "b200", "mi300x"):
            if hw not in doc["hardware"]:
                continue
            r = render_choice(ctx, recipes[hf_id], "default", hw, None, None, None)
            entry = doc["hardware"][hw]["renderings"][f"{r.variant}|{r.strategy}|{r.node_count}"]
            if "tune" not in entry:
                continue
            values = doc["values"][entry["tune"]["v"]]
            tune = {**entry["tune"], "v": values}
            combos = list(itertools.product(*(range(len(values[k])) for k in KEYS)))
            plans = plan.RecipePlans(recipes[hf_id])
            for combo in rng.sample(combos, min(12, len(combos))):
                pick = dict(zip(KEYS, combo))
                argv = tuned_argv(r.single.argv, doc, values, pick)
                shape = fit.shape_from_argv(argv)
                assert shape.tp == values["t"][pick["t"]]
                assert shape.kv_cache_dtype == values["d"][pick["d"]]
                p = plan.plan_of(plans, r.variant, ctx.profiles[hw], argv, gpus=shape.gpus, nodes=1)
                got = tuning.apply(tune, doc["kv"], doc["hardware"][hw]["r"], pick)
                assert (got["kv_cache_bytes_per_gpu"], got["concurrency"], got["verdict"]) == (
                    p["kv_cache_bytes_per_gpu"],
                    p["concurrency"],
                    p["verdict"],
                ), (hf_id, hw, pick)
                checked += 1
    assert checked > 40


def test_fp8_halves_the_kv_bytes_and_a_shorter_length_admits_more(verify_docs):
    doc = verify_docs["Qwen/Qwen3-8B"]
    h = doc["hardware"]["h100"]
    entry = next(e for e in h["renderings"].values() if "tune" in e)
    values = doc["values"][entry["tune"]["v"]]
    tune = {**entry["tune"], "v": values}
    at = tune["at"]
    auto, fp8 = (tune["k"][at["t"]][values["d"].index(d)][at["m"]] for d in ("auto", "fp8"))
    assert (
        doc["kv"][fp8]["kv_bytes_per_token_per_gpu"] * 2
        == (doc["kv"][auto]["kv_bytes_per_token_per_gpu"])
    )
    base = tuning.apply(tune, doc["kv"], h["r"], at)
    halved = tuning.apply(tune, doc["kv"], h["r"], {**at, "d": values["d"].index("fp8")})
    assert halved["concurrency"] >= 2 * base["concurrency"] - 1
    shorter = tuning.apply(tune, doc["kv"], h["r"], {**at, "L": values["L"].index(8192)})
    assert shorter["concurrency"] > base["concurrency"]


def test_table_rows_name_default_meaning_and_direction(verify_docs):
    rows = {row["flag"]: row for row in next(iter(verify_docs.values()))["rows"]}
    assert list(rows) == [
        "--gpu-memory-utilization",
        "--max-num-batched-tokens",
        "--tensor-parallel-size",
        "--max-model-len",
        "--kv-cache-dtype",
    ]
    assert rows["--gpu-memory-utilization"]["default"].startswith("0.92")
    assert "0.95" in rows["--gpu-memory-utilization"]["direction"]
    assert "Chunked prefill" in rows["--max-num-batched-tokens"]["meaning"]
    assert "8192" in rows["--max-num-batched-tokens"]["direction"]
    assert "fp8 halves" in rows["--kv-cache-dtype"]["direction"]
    assert "-tp" in rows["--tensor-parallel-size"]["names"]
    assert "--max_model_len" in rows["--max-model-len"]["names"]
    for row in rows.values():
        assert row["source"].startswith("vllm/")
