"""`recipes-site command --k8s` with the model page's "More options" (kubernetes_options.py): the
containers run the command the options make, the checklist names the host memory an offload
tier takes, and what needs a companion process is refused. Manifests and chart values are
validated as tests/test_kubernetes.py validates every rendering's."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest
from catalog_kit import copy_project_root
from cli_kit import run
from test_kubernetes import check_helm, check_manifests

from recipes_site import host_memory
from recipes_site.kubernetes import WORKER_INDEX, escaped
from recipes_site.kubernetes_options import with_option_env
from recipes_site.synthesis import render_choice

MODEL = "Qwen/Qwen3-8B"
CU129 = "vllm/vllm-openai:latest-cu129"
MULTI = ("Qwen/Qwen3.5-397B-A17B", "--hardware", "b200", "--strategy", "multi_node_tp")


def k8s(*args, root=None) -> tuple[list[str], list[dict], dict | None]:
    """(prerequisites, validated manifest objects, validated chart values) of `command --k8s`."""
    where = ("--root", root) if root else ()
    got = run("command", *args, *where, "--k8s")
    assert got.returncode == 0, got.stderr
    text, _, values = got.stdout.partition("\n# values.yaml (")
    checklist, _, manifests = text.partition("\n# manifests.yaml (kubectl apply -f)\n")
    items = [line[len("# - ") :] for line in checklist.splitlines() if line.startswith("# - ")]
    helm = check_helm(values.partition("\n")[2]) if values else None
    return items, check_manifests(manifests), helm


def joined(*args, root=None) -> dict:
    """`command --json` with the same options: the rendering as joined, and its pieces."""
    where = ("--root", root) if root else ()
    got = run("command", *args, *where, "--json")
    assert got.returncode == 0, got.stderr
    return json.loads(got.stdout)


def containers(objects: list[dict]) -> list[dict]:
    out = []
    for obj in objects:
        if obj["kind"] == "Deployment":
            out += obj["spec"]["template"]["spec"]["containers"]
        elif obj["kind"] == "LeaderWorkerSet":
            lwt = obj["spec"]["leaderWorkerTemplate"]
            for template in (lwt["leaderTemplate"], lwt["workerTemplate"]):
                out += template["spec"]["containers"]
    return out


def tier_line(items: list[str], option: str) -> str:
    found = [item for item in items if item.startswith("KV offload") and f"({option})" in item]
    assert len(found) == 1, items
    return found[0]


def test_the_deployment_runs_the_chosen_image_and_the_offload_connector():
    args = (MODEL, "--hardware", "h200", "--image", CU129, "--kv-offload", "simple")
    items, objects, helm = k8s(*args, "--max-model-len", "auto")
    want = joined(*args, "--max-model-len", "auto")
    (deployment,) = [o for o in objects if o["kind"] == "Deployment"]
    (main,) = deployment["spec"]["template"]["spec"]["containers"]
    assert main["image"] == CU129
    assert main["command"] == [escaped(str(w)) for w in want["argv"]]
    (line,) = want["more_options"]["kv_offload"]["lines"]
    flag, value = line.split(" ", 1)
    assert main["command"][main["command"].index(flag) + 1] == value.strip("'")
    assert "SimpleCPUOffloadConnector" in value
    assert main["command"][-2:] == ["--max-model-len", "auto"]
    # the chart values serve the same copies with the same image and arguments
    assert helm is not None
    spec = helm["servingEngineSpec"]["modelSpec"][0]
    assert f"{spec['repository']}:{spec['tag']}" == CU129
    assert spec["vllmConfig"]["extraArgs"] == main["command"][3:]


def test_the_checklist_names_the_tier_bytes_each_pod_needs():
    args = (MODEL, "--hardware", "h200", "--kv-offload", "simple")
    items, _, _ = k8s(*args)
    tier = joined(*args)["more_options"]["kv_offload"]["host_memory"]
    line = tier_line(items, "simple")
    assert f"cpu_bytes_to_use_per_rank = {tier['config_bytes']}" in line
    assert host_memory.ram_note(tier["per_node_bytes"]) in line
    assert "no memory request or limit" in line
    assert "each copy takes as much" in line  # the chart values put 1-GPU copies on one node


def test_a_multi_node_group_carries_the_option_in_every_pod_and_needs_it_per_node():
    items, objects, _ = k8s(*MULTI, "--kv-offload", "simple")
    want = joined(*MULTI, "--kv-offload", "simple")
    pods = containers(objects)
    assert len(pods) == 2 and any(WORKER_INDEX in c["command"] for c in pods)
    for c in pods:
        assert "--kv-transfer-config" in c["command"]
    tier = want["more_options"]["kv_offload"]["host_memory"]
    assert tier["nodes"] > 1
    line = tier_line(items, "simple")
    need = math.ceil(tier["per_node_bytes"] / host_memory.GIB)
    assert f"Each node needs {need} GiB of host RAM free" in line


def test_a_filesystem_tier_exports_its_seed_and_asks_for_a_volume(tmp_path):
    root = copy_project_root(tmp_path / "root", [MODEL])
    recipe = root / "models" / f"{MODEL}.yaml"
    recipe.write_text(recipe.read_text() + "\nkv_offload_support:\n  offloading_fs: verified\n")
    args = (MODEL, "--hardware", "h200", "--kv-offload", "offloading_fs")
    items, objects, helm = k8s(*args, root=root)
    (main,) = containers(objects)
    assert {"name": "PYTHONHASHSEED", "value": "0"} in main["env"]
    assert helm is not None
    assert {"name": "PYTHONHASHSEED", "value": "0"} in helm["servingEngineSpec"]["modelSpec"][0][
        "env"
    ]
    line = tier_line(items, "offloading_fs")
    assert (
        '"cpu_bytes_to_use":34359738368'
        in main["command"][main["command"].index("--kv-transfer-config") + 1]
    )
    assert "cpu_bytes_to_use = 34359738368" in line
    assert any("/mnt/kv_cache" in item and "mount a volume" in item for item in items)


def test_the_option_env_wins_over_the_rendering_own(ctx, recipes):
    r = render_choice(ctx, recipes[MODEL], "default", "h200", "single_node_tp")
    assert r.single is not None
    r = dataclasses.replace(r, env={"PYTHONHASHSEED": "1"})
    r = dataclasses.replace(r, single=dataclasses.replace(r.single, env={"PYTHONHASHSEED": "1"}))
    got = with_option_env(r, {"PYTHONHASHSEED": "0"})
    assert got.env["PYTHONHASHSEED"] == "0"
    assert got.single is not None and got.single.env["PYTHONHASHSEED"] == "0"


def test_the_rendering_own_image_gives_the_default_forms_byte_for_byte():
    plain = run("command", MODEL, "--hardware", "h200", "--k8s")
    same = run(
        "command", MODEL, "--hardware", "h200", "--image", "vllm/vllm-openai:latest", "--k8s"
    )
    assert plain.returncode == same.returncode == 0, same.stderr
    assert same.stdout == plain.stdout


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ((MODEL, "--hardware", "h200", "--kv-offload", "lmcache"), "(LMCache Server)"),
        (
            (
                "deepseek-ai/DeepSeek-V3",
                "--hardware",
                "h100",
                "--strategy",
                "pd_cluster",
                "--kv-offload",
                "kv_store_distributed_mooncake",
            ),
            "the Mooncake store runs companion processes",
        ),
        (
            (
                MODEL,
                "--hardware",
                "h200",
                "--strategy",
                "kv_store_distributed_mooncake",
                "--kv-instances",
                "3",
            ),
            "--kv-instances is refused with --k8s: it sizes the Mooncake kv-store's router",
        ),
    ],
)
def test_what_needs_a_companion_process_is_refused_with_k8s(args, says):
    got = run("command", *args, "--k8s")
    assert got.returncode == 1 and got.stdout == ""
    assert says in got.stderr and "refused with --k8s" in got.stderr, got.stderr
    assert "no manifest for a companion process yet" in got.stderr
    assert run("command", *args).returncode == 0  # the command itself is offered


@pytest.mark.parametrize("flag", ["--bench", "--monitoring"])
def test_bench_and_monitoring_stay_refused_with_the_options(flag):
    got = run("command", MODEL, "--hardware", "h200", "--kv-offload", "simple", "--k8s", flag)
    assert got.returncode == 1 and f"not with {flag}" in got.stderr, got.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("deepseek-ai/DeepSeek-V3", "--hardware", "h100", "--strategy", "pd_cluster"),
        (*MULTI,),
    ],
)
def test_every_pod_of_a_group_runs_the_chosen_image_and_auto_length(args):
    _, objects, _ = k8s(*args, "--image", CU129, "--max-model-len", "auto")
    pods = containers(objects)
    assert len(pods) >= 2
    for c in pods:
        assert c["image"] == CU129
        words = c["command"]
        assert words[words.index("--max-model-len") + 1] == "auto"
        assert words.count("--max-model-len") == 1
