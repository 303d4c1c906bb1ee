"""Issue 11, "one plan per rendering": every figure beside a command is the plan (plan.py) of that
command's own argv and checkpoint, the API hardware documents and `recipes-site fit` publish the
same plan, a plan that says "fits" has the memory for its weights, and no default needs more than
its GPUs hold. Issue 10: a recipe with 200 variants with their own checkpoints builds (the plan
no longer re-renders a deep copy of the recipe per replica)."""

from __future__ import annotations

import json
import shlex

import pytest
import yaml

from recipes_site import fit, fit_report, plan, sizing
from recipes_site.catalog import PROJECT_ROOT
from recipes_site.render.pages import hw_labels, plan_facts, plan_view

LLAMA = "meta-llama/Llama-3.3-70B-Instruct"
HW_PATH = "api/v1/models/{}/hw/{}.json"


@pytest.fixture(scope="module")
def hw_docs(project_site) -> dict[tuple[str, str], dict]:
    out, _ = project_site
    docs = {}
    for path in sorted((out / "api" / "v1" / "models").glob("*/*/hw/*.json")):
        rel = path.relative_to(out / "api" / "v1" / "models").parts
        docs[(f"{rel[0]}/{rel[1]}", path.stem)] = json.loads(path.read_text())
    assert len(docs) > 300
    return docs


def _expand(doc: dict, p: dict) -> dict:
    profile = doc["hardware_profile"]
    return plan.expand(
        p, sizing.gpu_label(profile, doc["hardware"]), round(sizing.per_gpu_gib(profile), 1)
    )


def _plans(doc: dict):
    """(rendering, feature state key, expanded plan) of every plan a hardware document publishes."""
    for r in doc["renderings"]:
        yield r, "", _expand(doc, r["plan"]["default"])
        for key, p in r["plan"].get("by", {}).items():
            yield r, key, _expand(doc, p)


def _memory_argv(r: dict) -> list[str]:
    """The argv whose GPUs the plan describes: the decode pool of a PD deployment, else the main process."""
    if r["deploy_type"] == "pd_cluster":
        return r["decode"]["argv"]
    return r.get("argv") or r.get("head_argv") or r.get("vllm_argv")


# -- the plan of every rendering ---------------------------------------------------------------------------


def test_a_plan_that_fits_has_the_memory_for_its_weights(hw_docs):
    """GPUs x memory per GPU covers the weights whenever the verdict says the command fits, and
    every GPU's share stays within its budget (the issue's 52 of 882 contradictions)."""
    checked = 0
    for (hf, hw), doc in hw_docs.items():
        for r, key, p in _plans(doc):
            where = (hf, hw, r["variant"], r["strategy"], r["node_count"], key)
            if p["verdict"] == "fits":
                assert p["gpus"] * p["vram_gib_per_gpu"] >= p["weights_gib"], where
                assert (
                    p["weights_gib_per_gpu"] + p["overhead_gib_per_gpu"]
                    <= p["budget_gib_per_gpu"] + 0.01
                ), where
                assert p["kv_cache_gib_per_gpu"] > 0, where
            elif p["verdict"] == "over":
                assert p["weights_gib_per_gpu"] > p["budget_gib_per_gpu"], where
            checked += 1
    assert checked > 3000


def test_every_plan_describes_its_command(hw_docs):
    """TP, PP, DP and EP of each plan are the rendered command's; GPUs and nodes what its processes occupy."""
    for (hf, hw), doc in hw_docs.items():
        per_node = doc["hardware_profile"]["gpu_count"]
        for r in doc["renderings"]:
            p, shape = _expand(doc, r["plan"]["default"]), fit.shape_from_argv(_memory_argv(r))
            where = (hf, hw, r["variant"], r["strategy"], r["node_count"])
            assert (p["tp"], p["pp"], p["dp"], p["ep"]) == (
                shape.tp,
                shape.pp,
                shape.dp,
                shape.expert_parallel,
            ), where
            if r["deploy_type"] == "single_node":
                assert p["gpus"] == shape.gpus <= per_node and p["nodes"] == 1, where
            elif r["deploy_type"] == "multi_node":
                assert p["gpus"] == shape.gpus and p["nodes"] == r["node_count"] == 1 + len(
                    r["worker_argvs"]
                ), where
            elif r["deploy_type"] == "pd_cluster":
                assert p["gpus"] == r["prefill"]["poolGpus"] + r["decode"]["poolGpus"], where
                assert (
                    p["nodes"] >= max(1, r["prefill"]["nodes"] + r["decode"]["nodes"])
                    or p["nodes"] >= 1
                ), where
            if p["context_length"] and "--max-model-len" in _memory_argv(r):
                assert p["context_length"] == shape.max_model_len, where


