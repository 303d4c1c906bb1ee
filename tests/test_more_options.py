"""`recipes-site command/fit` with the model page's "More options" row (more_options.py): the
CLI's command equals the page's assembly rule (site.js `commandParts` with more.js's `extra` and
`head`, restated below) applied to the published parts, and what the page disables is refused."""

from __future__ import annotations

import json

import pytest
from catalog_kit import copy_project_root
from cli_kit import run

from recipes_site.host_memory import GIB
from recipes_site.render.kv_offload import LAYOUT_REASON, why_not
from recipes_site.synthesis.shell import export_lines

SEP = " \\\n  "
MODEL = "Qwen/Qwen3-8B"


def _get(doc, path):
    for step in path:
        doc = doc[step]
    return doc


def _defaults(features: list[dict]) -> list[tuple[dict, dict | None]]:
    """site.js `choose` with no selection: the default features and modes."""
    out = []
    for f in features:
        if f.get("default") is False or f.get("default") is None:
            continue
        modes = f.get("modes")
        mode = next((m for m in modes if m["name"] == f["default"]), modes[0]) if modes else None
        out.append((f, mode))
    return out


def _plan(entry: dict, chosen) -> dict:
    """site.js `planOf`: the plan of the feature state shown."""
    plans, keys = entry["plan"], entry["plan"].get("keys") or []
    key = ",".join(
        f["name"] + (":" + m["name"] if m else "") for f, m in chosen if f["name"] in keys
    )
    return (plans.get("by") or {}).get(key) or plans["default"]


