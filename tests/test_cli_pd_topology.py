"""`recipes-site command ... --strategy pd_cluster --prefill-nodes/--prefill-mode/--decode-...`:
the chosen topology with every pool node and the router, in text, --json, --k8s and --bench;
refusals that say what was asked, what is allowed and what would start."""

from __future__ import annotations

import json

import yaml
from cli_kit import run

MODEL = "deepseek-ai/DeepSeek-V3"
BASE = ("command", MODEL, "--hardware", "h100", "--strategy", "pd_cluster")


def test_the_default_prints_every_node_of_each_pool():
    out = run(*BASE)
    assert out.returncode == 0, out.stderr
    heads = [line for line in out.stdout.splitlines() if line.startswith("# ")]
    assert heads == [
        "# prefill pool, node 1 of 2",
        "# prefill pool, node 2 of 2",
        "# decode pool, node 1 of 2",
        "# decode pool, node 2 of 2",
        "# router",
    ]
    assert "--node-rank 1 \\\n  --master-addr $PREFILL_NODE_1 \\\n  --headless" in out.stdout


def test_flags_lay_the_pools_out_and_json_k8s_bench_follow():
    asked = (*BASE, "--prefill-nodes", "4", "--decode-mode", "dep")
    out = run(*asked)
    assert out.returncode == 0, out.stderr
    assert "# prefill pool, node 4 of 4" in out.stdout
    assert "--data-parallel-start-rank 8" in out.stdout  # decode node 2 of 2
    assert out.stdout.rstrip().endswith("--intra-node-data-parallel-size 8")
    doc = json.loads(run(*asked, "--json").stdout)
    assert doc["prefill"]["nodes"] == 4 and doc["decode"]["parallelism"] == "dep"
    assert [w["node"] for w in doc["pool_workers"]["prefill"]] == [2, 3, 4]
    start = doc["pool_workers"]["decode"][0]["argv"].index("--data-parallel-start-rank")
    assert doc["pool_workers"]["decode"][0]["argv"][start + 1] == "8"
    k8s = run(*asked, "--k8s")
    assert k8s.returncode == 0, k8s.stderr
    manifests = k8s.stdout.split("# manifests.yaml (kubectl apply -f)\n", 1)[1]
    manifests = manifests.split("\n# values.yaml", 1)[0]
    groups = {
        d["metadata"]["name"]: d["spec"]["leaderWorkerTemplate"]["size"]
        for d in yaml.safe_load_all(manifests)
        if d and d["kind"] == "LeaderWorkerSet"
    }
    assert groups == {"deepseek-v3-prefill": 4, "deepseek-v3-decode": 2}
    bench = run(*asked, "--bench")
    assert bench.returncode == 0 and "vllm bench serve" in bench.stdout


def test_refusals_name_what_was_asked_and_what_is_allowed():
    out = run(*BASE, "--prefill-nodes", "1")
    assert out.returncode == 1
    assert "the prefill pool (1 node, tp) cannot start on h100" in out.stderr
    assert "cannot load the model" in out.stderr and "did you mean 2 nodes, tp?" in out.stderr
    assert "layouts that start: 2 nodes tp/tep/dep, 3 nodes dep, 4 nodes tp/tep/dep" in out.stderr
    out = run(*BASE, "--decode-mode", "dp")
    assert out.returncode == 1
    assert "--decode-mode dp" in out.stderr and "did you mean dep" in out.stderr
    assert "allowed: tp, tep, dep" in out.stderr
    out = run(*BASE, "--decode-nodes", "9")
    assert out.returncode == 1 and "takes 0, 1, 2, 3, 4 nodes" in out.stderr
    out = run("command", MODEL, "--hardware", "h100", "--prefill-nodes", "2")
    assert out.returncode == 1 and "--strategy pd_cluster" in out.stderr
    out = run(*BASE, "--prefill-nodes", "-1")
    assert out.returncode == 2 and "0 or more" in out.stderr
