"""Kubernetes forms of a rendering: manifests, production-stack Helm values and a checklist.

A stage above plan.py: pure functions from a `Rendering` (synthesis/types.py), the facts of its
hardware and its plan (plan.py) to plain dicts, dumped to YAML by PyYAML (never by joining
strings: every recipe string is hostile). Each container runs exactly the rendering's
`vllm serve` argv and environment, with four translations a cluster needs, each said here:

* `$` in a recipe string becomes `$$`: Kubernetes expands `$(NAME)` in `command` and `env`
  values and reads `$$` as one `$` (kubernetes.io/docs/tasks/inject-data-application/
  define-interdependent-environment-variables/), so a recipe's `$(HF_TOKEN)` stays text.
* our placeholders become what the cluster knows: the head address of a multi-node group
  (`$HEAD_IP`, `$VLLM_INSTANCE_1`, a pool's `$PREFILL_NODE_1`) is LeaderWorkerSet's
  `$(LWS_LEADER_ADDRESS)`, a worker's `--node-rank` is `$(LWS_WORKER_INDEX)` (both injected
  into every pod of a group: https://lws.sigs.k8s.io/docs/reference/leaderworkerset.v1/ and
  https://lws.sigs.k8s.io/docs/concepts/), `$IFACE_NAME` is the pod's interface `eth0`, a NIXL
  side-channel host is the pod's own IP (`status.podIP`), `$MOONCAKE_CONFIG_PATH` a ConfigMap file;
* `CUDA_VISIBLE_DEVICES` is left out: the device plugin gives each container its own GPUs,
  numbered from 0, so a node-local numbering would point at GPUs the pod does not have;
* a DP worker's `--data-parallel-start-rank` (index x local DP size) is computed by `sh` from
  `LWS_WORKER_INDEX`; the argv reaches `sh` as positional parameters, never as script text.

The Helm values target the vLLM production-stack chart `vllm-stack` (CHART_VERSION; keys as
helm/values.yaml and helm/values.schema.json of that release document them).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache

import yaml

from recipes_site import plan
from recipes_site.jsish import js_str
from recipes_site.synthesis.docker import is_gated
from recipes_site.synthesis.hardware import Hardware
from recipes_site.synthesis.shell import ENV_PLACEHOLDER, Placeholder

# The chart whose values we write: vllm-project/production-stack helm/Chart.yaml `version`
# (commit a6c01db05f65f556235413ba8dbcfb0c01132fff).
CHART_NAME, CHART_VERSION = "vllm-stack", "0.1.12"
CHART_REPO = "https://vllm-project.github.io/production-stack"
LWS_API_VERSION = "leaderworkerset.x-k8s.io/v1"
LWS_DOCS = "https://lws.sigs.k8s.io/docs/reference/leaderworkerset.v1/"

# Extended resource names of the device plugins, per image family (synthesis/hardware.py
# `image_family`): NVIDIA https://github.com/NVIDIA/k8s-device-plugin, AMD
# https://github.com/ROCm/k8s-device-plugin, TPU https://cloud.google.com/kubernetes-engine/docs/concepts/tpus,
# Intel GPUs https://github.com/intel/intel-device-plugins-for-kubernetes (gpu_plugin: `gpu.intel.com/i915`,
# and `gpu.intel.com/xe` for the xe kernel driver). CPU profiles request no device.
DEVICE_RESOURCES = {
    "nvidia": "nvidia.com/gpu",
    "amd": "amd.com/gpu",
    "tpu": "google.com/tpu",
    "xpu": "gpu.intel.com/i915",
}

# vLLM's own health endpoint: vllm/entrypoints/serve/instrumentator/health.py:22 (vLLM 0.33.0)
# answers 200 once the engine runs, 503 when it died. Default port: vllm/entrypoints/common/cli_args.py:295.
HEALTH_PATH, DEFAULT_PORT = "/health", 8000
HF_CACHE = "/root/.cache/huggingface"  # where the docker form mounts it (synthesis/docker.py)
HF_SECRET, HF_SECRET_KEY = "hf-token", "token"
POD_INTERFACE = "eth0"  # the interface a pod's network namespace gets from the CNI plugin
MOONCAKE_DIR, MOONCAKE_FILE = "/etc/mooncake", "mooncake.json"

# Startup probe budget: loading the weights (a first start downloads them too) plus compile and
# CUDA-graph capture. Rates are the slowest of the real startup logs in tests/data/startup_logs/:
#   load: 17.2217 GiB per GPU in 1219.49 s (gpt-oss-120b-4xa100-80gb-tp4-v01011-ray-u080.yaml,
#         https://github.com/dennislee22/vLLM-benchmarking, "Model loading took ...") = 0.0141 GiB/s;
#   graph capture: 101 s (same log); torch.compile: 54.73 s (llama31-70b-w8a8-1gpu-tp1-v1-...).
LOAD_GIB_PER_S = 17.2217 / 1219.491504
WARMUP_S = 101 + 54.73
PROBE_PERIOD_S = 10

LEADER_PLACEHOLDERS = frozenset(
    {"$HEAD_IP", "$VLLM_INSTANCE_1", "$PREFILL_NODE_1", "$DECODE_NODE_1"}
)
POD_IP_PLACEHOLDERS = frozenset({"$PREFILL_NODE_1", "$DECODE_NODE_1", "$HEAD_IP"})
RANK_FLAG, DP_START_FLAG = "--node-rank", "--data-parallel-start-rank"
WORKER_INDEX = "$(LWS_WORKER_INDEX)"
LEADER_ADDRESS = "$(LWS_LEADER_ADDRESS)"


class KubernetesError(ValueError):
    """A rendering has a word no Kubernetes form exists for (a placeholder we never map)."""


@dataclass(frozen=True)
class Target:
    """What the manifests need beside the rendering: names, the hardware, the checkpoint."""

    name: str  # DNS-1123 label the objects are named after
    model: str  # the checkpoint served
    family: str  # synthesis/hardware.py image_family: nvidia, amd, tpu, xpu, cpu
    hardware_name: str  # the profile's display name
    gated: bool  # the checkpoint is a gated Hugging Face repository (synthesis/docker.py)
    weights_gib: float  # the whole checkpoint (plan.py weights_gib)
    weights_gib_per_gpu: float  # what one GPU loads (plan.py weights_gib_per_gpu)


@dataclass(frozen=True)
class KubeForms:
    """The Kubernetes forms of one rendering, as YAML text."""

    manifests: str | None  # multi-document YAML for kubectl apply
    helm_values: str | None  # values for the vllm-stack chart
    prerequisites: tuple  # what the cluster needs first, in words


def object_name(hf_id: str) -> str:
    """A DNS-1123 label from a model id: its repository name, lower case, at most 40 characters
    (LeaderWorkerSet suffixes pod names with group and worker indexes)."""
    repo = hf_id.rsplit("/", 1)[-1].lower()
    name = re.sub(r"[^a-z0-9]+", "-", repo).strip("-")[:40].strip("-")
    return name if name[:1].isalpha() else f"vllm-{name}".strip("-")[:40].strip("-")


def dump(documents: list) -> str:
    """Deterministic multi-document YAML: keys in the order written, long lines unbroken,
    unicode kept, no anchors."""
    return "---\n".join(_dumped(json.dumps(doc)) for doc in documents)


@lru_cache(maxsize=4096)
def _dumped(doc_json: str) -> str:
    """One document's YAML, memoised by its JSON text: the renderings of a catalog repeat most
    objects (the cache volume, the Service, one Deployment across profiles), and PyYAML's
    representer is about two thirds of the Kubernetes documents' build time without it."""
    return yaml.dump(
        json.loads(doc_json),
        Dumper=_DUMPER,
        sort_keys=False,
        default_flow_style=False,
        allow_unicode=True,
        width=1 << 20,
    )


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """libyaml's emitter when PyYAML has it (about 20x faster over a catalog's renderings; the
    pure Python SafeDumper writes the same YAML otherwise), never writing anchors: a reader
    copies one object out of the text and it must stand alone."""

    def ignore_aliases(self, data) -> bool:
        return True