def _bytes(size: dict, plan: dict) -> int:
    """more.js `bytes()`, restated."""
    kv = plan.get("kv_cache_bytes_per_gpu")
    above = (kv // GIB + 1) * GIB if kv else 0
    if size["per"] == "rank":
        return max(size["floor_bytes"], above)
    return max(size["floor_bytes"], above * (plan.get("tp") or 1) * (plan.get("pp") or 1))


def page_texts(
    doc: dict, entry: dict, options: dict, kvo: str | None, image=None, mml=False
) -> list[tuple[list, str, list, str]]:
    """(path, serve form, docker path, docker form) of every process tab, as the page joins them."""
    features = doc["feature_sets"][entry["parts"]["features"]]
    chosen = _defaults(features)
    o = next(x for x in options["kv_offload"] if x["id"] == kvo) if kvo else None
    extra = []
    if o:
        value = str(_bytes(o["size"], _plan(entry, chosen))) if o["size"] else None
        extra = [line.replace("{bytes}", value) if value else line for line in o["lines"]]
    out = []
    for part in entry["parts"]["processes"]:
        body = _get(entry, part["path"]).split(SEP)
        at, n = part["at"], part["n"]
        lines = body[1 : 1 + at]
        for f, m in chosen:
            lines += m["lines"] if m else f["lines"]
        lines += extra + body[1 + at + n :]
        if mml:
            auto = options["max_model_len_auto"]
            lines = [x for x in lines if not x.startswith(auto["replaces"])] + [auto["line"]]
        tail = SEP + SEP.join(lines) if lines else ""
        head = _get(entry, part["docker_path"]).split(SEP)[: part["docker_at"]]
        if o:
            head[-1:-1] = o["docker_env"]
        if image and head[-1].startswith(entry["docker_image"] + " "):
            head[-1] = image + head[-1][len(entry["docker_image"]) :]
        serve = part["exports"] + (o["exports"] if o else "") + body[0] + tail
        out.append((part["path"], serve, part["docker_path"], SEP.join(head) + tail))
    return out


@pytest.fixture(scope="module")
def site(project_site):
    out, _ = project_site
    return out, json.loads((out / "api/v1/picker-options.json").read_text())


def _entry(out, model: str, hw: str, strategy: str, nodes: int = 1) -> tuple[dict, dict]:
    doc = json.loads((out / f"api/v1/models/{model}/hw/{hw}.json").read_text())
    entry = next(
        r for r in doc["renderings"] if r["strategy"] == strategy and r["node_count"] == nodes
    )
    return doc, entry


CASES = [
    # model, hardware, strategy, nodes, kv offload, image, --max-model-len auto
    (MODEL, "h200", "single_node_tp", 1, "simple", None, False),
    (MODEL, "h200", "single_node_tp", 1, "lmcache", "vllm/vllm-openai:latest-cu129", True),
    (MODEL, "mi300x", "single_node_tp", 1, "simple", None, True),
    ("Qwen/Qwen3-235B-A22B-Instruct-2507", "b200", "single_node_dep", 1, "simple", None, False),
    ("Qwen/Qwen3.5-397B-A17B", "b200", "multi_node_tp", 2, "simple", None, True),
    ("deepseek-ai/DeepSeek-R1-0528", "b200", "multi_node_tp_pp", 2, "simple", None, False),
    ("deepseek-ai/DeepSeek-R1-0528", "b200", "pd_cluster", 1, None, None, True),
    (
        "BAAI/bge-m3",
        "b200",
        "kv_store_distributed_mooncake",
        1,
        None,
        "vllm/vllm-openai:latest-cu129",
        True,
    ),
]


@pytest.mark.parametrize(("model", "hw", "strategy", "nodes", "kvo", "image", "mml"), CASES)
def test_the_cli_joins_the_options_as_the_page_does(
    site, model, hw, strategy, nodes, kvo, image, mml
):
    out, options = site
    doc, entry = _entry(out, model, hw, strategy, nodes)
    args = ["command", model, "--hardware", hw, "--strategy", strategy, "--json"]
    args += ["--nodes", str(nodes)] if nodes > 1 else []
    args += ["--kv-offload", kvo] if kvo else []
    args += ["--image", image] if image else []
    args += ["--max-model-len", "auto"] if mml else []
    got = run(*args)
    assert got.returncode == 0, got.stderr
    cli = json.loads(got.stdout)
    shared = entry["deploy_type"] != "pd_cluster"
    for path, serve, docker_path, docker in page_texts(doc, entry, options, kvo, image, mml):
        process = cli if path[0] != "prefill" and path[0] != "decode" else cli[path[0]]
        env = cli["env"] if shared else process["env"]
        assert export_lines(env) + _get(cli, path) == serve, path
        assert _get(cli, docker_path) == docker, docker_path
    assert ("--max-model-len auto" in json.dumps(cli)) is mml


def test_the_text_form_is_the_page_command_after_the_install_and_companion(site):
    out, options = site
    doc, entry = _entry(out, MODEL, "h200", "single_node_tp")
    [(_, serve, _, docker)] = page_texts(doc, entry, options, "lmcache")
    got = run("command", MODEL, "--hardware", "h200", "--kv-offload", "lmcache")
    assert got.returncode == 0, got.stderr
    lmcache = next(o for o in options["kv_offload"] if o["id"] == "lmcache")
    assert got.stdout == (
        f"# install first\n{lmcache['install']}\n\n"
        f"# {lmcache['tab']['label']}\n{lmcache['tab']['text']}\n\n{serve}\n"
    )
    got = run("command", MODEL, "--hardware", "h200", "--kv-offload", "lmcache", "--docker")
    assert got.stdout.endswith("\n\n" + docker + "\n")


def test_the_simple_tier_is_sized_from_the_plan_and_reported(site):
    got = run("command", MODEL, "--hardware", "h200", "--kv-offload", "simple", "--json")
    pieces = json.loads(got.stdout)["more_options"]["kv_offload"]
    tier = pieces["host_memory"]
    assert tier["key"] == "cpu_bytes_to_use_per_rank" and tier["per"] == "rank"
    assert f'"cpu_bytes_to_use_per_rank":{tier["config_bytes"]},' in pieces["lines"][0]
    assert tier["per_gpu_bytes"] == tier["config_bytes"] >= tier["kv_cache_bytes_per_gpu"]
    assert tier["per_node_bytes"] == tier["per_gpu_bytes"] * tier["gpus"] // tier["nodes"]
    text = run("command", MODEL, "--hardware", "h200", "--kv-offload", "simple")
    assert "GiB per GPU" in text.stderr and "host RAM free" in text.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--kv-offload", "simpel"], "unknown KV-offload option 'simpel' (did you mean simple?)"),
        (
            ["--kv-offload", "kv_store_distributed_mooncake"],
            "--strategy kv_store_distributed_mooncake",
        ),
        (["--kv-offload", "offloading_cpu"], "Opt-in: this recipe has not verified it"),
        (["--kv-offload", "simple", "--strategy", "kv_store_distributed_mooncake"], LAYOUT_REASON),
        (["--kv-offload", "lmcache", "--hardware", "b200", "--strategy", "multi_node_tp"], "only"),
        (["--image", "vllm/vllm-openai:latest-rocm"], "choices: vllm/vllm-openai:latest (CUDA 13"),
        (["--kv-instances", "3"], "applies to the Mooncake kv-store strategies"),
        (["--kv-offload", "simple", "--bench"], "not with --bench"),
    ],
)
def test_what_the_page_disables_is_refused_with_its_reason(args, says):
    model = "Qwen/Qwen3.5-397B-A17B" if "multi_node_tp" in args else MODEL
    hw = [] if "--hardware" in args else ["--hardware", "h200"]
    got = run("command", model, *hw, *args)
    assert got.returncode == 1 and says in got.stderr, got.stderr
    assert got.stdout == ""


def test_argparse_bounds_the_instances_and_the_length():
    assert "at most 16 instances" in run("command", MODEL, "--kv-instances", "17").stderr
    assert run("command", MODEL, "--max-model-len", "4096").returncode == 2


def test_kv_instances_set_the_router_and_the_registered_host_memory():
    base = ["command", MODEL, "--hardware", "h200", "--strategy", "kv_store_distributed_mooncake"]
    got = run(*base, "--kv-instances", "3")
    assert got.returncode == 0, got.stderr
    assert "# vLLM instance (3x)" in got.stdout
    assert "--backend-url http://$VLLM_INSTANCE_3:8000" in got.stdout
    assert "VLLM_INSTANCE_4" not in got.stdout
    assert "104.0 GiB per GPU (100.0 GiB global_segment_size" in got.stderr
    assert "312.0 GiB over 3 instances" in got.stderr
    one = run(*base, "--kv-instances", "1")
    assert "# router" not in one.stdout and "# vLLM instance (1x)" in one.stdout
    store = json.loads(run(*base, "--kv-instances", "2", "--json").stdout)["more_options"][
        "kv_store"
    ]
    assert store["instances"] == 2 and store["total_bytes"] == 2 * 104 * GIB


