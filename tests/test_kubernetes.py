"""Kubernetes forms (recipes_site/kubernetes.py) validated against real schemas.

Core objects: kubernetes-validate's schemas of Kubernetes K8S_VERSION, strict (an unknown field
fails). LeaderWorkerSet: tests/data/leaderworkerset-v1.schema.json, written from the LWS v1 API
reference, with its pod templates validated as core PodTemplate objects. Helm values:
tests/data/vllm-stack-0.1.12-values-subset.schema.json, the chart keys we write as vllm-stack
0.1.12 documents them.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from pathlib import Path

import jsonschema
import kubernetes_validate
import pytest
import yaml
from cli_kit import run
from kubernetes_validate.utils import schema_contents
from referencing import Registry, Resource

from recipes_site import kubernetes, plan
from recipes_site.build import synthesize_catalog
from recipes_site.jsish import js_str
from recipes_site.render import schemas
from recipes_site.render.inputs import rendering_key
from recipes_site.render.kubernetes_api import kubernetes_doc, rendering_forms
from recipes_site.render.pages import doc_tabs
from recipes_site.synthesis import render_choice
from recipes_site.synthesis.shell import Placeholder
from recipes_site.synthesis.types import Process, pd_pool, rendering

K8S_VERSION = "1.33.0"  # the Kubernetes release the manifests are checked against
DATA = Path(__file__).parent / "data"
LWS_SCHEMA = json.loads((DATA / "leaderworkerset-v1.schema.json").read_text())
HELM_SCHEMA = json.loads((DATA / "vllm-stack-0.1.12-values-subset.schema.json").read_text())


@functools.cache
def core_validator(kind: str, api_version: str) -> jsonschema.Draft202012Validator:
    """kubernetes_validate.validate's validator (same schema files, strict, same registry), made
    once per kind: it otherwise parses the whole definitions file for every object."""
    group = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    folder = f"kubernetes-json-schema/v{K8S_VERSION}-local-strict"
    schema = schema_contents(f"{folder}/{kind.lower()}-{group}.json", K8S_VERSION)
    definitions = schema_contents(f"{folder}/_definitions.json", K8S_VERSION)
    registry = Resource.from_contents(definitions) @ (Resource.from_contents(schema) @ Registry())
    return jsonschema.Draft202012Validator(schema, registry=registry)


def check_core(obj: dict) -> None:
    core_validator(obj["kind"], obj["apiVersion"]).validate(obj)


def check_pod_template(template: dict) -> None:
    check_core(
        {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "t"}, "template": template}
    )


def load_all(text: str) -> list[dict]:
    return list(yaml.load_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))


def check_manifests(text: str) -> list[dict]:
    objects = load_all(text)
    for obj in objects:
        if obj["kind"] == "LeaderWorkerSet":
            jsonschema.validate(obj, LWS_SCHEMA)
            lwt = obj["spec"]["leaderWorkerTemplate"]
            for template in (lwt.get("leaderTemplate"), lwt["workerTemplate"]):
                if template is not None:
                    check_pod_template(template)
        else:
            check_core(obj)
    return objects


def check_helm(text: str) -> dict:
    values = yaml.safe_load(text)
    jsonschema.validate(values, HELM_SCHEMA)
    return values


@pytest.fixture(scope="module")
def rendered(catalog):
    return synthesize_catalog(catalog)


@pytest.fixture(scope="module")
def all_forms(rendered, ctx):
    """rendering key -> KubeForms for every rendering of every bundled recipe."""
    out = {}
    for rec in rendered:
        plans = plan.RecipePlans(rec.data)
        for tree in rec.rendered.trees:
            for res in tree.by_hardware:
                for r in (res.recommended, *res.alternatives):
                    forms = kubernetes.rendering_forms(
                        rec.hf_id, rec.data, r, ctx.profiles[res.hardware], plans
                    )
                    out[(rec.hf_id, rendering_key(res.hardware, r))] = (r, forms)
    return out


def test_every_bundled_rendering_has_valid_kubernetes_forms(all_forms):
    manifests = {f.manifests for _, f in all_forms.values() if f.manifests}
    values = {f.helm_values for _, f in all_forms.values() if f.helm_values}
    distinct = {}  # the same object (a Service, a PVC) recurs across renderings: checked once
    for text in manifests:
        for part in text.split("\n---\n"):
            distinct.setdefault(part, None)
    kinds = set()
    for part in distinct:
        kinds |= {o["kind"] for o in check_manifests(part)}
    for text in values:
        check_helm(text)
    assert {"Deployment", "Service", "PersistentVolumeClaim", "LeaderWorkerSet"} <= kinds
    assert values  # kv-store and prefill/decode deployments get chart values
    assert all(f.prerequisites for _, f in all_forms.values())


def test_validators_refuse_a_broken_object(all_forms):
    """The validators can fail: an unknown field, a wrong type, an unknown LWS policy."""
    text = next(f.manifests for r, f in all_forms.values() if r.deploy_type == "single_node")
    deployment = next(o for o in yaml.safe_load_all(text) if o["kind"] == "Deployment")
    kubernetes_validate.validate(deployment, K8S_VERSION, strict=True)  # the package itself
    check_core(deployment)
    deployment["spec"]["template"]["spec"]["containers"][0]["comand"] = ["vllm"]
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, K8S_VERSION, strict=True)
    with pytest.raises(jsonschema.ValidationError):
        check_core(deployment)
    text = next(f.manifests for r, f in all_forms.values() if r.deploy_type == "multi_node")
    lws = next(o for o in yaml.safe_load_all(text) if o["kind"] == "LeaderWorkerSet")
    lws["spec"]["leaderWorkerTemplate"]["restartPolicy"] = "Always"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(lws, LWS_SCHEMA)
    values = next(f.helm_values for _, f in all_forms.values() if f.helm_values)
    broken = yaml.safe_load(values)
    broken["routerSpec"]["routingLogic"] = "kv-aware"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, HELM_SCHEMA)


def unescaped(words: list[str]) -> list[str]:
    return [w.replace("$$", "$") for w in words]


def main_container(objects: list[dict], kind: str) -> dict:
    obj = next(o for o in objects if o["kind"] == kind)
    if kind == "LeaderWorkerSet":
        return obj["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]["containers"][0]
    return obj["spec"]["template"]["spec"]["containers"][0]


def test_single_node_container_runs_the_rendering_argv_and_env(all_forms):
    seen = 0
    for r, forms in all_forms.values():
        if r.deploy_type != "single_node":
            continue
        c = main_container(load_all(forms.manifests), "Deployment")
        assert unescaped(c["command"]) == [str(w) for w in r.single.argv]
        env = {e["name"]: e.get("value") for e in c["env"]}
        for name, value in {**r.env, **r.single.env}.items():
            if name != "CUDA_VISIBLE_DEVICES" and not isinstance(value, Placeholder):
                assert env[name].replace("$$", "$") == js_str(value)
        seen += 1
    assert seen > 100


def test_multi_node_workers_join_through_lws_leader_address_and_index(all_forms):
    for r, forms in all_forms.values():
        if r.deploy_type != "multi_node":
            continue
        objects = load_all(forms.manifests)  # validated in the first test
        lws = next(o for o in objects if o["kind"] == "LeaderWorkerSet")
        lwt = lws["spec"]["leaderWorkerTemplate"]
        assert lwt["size"] == 1 + len(r.workers)
        worker = lwt["workerTemplate"]["spec"]["containers"][0]["command"]
        leader = lwt["leaderTemplate"]["spec"]["containers"][0]["command"]
        assert "$HEAD_IP" not in leader + worker
        assert "$(LWS_LEADER_ADDRESS)" in worker
        if "--node-rank" in worker:
            assert worker[worker.index("--node-rank") + 1] == "$(LWS_WORKER_INDEX)"
        if "--data-parallel-start-rank" in r.workers[0].argv:
            assert worker[:2] == ["/bin/sh", "-c"] and "LWS_WORKER_INDEX" in worker[2]


def test_gpu_resources_per_vendor(all_forms):
    found = {}
    for (_, key), (r, forms) in all_forms.items():
        if r.deploy_type == "single_node":
            c = main_container(load_all(forms.manifests), "Deployment")
            found[key.split("/")[0]] = set((c.get("resources") or {}).get("limits", {}))
    assert found["h100"] == {"nvidia.com/gpu"}
    assert found["mi300x"] == {"amd.com/gpu"}
    r = next(r for r, _ in all_forms.values() if r.deploy_type == "single_node")
    for family, resource in (("tpu", "google.com/tpu"), ("xpu", "gpu.intel.com/i915")):
        forms = kubernetes.kube_forms(r, hostile_target(family=family), 4)
        c = main_container(check_manifests(forms.manifests), "Deployment")
        assert c["resources"]["limits"] == {resource: 4}
    cpu = kubernetes.kube_forms(r, hostile_target(family="cpu"), 4)
    assert "resources" not in main_container(check_manifests(cpu.manifests), "Deployment")


def test_gated_checkpoints_require_the_token_secret(recipes, ctx):
    for hf_id, gated in (("meta-llama/Llama-3.3-70B-Instruct", True), ("Qwen/Qwen3-8B", False)):
        r = render_choice(ctx, recipes[hf_id], "default", "h100", None, None, None)
        forms = kubernetes.rendering_forms(
            hf_id, recipes[hf_id], r, ctx.profiles["h100"], plan.RecipePlans(recipes[hf_id])
        )
        c = main_container(load_all(forms.manifests), "Deployment")
        token = next(e for e in c["env"] if e["name"] == "HF_TOKEN")["valueFrom"]["secretKeyRef"]
        assert token.get("optional", False) is (not gated)


def hostile_target(**changes) -> kubernetes.Target:
    base = kubernetes.Target("m", "org/m", "nvidia", "H100", False, 10.0, 10.0)
    return dataclasses.replace(base, **changes)


def test_hostile_recipe_strings_stay_literal():
    """Kubernetes expands $(NAME) in command and env: a recipe's text must not reach the token,
    and YAML must carry quotes, newlines and YAML-looking words unchanged."""
    hostile = ["$(HF_TOKEN)", "a'b\"c", "x\n- y: z", "yes", "0x1F", "--- ", "${HOME}", "#c"]
    argv = ("vllm", "serve", "org/m", "--chat-template", *hostile)
    env = {"EVIL": "$(HF_TOKEN)", "QUOTE": 'it\'s: "x"\n- y'}
    proc = Process(argv, "", env, (), "")
    r = rendering("h100", "single_node_tp", "default", 1, "single_node", {}, "img:1", single=proc)
    forms = kubernetes.kube_forms(r, hostile_target(), 1)
    objects = check_manifests(forms.manifests)
    c = main_container(objects, "Deployment")
    assert c["command"][4:] == [w.replace("$", "$$") for w in hostile]
    assert unescaped(c["command"]) == list(argv)
    values = {e["name"]: e.get("value") for e in c["env"]}
    assert values["EVIL"] == "$$(HF_TOKEN)" and values["QUOTE"] == env["QUOTE"]


def test_startup_probe_scales_with_the_weights():
    def threshold(gib):
        p = kubernetes.probes("http", gib)
        assert p["startupProbe"]["httpGet"]["path"] == "/health"
        return p["startupProbe"]["failureThreshold"]

    assert threshold(1) < threshold(10) < threshold(100)
    # 100 GiB per GPU at the slowest logged rate, plus warm-up, in 10 s periods
    assert threshold(100) == -(-kubernetes.startup_seconds(100) // 10)


def test_api_document_joins_to_the_forms(rendered, ctx, all_forms):
    rec = next(r for r in rendered if r.hf_id == "deepseek-ai/DeepSeek-R1-0528")
    doc = kubernetes_doc(rec, ctx)
    jsonschema.validate(doc, schemas.schema_for("model-kubernetes"))
    kinds = set()
    for key in doc["renderings"]:
        r, forms = all_forms[(rec.hf_id, key)]
        got = rendering_forms(doc, key)
        assert got["manifests"] == forms.manifests
        assert got["helm_values"] == forms.helm_values
        assert tuple(got["prerequisites"]) == forms.prerequisites
        kinds.add(r.deploy_type)
    assert {"single_node", "multi_node", "pd_cluster"} <= kinds


def test_prefill_decode_has_both_pools_and_the_router(all_forms):
    r, forms = next(v for v in all_forms.values() if v[0].deploy_type == "pd_cluster")
    names = {o["metadata"]["name"] for o in check_manifests(forms.manifests)}
    assert {n for n in names if n.endswith(("-prefill", "-decode"))}
    router = check_helm(forms.helm_values)["routerSpec"]
    assert router["routingLogic"] == "disaggregated_prefill"
    assert len(router["staticBackends"].split(",")) == 2
    assert any("LeaderWorkerSet" in p or "NIXL" in p for p in forms.prerequisites)


def test_cli_prints_the_manifests():
    out = run("command", "Qwen/Qwen3-8B", "--hardware", "h100", "--k8s")
    assert out.returncode == 0, out.stderr
    assert "kind: Deployment" in out.stdout and "# Prerequisites" in out.stdout


def test_placeholders_outside_a_group_become_pod_variables():
    """A single pool's own address is the pod's IP; any other placeholder a variable the
    checklist asks the person to set (never the text `$NAME`)."""
    argv = ("vllm", "serve", "org/m", "--data-parallel-address", Placeholder("$PREFILL_NODE_1"))
    argv += ("--data-parallel-rpc-port", Placeholder("$PREFILL_DP_RPC_PORT"))
    r = rendering(
        "h100",
        "single_node_tp",
        "default",
        1,
        "single_node",
        {},
        "img:1",
        single=Process(argv, "", {}, (), ""),
    )
    forms = kubernetes.kube_forms(r, hostile_target(), 1)
    c = main_container(check_manifests(forms.manifests), "Deployment")
    assert c["command"][-3:] == [
        "$(PREFILL_NODE_1)",
        "--data-parallel-rpc-port",
        "$(PREFILL_DP_RPC_PORT)",
    ]
    env = {e["name"]: e for e in c["env"]}
    assert env["PREFILL_NODE_1"]["valueFrom"]["fieldRef"]["fieldPath"] == "status.podIP"
    assert any("PREFILL_DP_RPC_PORT" in p for p in forms.prerequisites)


def test_a_data_parallel_pool_on_two_nodes_ranks_its_worker():
    argv = ("vllm", "serve", "org/m", "--port", "8001", "--data-parallel-size", "16")
    argv += ("--data-parallel-size-local", "8", "--data-parallel-start-rank", "0")
    argv += ("--data-parallel-address", Placeholder("$PREFILL_NODE_1"))
    env = {
        "VLLM_NIXL_SIDE_CHANNEL_HOST": Placeholder("$PREFILL_NODE_1"),
        "CUDA_VISIBLE_DEVICES": "0",
    }
    pool = pd_pool(Process(argv, "", env, (), ""), 2, "dep", 1, 8, 16, 16)
    decode = pd_pool(Process(argv, "", env, (), ""), 0, "dep", 1, 8, 8, 8)
    r = rendering(
        "h100",
        "pd_cluster",
        "default",
        1,
        "pd_cluster",
        {},
        "img:1",
        prefill=pool,
        decode=decode,
    )
    forms = kubernetes.kube_forms(r, hostile_target(), 24)
    objects = check_manifests(forms.manifests)
    lws = next(o for o in objects if o["kind"] == "LeaderWorkerSet")
    worker = lws["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"][0]
    assert worker["command"][:2] == ["/bin/sh", "-c"] and "--headless" in worker["command"]
    assert "LWS_WORKER_INDEX * 8" in worker["command"][2]
    assert "$(LWS_LEADER_ADDRESS)" in worker["command"]
    assert all(e["name"] != "CUDA_VISIBLE_DEVICES" for e in worker["env"])
    host = next(e for e in worker["env"] if e["name"] == "VLLM_NIXL_SIDE_CHANNEL_HOST")
    assert host["valueFrom"]["fieldRef"]["fieldPath"] == "status.podIP"


def test_chart_values_turn_prefix_caching_off_for_a_pooling_runner(all_forms):
    r, forms = all_forms[("BAAI/bge-m3", "h200/default/kv_store_centralized_mooncake/1")]
    spec = check_helm(forms.helm_values)["servingEngineSpec"]["modelSpec"][0]
    assert spec["vllmConfig"]["enablePrefixCaching"] is False
    assert spec["vllmConfig"]["extraArgs"] == [str(w) for w in r.kv.head.argv[3:]]
    assert spec["replicaCount"] == r.kv.instances


def test_the_page_lists_a_tab_for_each_part_the_build_wrote():
    path = "api/v1/models/org/m/deploy.json"
    one = doc_tabs("org/m", {path: {"kubernetes": {"renderings": {}}}})
    assert [(t[0], t[2]) for t in one] == [("kubernetes", "/" + path + "#kubernetes")]
    both = {path: {"kubernetes": {"renderings": {}}, "monitoring": {"renderings": {}}}}
    assert [t[:2] for t in doc_tabs("org/m", both)] == [
        ("kubernetes", "Kubernetes"),
        ("monitoring", "Monitoring"),
    ]
    assert doc_tabs("org/m", {}) == []


def test_object_names_do_not_collide(all_forms):
    """Within one rendering every (kind, name) is unique, and no Service takes the name of a
    LeaderWorkerSet (which makes a headless Service of its own name)."""
    for r, forms in all_forms.values():
        objects = load_all(forms.manifests) if forms.manifests else []
        names = [(o["kind"], o["metadata"]["name"]) for o in objects]
        assert len(names) == len(set(names)), names
        lws = {n for k, n in names if k == "LeaderWorkerSet"}
        assert not lws & {n for k, n in names if k == "Service"}, names
        if forms.helm_values and r.deploy_type == "pd_cluster":
            services = {n for k, n in names if k == "Service"}
            backends = check_helm(forms.helm_values)["routerSpec"]["staticBackends"].split(",")
            assert {b.split("//")[1].split(":")[0] for b in backends} <= services


def test_replicas_that_fill_a_node_get_chart_values_behind_the_router(recipes, ctx):
    data = recipes["Qwen/Qwen3-8B"]
    r = render_choice(ctx, data, "default", "h100", None, None, None)
    plans = plan.RecipePlans(data)
    parts = plan.replica_parts(
        r, plan.rendering_plan(plans, r, ctx.profiles["h100"]), ctx.profiles["h100"]
    )
    forms = kubernetes.rendering_forms("Qwen/Qwen3-8B", data, r, ctx.profiles["h100"], plans)
    values = check_helm(forms.helm_values)
    assert values["servingEngineSpec"]["modelSpec"][0]["replicaCount"] == len(parts["replicas"]) > 1
    assert values["routerSpec"]["routingLogic"] == "prefixaware"