_DUMPER = _Dumper


def escaped(text: str) -> str:
    """A literal string as Kubernetes reads it back unchanged from `command`, `args` or `env`."""
    return text.replace("$", "$$")


def startup_seconds(weights_gib_per_gpu: float) -> int:
    """How long a first start may take before the startup probe gives up (see LOAD_GIB_PER_S)."""
    return math.ceil(weights_gib_per_gpu / LOAD_GIB_PER_S + WARMUP_S)


def probes(port_name: str, weights_gib_per_gpu: float) -> dict:
    check = {"httpGet": {"path": HEALTH_PATH, "port": port_name}}
    budget = startup_seconds(weights_gib_per_gpu)
    return {
        "startupProbe": {
            **check,
            "periodSeconds": PROBE_PERIOD_S,
            "failureThreshold": math.ceil(budget / PROBE_PERIOD_S),
        },
        "readinessProbe": {**check, "periodSeconds": 5, "failureThreshold": 3},
        "livenessProbe": {**check, "periodSeconds": 10, "failureThreshold": 3},
    }


# -- argv and env ---------------------------------------------------------------------------------


def word(token, in_group: bool) -> str:
    """One argv word as a container reads it: a placeholder of ours becomes a reference to the
    group leader's address or to the container variable of its name (`placeholder_env`)."""
    if isinstance(token, Placeholder):
        if in_group and token in LEADER_PLACEHOLDERS:
            return LEADER_ADDRESS
        return f"$({token[1:]})"
    return escaped(js_str(token))