def test_fit_reports_the_host_memory_in_text_and_json():
    base = ["fit", MODEL, "--hardware", "h200"]
    text = run(*base, "--kv-offload", "simple")
    assert text.returncode == 0, text.stderr
    assert "KV offload simple: Host memory it takes: 220.0 GiB per GPU" in text.stdout
    found = json.loads(run(*base, "--kv-offload", "simple", "--json").stdout)["host_memory"]
    assert found["kv_offload"]["per_gpu_bytes"] == 220 * GIB
    assert "host_memory" not in json.loads(run(*base, "--json").stdout)
    store = run(*base, "--strategy", "kv_store_centralized_mooncake", "--json")
    found = json.loads(store.stdout)["host_memory"]["kv_store"]
    assert found["segment_bytes"] == 0 and found["store_segment_bytes"] == 500 * GIB
    refused = run(*base, "--kv-offload", "offloading_fs")
    assert refused.returncode == 1 and "Opt-in" in refused.stderr


def test_an_opted_in_staging_tier_keeps_its_size_and_exports_its_seed(tmp_path):
    root = copy_project_root(tmp_path / "root", [MODEL])
    recipe = root / "models" / f"{MODEL}.yaml"
    recipe.write_text(recipe.read_text() + "\nkv_offload_support:\n  offloading_fs: verified\n")
    got = run(
        "command", MODEL, "--root", root, "--hardware", "h200", "--kv-offload", "offloading_fs"
    )
    assert got.returncode == 0, got.stderr
    assert got.stdout.startswith("export PYTHONHASHSEED=0\nvllm serve")
    assert '"cpu_bytes_to_use":34359738368' in got.stdout
    assert "the vocabulary's staging tier" in got.stderr
    docker = run(
        "command",
        MODEL,
        "--root",
        root,
        "--hardware",
        "h200",
        "--kv-offload",
        "offloading_fs",
        "--docker",
    )
    assert "  -e PYTHONHASHSEED=0 \\\n  vllm/vllm-openai:latest Qwen/Qwen3-8B" in docker.stdout


def test_a_locked_rendering_refuses_offload_as_the_page_does():
    option = {"id": "simple", "strategies": ["single_node_tp"], "brands": ["NVIDIA"]}
    option |= {"why_strategy": "strategy", "why_brand": "brand"}
    assert why_not(option, "single_node", "single_node_tp", True, {}, "NVIDIA") == LAYOUT_REASON
    assert why_not(option, "pd_cluster", "pd_cluster", False, {}, "NVIDIA") == LAYOUT_REASON
    assert why_not(option, "single_node", "single_node_tp", False, {}, "NVIDIA") == ""
    assert why_not(option, "single_node", "single_node_tp", False, {"simple": "no"}, "AMD") == "no"
    assert why_not(option, "single_node", "single_node_tep", False, {}, "NVIDIA") == "strategy"
    assert why_not(option, "single_node", "single_node_tp", False, {}, "AMD") == "brand"


def test_the_hardware_documents_carry_the_figures_the_cli_prints(site):
    out, options = site
    doc = json.loads((out / f"api/v1/models/{MODEL}/hw/h200.json").read_text())
    member = doc["host_memory"]
    assert len(member["renderings"]) == len(doc["renderings"])
    for entry, at in zip(doc["renderings"], member["renderings"]):
        args = ["fit", MODEL, "--hardware", "h200", "--strategy", entry["strategy"], "--json"]
        if entry["deploy_type"] == "kv_store_lb":
            found = json.loads(run(*args).stdout)["host_memory"]["kv_store"]
            want = [found["per_gpu_bytes"], found["per_node_bytes"], found["total_bytes"]]
            assert member["rows"][at] == {"kv_store": want}
            continue
        row = member["rows"][at]
        assert "lmcache" not in row and "offloading_cpu" not in row  # no tier / not opted in
        tier = json.loads(run(*args, "--kv-offload", "simple").stdout)["host_memory"]["kv_offload"]
        keys = ("config_bytes", "per_gpu_bytes", "per_node_bytes", "total_bytes")
        assert row["simple"] == [tier[k] for k in keys]
    stores = options["kv_stores"]
    assert stores["kv_store_distributed_mooncake"]["host"]["per_gpu_bytes"] == 104 * GIB
    assert stores["kv_store_centralized_mooncake"]["host"]["store_segment_bytes"] == 500 * GIB
    fs = next(o for o in options["kv_offload"] if o["id"] == "offloading_fs")
    assert fs["size"] is None  # the command keeps the staging tier's value
    assert fs["staging"] == {"key": "cpu_bytes_to_use", "per": "engine", "floor_bytes": 32 * GIB}