def test_the_card_header_counts_the_gpus_of_the_command(hw_docs):
    """The issue's "8x H200 · TP=1" for a one-GPU command: the header names the plan's GPUs."""
    labels = hw_labels(
        yaml.safe_load((PROJECT_ROOT / "taxonomy.yaml").read_text())["hardware_profiles"]
    )
    for (hf, hw), doc in hw_docs.items():
        name = sizing.gpu_label(
            doc["hardware_profile"], hw
        )  # one GPU of the box: "RTX Pro 6000", not "... 2x"
        for r in doc["renderings"]:
            p = r["plan"]["default"]
            assert r["parts"]["summary"].startswith(f"{p['gpus']}× {name}"), (
                hf,
                hw,
                r["parts"]["summary"],
            )
            assert f"TP={p['tp']}" in r["parts"]["summary"]
    doc = hw_docs[(LLAMA, "h200")]
    fp8 = next(
        r for r in doc["renderings"] if r["variant"] == "fp8" and r["strategy"] == "single_node_tp"
    )
    assert fp8["parts"]["summary"] == "1× H200 of 8 · TP=1 · FP8"
    assert len(set(labels.values())) == len(labels)


def test_recipes_site_fit_publishes_the_same_plan(ctx, recipes, hw_docs):
    """`recipes-site fit` and the hardware documents agree on every rendering's plan."""
    checked = 0
    for (hf, hw), doc in hw_docs.items():
        for r in doc["renderings"]:
            nodes = r["node_count"] if r["deploy_type"] == "multi_node" else None
            got = fit_report.fit_choice(ctx, recipes[hf], r["variant"], hw, r["strategy"], nodes)
            assert got.plan == r["plan"]["default"], (
                hf,
                hw,
                r["variant"],
                r["strategy"],
                r["node_count"],
            )
            if "replicas" in r["plan"]:
                parts = r["plan"]["replicas"]
                assert [x["command"] for x in got.replicas] == [
                    plan.replica_command(r["command"], parts, x) for x in parts["replicas"]
                ]
            else:
                assert not got.replicas
            checked += 1
    assert checked > 3000


def test_no_default_of_ours_needs_more_than_its_gpus_hold(hw_docs):
    """A rendering that cannot hold its weights is never a default (the compat corpus's own
    defaults stay the reference's; see the lead's report for the ones that do not fit)."""
    for (hf, hw), doc in hw_docs.items():
        for tree, pick in doc["recommended"].items():
            r = next(
                x
                for x in doc["renderings"]
                if (x["variant"], x["strategy"], x["node_count"])
                == (pick["variant"], pick["strategy"], pick["node_count"])
            )
            assert plan.holds(r["plan"]["default"]), (hf, hw, tree, r["plan"]["default"]["reason"])


def test_deepseek_v32_on_one_h100_node_is_marked(hw_docs):
    doc = hw_docs[("deepseek-ai/DeepSeek-V3.2", "h100")]
    one = next(r for r in doc["renderings"] if r["strategy"] == "single_node_tp")
    p = _expand(doc, one["plan"]["default"])
    assert (p["gpus"], p["tp"], p["verdict"]) == (8, 8, "over")
    assert p["weights_gib_per_gpu"] > p["budget_gib_per_gpu"]
    assert "replicas" not in one["plan"]
    facts = plan_facts(p, "H100")
    assert facts["ok"] is False and facts["why"] == p["reason"]


# -- feature states ----------------------------------------------------------------------------------------


def test_a_draft_model_gets_its_own_plan(hw_docs):
    """Spec decoding loads an EAGLE-3 head: its plan counts the head's weights; the replica commands
    are copies of the command shown, so they carry --speculative-config when it is on."""
    doc = hw_docs[(LLAMA, "h200")]
    r = next(
        x for x in doc["renderings"] if x["variant"] == "fp8" and x["strategy"] == "single_node_tp"
    )
    assert r["plan"]["keys"] == ["spec_decoding"]
    on, off = _expand(doc, r["plan"]["by"]["spec_decoding"]), _expand(doc, r["plan"]["default"])
    assert on["draft"] == "RedHatAI/Llama-3.3-70B-Instruct-speculator.eagle3"
    assert (
        1.0 < on["weights_gib"] - off["weights_gib"] < 6.0
    )  # one decoder layer, fc and LM head in bf16
    assert on["kv_cache_gib_per_gpu"] < off["kv_cache_gib_per_gpu"]
    features = doc["feature_sets"][r["parts"]["features"]]
    spec = next(f for f in features if f["name"] == "spec_decoding")
    command = r["command"] + " \\\n  " + " \\\n  ".join(spec["lines"])
    view = plan_view(r, on, {"gpu_count": 8, "label": "H200", "gpu": "H200"}, command)
    assert len(view["commands"]) == 8
    assert all("--speculative-config" in c for _, _, c in view["commands"])
    assert view["commands"][3][2].startswith(
        "export CUDA_VISIBLE_DEVICES=3\nvllm serve nvidia/Llama-3.3-70B-Instruct-FP8"
    )