def placeholder_env(argv, in_group: bool) -> tuple[list[dict], list[str]]:
    """The container variables `word` refers to, and notes for those the person sets: an address
    placeholder outside a group is the pod's own IP (the process is the one it names)."""
    env: list[dict] = []
    notes: list[str] = []
    for token in dict.fromkeys(t for t in argv if isinstance(t, Placeholder)):
        if in_group and token in LEADER_PLACEHOLDERS:
            continue
        name = token[1:]
        if token in LEADER_PLACEHOLDERS:
            env.append({"name": name, "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}})
        else:
            env.append({"name": name, "value": ""})
            notes.append(f"Set {name} in the manifests: the command's {token} is yours to choose.")
    return env, notes


def flag_value(argv, flag: str) -> str | None:
    for i, tok in enumerate(argv[:-1]):
        if tok == flag:
            return str(argv[i + 1])
    return None


def _without(argv: tuple, flag: str) -> tuple:
    out, skip = [], False
    for i, tok in enumerate(argv):
        if skip:
            skip = False
            continue
        if tok == flag and i + 1 < len(argv):
            skip = True
            continue
        out.append(tok)
    return tuple(out)


def _with_rank(argv: tuple, rank) -> tuple:
    return tuple(rank if i > 0 and argv[i - 1] == RANK_FLAG else tok for i, tok in enumerate(argv))


def worker_template(workers: tuple) -> tuple[tuple, int]:
    """(argv every worker shares, DP ranks per node): worker i's argv is the first worker's with
    `--node-rank i` and `--data-parallel-start-rank i x step`; raises when the workers differ
    otherwise (a layout LeaderWorkerSet's one worker template cannot hold)."""
    first = workers[0].argv
    start = flag_value(first, DP_START_FLAG)
    step = int(start) if start is not None else 0
    shared = _with_rank(_without(first, DP_START_FLAG), WORKER_INDEX)
    for i, w in enumerate(workers, 1):
        own = flag_value(w.argv, DP_START_FLAG)
        if _with_rank(_without(w.argv, DP_START_FLAG), WORKER_INDEX) != shared or (
            own is not None and int(own) != i * step
        ):
            raise KubernetesError(f"worker {i} differs from worker 1 beyond its rank")
    return shared, step


def container_command(argv: tuple, in_group: bool, dp_step: int = 0) -> list[str]:
    words = [WORKER_INDEX if t == WORKER_INDEX else word(t, in_group) for t in argv]
    if not dp_step:
        return words
    # sh receives the argv as "$0" "$@" (never parsed as script); only the integer step is ours.
    script = f'exec "$0" "$@" {DP_START_FLAG} "$((LWS_WORKER_INDEX * {dp_step}))"'
    return ["/bin/sh", "-c", escaped(script), *words]


def env_entries(env: dict, gated: bool) -> tuple[list[dict], list[str]]:
    """The container's env and the notes for values the person must set."""
    out: list[dict] = []
    notes: list[str] = []
    for name, value in env.items():
        name = str(name)
        if name == "CUDA_VISIBLE_DEVICES":
            continue  # the device plugin numbers the pod's own GPUs from 0
        if isinstance(value, Placeholder):
            if value == "$IFACE_NAME":
                out.append({"name": name, "value": POD_INTERFACE})
            elif value in POD_IP_PLACEHOLDERS:
                out.append({"name": name, "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}})
            elif value == "$MOONCAKE_CONFIG_PATH":
                out.append({"name": name, "value": f"{MOONCAKE_DIR}/{MOONCAKE_FILE}"})
            else:
                raise KubernetesError(f"no Kubernetes form for {value} in {name}")
            continue
        text = js_str(value)
        if ENV_PLACEHOLDER.fullmatch(text):
            notes.append(f"Set {name} in the manifests: the recipe leaves it to you ({text}).")
        out.append({"name": name, "value": escaped(text)})
    out.append(
        {
            "name": "HF_TOKEN",
            "valueFrom": {
                "secretKeyRef": {
                    "name": HF_SECRET,
                    "key": HF_SECRET_KEY,
                    **({} if gated else {"optional": True}),
                }
            },
        }
    )
    return out, notes


def port_of(argv) -> int:
    value = flag_value(argv, "--port")
    return int(value) if value and value.isdigit() else DEFAULT_PORT


# -- pods -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pod:
    """One kind of pod of the deployment."""

    argv: tuple
    env: dict
    image: str
    devices: int  # accelerators the pod holds
    in_group: bool = False  # part of a LeaderWorkerSet group
    dp_step: int = 0
    rdma: bool = False  # the pod talks NCCL/NIXL/Mooncake to other pods
    serves: bool = True  # runs the HTTP server (a --headless worker does not)


def resources(target: Target, devices: int) -> dict:
    resource = DEVICE_RESOURCES.get(target.family)
    if resource is None or devices < 1:
        return {}
    return {"limits": {resource: devices}}


def container(target: Target, pod: Pod) -> tuple[dict, list[str]]:
    own, notes = placeholder_env(pod.argv, pod.in_group)
    env, more = env_entries(pod.env, target.gated)
    env, notes = own + env, notes + more
    port = port_of(pod.argv)
    out: dict = {
        "name": "vllm",
        "image": pod.image,
        "command": container_command(pod.argv, pod.in_group, pod.dp_step),
        "env": env,
        "ports": [{"name": "http", "containerPort": port}],
    }
    limits = resources(target, pod.devices)
    if limits:
        out["resources"] = limits
    mounts: list[dict] = [
        {"name": "dshm", "mountPath": "/dev/shm"},
        {"name": "model-cache", "mountPath": HF_CACHE},
    ]
    if any(v == "$MOONCAKE_CONFIG_PATH" for v in pod.env.values()):
        mounts.append({"name": "mooncake-config", "mountPath": MOONCAKE_DIR, "readOnly": True})
    out["volumeMounts"] = mounts
    if pod.rdma:
        # RDMA registers (pins) memory: the capability NCCL/UCX need to lock it
        out["securityContext"] = {"capabilities": {"add": ["IPC_LOCK"]}}
    if pod.serves:
        out.update(probes("http", target.weights_gib_per_gpu))
    return out, notes


def pod_spec(target: Target, pod: Pod) -> tuple[dict, list[str]]:
    main, notes = container(target, pod)
    volumes: list[dict] = [
        {"name": "dshm", "emptyDir": {"medium": "Memory"}},
        {"name": "model-cache", "persistentVolumeClaim": {"claimName": cache_claim(target)}},
    ]
    if any(m["name"] == "mooncake-config" for m in main["volumeMounts"]):
        volumes.append(
            {"name": "mooncake-config", "configMap": {"name": f"{target.name}-mooncake"}}
        )
    return {"containers": [main], "volumes": volumes}, notes


def cache_claim(target: Target) -> str:
    return f"{target.name}-model-cache"


def cache_gib(target: Target) -> int:
    """The model-cache volume: the checkpoint's size (plan.py weights_gib), whole GiB up."""
    return max(1, math.ceil(target.weights_gib))


def pvc(target: Target, shared: bool) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": cache_claim(target)},
        "spec": {
            "accessModes": ["ReadWriteMany" if shared else "ReadWriteOnce"],
            "resources": {"requests": {"storage": f"{cache_gib(target)}Gi"}},
        },
    }


def labels(name: str, role: str | None = None) -> dict:
    out = {"app.kubernetes.io/name": name}
    if role:
        out["app.kubernetes.io/component"] = role
    return out


def deployment(target: Target, name: str, pod: Pod, replicas: int = 1) -> tuple[dict, list]:
    spec, notes = pod_spec(target, pod)
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": labels(name)},
        "spec": {
            "replicas": replicas,
            # a rolling update would ask for a second set of GPUs while the first still holds them
            "strategy": {"type": "Recreate"},
            "selector": {"matchLabels": labels(name)},
            "template": {"metadata": {"labels": labels(name)}, "spec": spec},
        },
    }, notes


def leader_worker_set(
    target: Target, name: str, leader: Pod, worker: Pod, size: int, replicas: int = 1
) -> tuple[dict, list]:
    leader_spec, notes = pod_spec(target, leader)
    worker_spec, more = pod_spec(target, worker)
    return {
        "apiVersion": LWS_API_VERSION,
        "kind": "LeaderWorkerSet",
        "metadata": {"name": name, "labels": labels(name)},
        "spec": {
            "replicas": replicas,
            "leaderWorkerTemplate": {
                "size": size,
                # one pod lost breaks the whole parallel group: start the group again
                "restartPolicy": "RecreateGroupOnPodRestart",
                "leaderTemplate": {
                    "metadata": {"labels": labels(name, "leader")},
                    "spec": leader_spec,
                },
                "workerTemplate": {
                    "metadata": {"labels": labels(name, "worker")},
                    "spec": worker_spec,
                },
            },
        },
    }, notes + more


def service_name(name: str, pods: int) -> str:
    """The Service in front of a workload: a LeaderWorkerSet makes a headless Service of its own
    name for its pods' DNS (leaderworkerset_types.go SubdomainShared), so ours of its leaders
    takes another."""
    return name if pods < 2 else f"{name}-leader"


def service(name: str, port: int, leaders_only: bool = False) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": service_name(name, 2 if leaders_only else 1), "labels": labels(name)},
        "spec": {
            "selector": labels(name, "leader") if leaders_only else labels(name),
            "ports": [{"name": "http", "port": port, "targetPort": "http"}],
        },
    }


def _env(rendering, process) -> dict:
    return {**(rendering.env or {}), **(process.env or {})}


def group_objects(
    target: Target, name: str, rendering, head, workers: tuple, devices: int, replicas: int = 1
) -> tuple[list[dict], list[str]]:
    """A process group: one Deployment (no workers) or a LeaderWorkerSet, and its Service."""
    image = rendering.docker_image or ""
    if not workers:
        pod = Pod(head.argv, _env(rendering, head), image, devices, rdma=bool(rendering.prefill))
        obj, notes = deployment(target, name, pod, replicas)
        return [obj, service(name, port_of(head.argv))], notes
    shared, step = worker_template(workers)
    leader = Pod(head.argv, _env(rendering, head), image, devices, True, 0, True)
    worker = Pod(
        shared,
        _env(rendering, workers[0]),
        image,
        devices,
        True,
        step,
        True,
        serves="--headless" not in shared,
    )
    obj, notes = leader_worker_set(target, name, leader, worker, 1 + len(workers), replicas)
    return [obj, service(name, port_of(head.argv), leaders_only=True)], notes


# -- Helm values for the production-stack chart ------------------------------------------------------


def image_parts(image: str) -> tuple[str, str]:
    """(repository, tag) as the chart joins them (`repository:tag`)."""
    name, at, digest = image.partition("@")
    repo, colon, tag = name.rpartition(":")
    if not colon or "/" in tag:
        repo, tag = name, "latest"
    return repo, tag + (at + digest if at else "")


def engine_values(target: Target, rendering, proc, replicas: int, devices: int) -> dict:
    """servingEngineSpec for `replicas` copies of one single-pod process (helm/values.yaml
    modelSpec keys). The chart's template writes `vllm serve <modelURL> --host 0.0.0.0 --port
    8000` and a prefix-caching switch before `vllmConfig.extraArgs`, which carry the rendering's
    arguments unchanged (a later flag wins in vLLM's argparse)."""
    repo, tag = image_parts(rendering.docker_image or "")
    own, _ = placeholder_env(proc.argv, False)
    env, _ = env_entries(_env(rendering, proc), target.gated)
    env = own + env
    spec: dict = {
        "name": target.name,
        "repository": repo,
        "tag": tag,
        "modelURL": target.model,
        "replicaCount": replicas,
        "runtimeClassName": "",
        "pvcStorage": f"{cache_gib(target)}Gi",
        "vllmConfig": {
            # the chart always writes one of the two switches: on, vLLM's default for generative
            # models (vllm/config/cache.py:257); off for a pooling runner, which vLLM warns may
            # crash with it on (vllm/engine/arg_utils.py:3075-3088); the recipe's own switch wins
            "enablePrefixCaching": "--no-enable-prefix-caching" not in proc.argv
            and flag_value(proc.argv, "--runner") != "pooling",
            "extraArgs": [word(t, False) for t in proc.argv[3:]],
        },
        "env": [e for e in env if e["name"] != "HF_TOKEN"],
    }
    limits = resources(target, devices)
    if limits:
        spec["resources"] = limits
    if any(v == "$MOONCAKE_CONFIG_PATH" for v in _env(rendering, proc).values()):
        spec["extraVolumes"] = [
            {"name": "mooncake-config", "configMap": {"name": f"{target.name}-mooncake"}}
        ]
        spec["extraVolumeMounts"] = [
            {"name": "mooncake-config", "mountPath": MOONCAKE_DIR, "readOnly": True}
        ]
    if target.gated:
        spec["hf_token"] = {"secretName": HF_SECRET, "secretKey": HF_SECRET_KEY}
    return {"servingEngineSpec": {"runtimeClassName": "", "modelSpec": [spec]}}


def router_values(routing: str, backends: list[str] | None = None, models=None, extra=None) -> dict:
    spec: dict = {"enableRouter": True, "routingLogic": routing}
    if backends:
        spec.update(
            serviceDiscovery="static",
            staticBackends=",".join(backends),
            staticModels=",".join(models or ()),
        )
    if extra:
        spec["extraArgs"] = list(extra)
    return {"routerSpec": spec}


# -- one rendering --------------------------------------------------------------------------------


def devices_per_pod(total: int, pods: int) -> int:
    return max(1, total // max(1, pods))


def kube_forms(rendering, target: Target, gpus: int, replicas: int = 1) -> KubeForms:
    """The Kubernetes forms of `rendering` on its hardware; `gpus`: the devices its main process
    group occupies (plan.py footprint / fit.Shape.gpus); `replicas`: how many copies of a
    single-node command fill a node (plan.py replica_parts), which then also get chart values
    that serve them behind the chart's router."""
    kind = rendering.deploy_type
    checklist = base_checklist(target)
    helm: dict | None = None
    objects: list[dict] = []
    notes: list[str] = []
    if kind == "single_node" and rendering.single is not None:
        objs, notes = group_objects(target, target.name, rendering, rendering.single, (), gpus)
        objects = [pvc(target, False), *objs]
        if replicas > 1:
            # prefixaware: requests sharing a prefix go where its KV cache is (the chart's
            # kvaware needs an LMCache controller these commands do not run)
            helm = {
                **engine_values(target, rendering, rendering.single, replicas, gpus),
                **router_values("prefixaware"),
            }
            checklist.append(
                f"Two forms: the manifests run one copy; the chart values run the {replicas} "
                f"copies one {target.hardware_name} node holds, behind the chart's router."
            )
    elif kind == "multi_node" and rendering.head is not None:
        pods = 1 + len(rendering.workers)
        objs, notes = group_objects(
            target,
            target.name,
            rendering,
            rendering.head,
            rendering.workers,
            devices_per_pod(gpus, pods),
        )
        objects = [pvc(target, True), *objs]
        checklist += multi_node_checklist(target)
    elif kind == "pd_cluster" and rendering.prefill is not None and rendering.decode is not None:
        objects = [pvc(target, True)]
        backends = []
        for role, pool in (("prefill", rendering.prefill), ("decode", rendering.decode)):
            name = f"{target.name}-{role}"
            pods = max(1, pool.nodes)
            workers = pool_workers(pool, pods)
            objs, more = group_objects(
                target,
                name,
                rendering,
                pool.process,
                workers,
                devices_per_pod(pool.pool_gpus, pods),
            )
            objects += objs
            notes += more
            backends.append(f"http://{service_name(name, pods)}:{port_of(pool.process.argv)}")
        helm = {
            "servingEngineSpec": {"enableEngine": False},
            **router_values(
                "disaggregated_prefill",
                backends,
                [target.model, target.model],
                [
                    "--static-model-labels",
                    "prefill,decode",
                    "--prefill-model-labels",
                    "prefill",
                    "--decode-model-labels",
                    "decode",
                ],
            ),
        }
        checklist += multi_node_checklist(target) + pd_checklist()
    elif kind == "kv_store_lb" and rendering.kv is not None:
        kv = rendering.kv
        pods = 1 + len(kv.workers)
        devices = devices_per_pod(gpus // max(1, kv.instances), pods)
        if kv.workers:
            objs, notes = group_objects(
                target, target.name, rendering, kv.head, kv.workers, devices, kv.instances
            )
            objects = [pvc(target, True), *objs]
            # each group's leader answers at <lws>-<group>.<lws> (LWS_LEADER_ADDRESS)
            backends = [
                f"http://{target.name}-{i}.{target.name}:{port_of(kv.head.argv)}"
                for i in range(kv.instances)
            ]
            helm = {
                "servingEngineSpec": {"enableEngine": False},
                **router_values("prefixaware", backends, [target.model] * kv.instances),
            }
            checklist += multi_node_checklist(target)
        else:
            # the command's router matches request prefixes (vllm-router cache_aware): the chart's
            # prefixaware; its kvaware asks an LMCache controller, which a Mooncake store has not
            helm = {
                **engine_values(target, rendering, kv.head, kv.instances, devices),
                **router_values("prefixaware"),
            }
            notes = placeholder_env(kv.head.argv, False)[1]
            notes += env_entries(_env(rendering, kv.head), target.gated)[1]
        checklist += kv_checklist(target, kv.install)
    else:
        raise KubernetesError(f"no Kubernetes form for a {kind} rendering")
    if helm is not None:
        checklist.append(
            f"Helm and the {CHART_NAME} chart {CHART_VERSION}: helm repo add vllm {CHART_REPO} && "
            f"helm install {target.name} vllm/{CHART_NAME} --version {CHART_VERSION} -f values.yaml"
        )
    return KubeForms(
        dump(objects) if objects else None,
        dump([helm]) if helm is not None else None,
        tuple(dict.fromkeys(checklist + notes)),
    )


def pool_workers(pool, pods: int) -> tuple:
    """A pool spanning nodes renders its head only; its workers are the head with `--headless`
    and their rank: `--node-rank i` (tensor/pipeline parallel, as synthesis/deployments.py ranks
    multi-node layouts) or `--data-parallel-start-rank i x local DP size` (data parallel, as
    vLLM's data-parallel deployment guide starts headless nodes)."""
    if pods < 2:
        return ()
    argv = tuple(pool.process.argv)
    # with DP load balancing per node, every node runs its own API server
    headless = (
        ()
        if {"--data-parallel-hybrid-lb", "--data-parallel-external-lb"} & set(argv)
        else ("--headless",)
    )
    if RANK_FLAG in argv:
        rank = lambda i: _with_rank(argv, str(i)) + headless
    elif DP_START_FLAG in argv and pool.dp_local > 0:
        rank = lambda i: _with_value(argv, DP_START_FLAG, str(i * pool.dp_local)) + headless
    else:
        raise KubernetesError("a pool on several nodes with no rank flag to give its workers")
    # argv and env are all the manifests read of a process
    return tuple(type(pool.process)(rank(i), "", pool.process.env, (), "") for i in range(1, pods))


def _with_value(argv: tuple, flag: str, value: str) -> tuple:
    return tuple(value if i > 0 and argv[i - 1] == flag else t for i, t in enumerate(argv))


# -- the checklist ----------------------------------------------------------------------------------


def base_checklist(target: Target) -> list[str]:
    device = DEVICE_RESOURCES.get(target.family)
    items = []
    if target.family == "nvidia":
        items.append(
            "NVIDIA GPU Operator (or the NVIDIA device plugin and container toolkit) so nodes "
            "advertise nvidia.com/gpu."
        )
    elif target.family == "amd":
        items.append("AMD GPU Operator (or the ROCm device plugin) so nodes advertise amd.com/gpu.")
    elif target.family == "tpu":
        items.append(
            "A GKE TPU node pool (nodes advertise google.com/tpu); add the nodeSelector "
            "cloud.google.com/gke-tpu-accelerator and cloud.google.com/gke-tpu-topology of "
            "your slice."
        )
    elif target.family == "xpu":
        items.append(
            "Intel GPU device plugin (intel-device-plugins-for-kubernetes) so nodes advertise "
            "gpu.intel.com/i915 (gpu.intel.com/xe with the xe kernel driver: change the "
            "resource name then)."
        )
    elif target.family == "cpu":
        items.append(
            "No device resource is requested (CPU profile): set resources.requests cpu and "
            "memory to what the node can give."
        )
    else:
        items.append(
            f"No device resource is requested: add the {target.hardware_name} device plugin's "
            "resource name and count to resources.limits."
        )
    if device:
        items.append(
            f"Nodes of {target.hardware_name} labelled, and a nodeSelector or node affinity on "
            "that label, so the pods land there (e.g. nvidia.com/gpu.product from GPU Feature "
            "Discovery)."
        )
    if target.gated:
        items.append(
            f"Secret {HF_SECRET} with key {HF_SECRET_KEY} (kubectl create secret generic "
            f"{HF_SECRET} --from-literal={HF_SECRET_KEY}=<your token>): {target.model} is gated "
            "on Hugging Face; accept its licence first."
        )
    else:
        items.append(
            f"Optional: Secret {HF_SECRET} with key {HF_SECRET_KEY} (a Hugging Face token lifts "
            "download rate limits)."
        )
    items.append(
        f"A StorageClass for the {cache_gib(target)} GiB model-cache volume "
        f"({cache_claim(target)})."
    )
    return items


def multi_node_checklist(target: Target) -> list[str]:
    return [
        f"The LeaderWorkerSet controller ({LWS_API_VERSION}; "
        "https://lws.sigs.k8s.io/docs/installation/).",
        "RDMA / InfiniBand exposed to pods (e.g. the NVIDIA Network Operator with an RDMA "
        "device plugin); without it NCCL falls back to TCP sockets.",
        "The IPC_LOCK capability allowed by the namespace's Pod Security level (the pods add "
        "it to pin RDMA memory).",
        f"NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME are {POD_INTERFACE}, the pod's interface: "
        "change them with host networking or a secondary (Multus) network.",
        "A ReadWriteMany StorageClass (NFS, CephFS, a cloud file store) for the model cache "
        "every pod mounts.",
    ]


def pd_checklist() -> list[str]:
    return [
        "NIXL moves the KV cache between the pools: RDMA between their nodes for speed "
        "(UCX falls back to TCP).",
    ]


def kv_checklist(target: Target, install: str | None) -> list[str]:
    return [
        *(
            [
                f"An image with the Mooncake client installed ({install}), e.g. one built FROM the image shown."
            ]
            if install
            else []
        ),
        "A Mooncake master (mooncake_master, port 50051) the pods reach, and the store "
        "service, as the command tab shows.",
        f"ConfigMap {target.name}-mooncake with key {MOONCAKE_FILE}: the Mooncake config the "
        "command tab shows, $MOONCAKE_MASTER_IP and the device name filled in.",
    ]


# -- from a recipe's rendering ----------------------------------------------------------------------


def target_of(hf_id: str, recipe: dict, rendering, profile: dict, found: dict) -> Target:
    """The Target of `rendering` on `profile`, `found` its plan (plan.rendering_plan)."""
    main = rendering.main_process
    model = str(main.argv[2]) if main is not None and len(main.argv) > 2 else hf_id
    variant = (recipe.get("variants") or {}).get(rendering.variant) or {}
    return Target(
        name=object_name(hf_id),
        model=model,
        family=image_family(rendering.hardware, profile),
        hardware_name=str(profile.get("display_name") or rendering.hardware),
        gated=is_gated(recipe, variant if isinstance(variant, dict) else {}),
        weights_gib=float(found.get("weights_gib") or 0.0),
        weights_gib_per_gpu=float(
            found.get("weights_gib_per_gpu") or found.get("weights_gib") or 0.0
        ),
    )


def image_family(hw_id: str, profile: dict) -> str:
    """synthesis/hardware.py `image_family` (nvidia, amd, tpu, xpu, cpu), except that a profile it
    counts as NVIDIA without being one (e.g. Huawei) is "other": no device resource we know of."""
    family = Hardware(hw_id, profile).image_family
    return "other" if family == "nvidia" and profile.get("brand") != "NVIDIA" else family


def rendering_forms(
    hf_id: str, recipe: dict, rendering, profile: dict, plans: plan.RecipePlans, served=None
) -> KubeForms:
    """The Kubernetes forms of one rendering of a recipe on `profile`; `served`: the rendering
    the containers run when it differs from the one sized (the "More options" joined into it,
    more_options.py: the plan, the GPUs and the replicas stay the rendering's own)."""
    found = plan.rendering_plan(plans, rendering, profile)
    gpus, _ = plan.footprint(rendering, profile)
    parts = plan.replica_parts(rendering, found, profile)
    replicas = len(parts["replicas"]) if parts else 1
    target = target_of(hf_id, recipe, rendering, profile, found)
    return kube_forms(served or rendering, target, gpus, replicas)


def forms_text(forms: KubeForms) -> str:
    """`recipes-site command --k8s`: the checklist as comments, then the manifests and values."""
    parts = ["# Prerequisites\n" + "\n".join(f"# - {item}" for item in forms.prerequisites)]
    if forms.manifests:
        parts.append(f"# manifests.yaml (kubectl apply -f)\n{forms.manifests}")
    if forms.helm_values:
        parts.append(f"# values.yaml ({CHART_NAME} chart {CHART_VERSION})\n{forms.helm_values}")
    return "\n".join(parts).rstrip("\n")