def test_plan_keys_name_only_memory_features(hw_docs):
    for (hf, hw), doc in hw_docs.items():
        for r in doc["renderings"]:
            names = {f["name"] for f in doc["feature_sets"][r["parts"]["features"]]}
            assert set(r["plan"].get("keys", [])) <= names, (hf, hw)
            assert ("keys" in r["plan"]) == ("by" in r["plan"])
            for key in r["plan"].get("by", {}):
                assert {k.split(":")[0] for k in key.split(",") if k} <= set(r["plan"]["keys"])


def test_replica_parts_rebuild_each_copy(hw_docs):
    doc = hw_docs[("Qwen/Qwen3-8B", "h100")]
    r = next(x for x in doc["renderings"] if x["strategy"] == "single_node_tp")
    parts = r["plan"]["replicas"]
    assert [x["gpus"] for x in parts["replicas"]] == [str(i) for i in range(8)]
    docker = parts["docker_head"].replace("{gpus}", "5").replace("{port}", "8005")
    assert "-e CUDA_VISIBLE_DEVICES=5" in docker and "-p 8005:8005" in docker
    assert r["docker_command"].startswith(parts["docker_head"].split(" \\\n")[0])
    one = plan.replica_command(r["command"], parts, parts["replicas"][5])
    argv = shlex.split(one.split("\n", 1)[1].replace("\\\n", " "))
    assert argv[-2:] == ["--port", "8005"] and one.startswith("export CUDA_VISIBLE_DEVICES=5\n")


# -- the units ---------------------------------------------------------------------------------------------


def test_variant_pills_say_gib(project_site):
    out, _ = project_site
    page = (out / LLAMA / "index.html").read_text()
    # 68.5B quantized parameters in FP8 + 2.1B of 16-bit embeddings and LM head
    assert "FP8 · 68 GiB" in page and " GB</b>" not in page


# -- issue 10: many variants with their own checkpoints ------------------------------------------------------


def test_a_recipe_with_the_most_variants_allowed_builds(tmp_path):
    """The plan costs one fit per rendering and state (no deep copy of the recipe per replica):
    a recipe with as many checkpoint variants as validate allows builds, and each variant's
    renderings carry their plan."""
    from recipes_site.build import build
    from recipes_site.catalog.types import MAX_VARIANTS

    source = yaml.safe_load((PROJECT_ROOT / "models" / "Qwen" / "Qwen3-8B.yaml").read_text())
    source["model"]["model_id"] = "acme/Many-8B"
    base = dict(
        source["variants"]["default"], supported_hardware=["h100", "h200"]
    )  # keeps the test quick
    source["variants"] = {"default": base}
    for i in range(1, MAX_VARIANTS):
        source["variants"][f"v{i:03d}"] = {
            **base,
            "model_id": f"acme/Many-8B-ckpt{i:03d}",
            "description": f"checkpoint {i}",
        }
    source["meta"]["related_recipes"] = []
    root = tmp_path / "root"
    (root / "models" / "acme").mkdir(parents=True)
    (root / "models" / "acme" / "Many-8B.yaml").write_text(yaml.safe_dump(source, sort_keys=False))
    result = build(root, tmp_path / "out")
    assert result.ok, [d.format() for d in result.diagnostics][:5]
    doc = json.loads((tmp_path / "out" / HW_PATH.format("acme/Many-8B", "h100")).read_text())
    assert {r["variant"] for r in doc["renderings"]} >= {
        "default",
        "v001",
        f"v{MAX_VARIANTS - 1:03d}",
    }
    assert all(r["plan"]["default"]["verdict"] == "fits" for r in doc["renderings"])


def test_feature_conflicts_name_real_features(recipes, project_site):
    """taxonomy.yaml's feature_conflicts (text_only vs encoder_parallel) name features recipes have,
    and the model pages carry them for the picker."""
    groups = yaml.safe_load((PROJECT_ROOT / "taxonomy.yaml").read_text())["feature_conflicts"]
    assert ["text_only", "encoder_parallel"] in groups
    names = {n for data in recipes.values() for n in (data.get("features") or {})}
    assert {n for g in groups for n in g} <= names
    out, _ = project_site
    page = (out / "Qwen/Qwen3-VL-235B-A22B-Instruct/index.html").read_text()
    assert '"conflicts":[["text_only","encoder_parallel"]]' in page
