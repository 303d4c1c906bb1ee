"""The model page's on-demand picker options: the KV-offload row (kv_offload.py), the container
image choice and `--max-model-len auto`, published as one catalog-wide document,
`api/v1/picker-options.json`, that static/more.js fetches when the reader opens the page's
"More options" row. Python decides every word; the page only picks and joins them.

`--max-model-len auto`: vLLM 0.33 parses `auto` (or -1) for this flag alone
(vllm/engine/arg_utils.py:404-406 -> vllm/utils/argparse_utils.py:77-94), starts from the
model's own window (vllm/config/model.py:2639-2653) and, once the KV cache is sized, lowers it
to the longest request that fits (vllm/v1/core/kv_cache_planning.py:1337-1408, called at
:1545-1546). It replaces any `--max-model-len N` the command carries.

Images: the default image of each family is the reference's (synthesis/docker.py
DEFAULT_IMAGES, NIGHTLY_IMAGES, XPU_IMAGE). Since vLLM 0.20.0 the unsuffixed
`vllm/vllm-openai` tags are CUDA 13 builds and CUDA 12.9 builds carry a `-cu129` suffix
(https://github.com/vllm-project/vllm/issues/42738, a maintainer: "After v0.20.0, default
wheel/docker nightly version is cu130"; https://github.com/ai-dynamo/nixl/pull/2140: "Starting
with vLLM v0.20.0, CUDA 13 became the default ... `latest-cu129` remains a valid CUDA 12.9
tag"). A recipe's own pinned image is shown as pinned, with no alternative we would have to
guess.
"""

from __future__ import annotations

from recipes_site import host_memory
from recipes_site.jsish import mapping
from recipes_site.render import kv_offload
from recipes_site.synthesis.deployments import kv_router_command
from recipes_site.synthesis.docker import DEFAULT_IMAGES, NIGHTLY_IMAGES, XPU_IMAGE
from recipes_site.synthesis.pd_store import PD_NOTE, companion_steps, pd_store

API_PATH = "api/v1/picker-options.json"

MAX_MODEL_LEN_AUTO = {
    "label": "--max-model-len auto",
    "line": "--max-model-len auto",
    "replaces": "--max-model-len ",  # a line starting so is dropped when the option is on
    "description": "vLLM starts from the model's full window and lowers it to the longest "
    "request its KV cache holds, instead of refusing to start. The memory plan shows the "
    "length this command sets.",
}

CUDA_13, CUDA_129 = "CUDA 13", "CUDA 12.9"
# image -> the labelled choices of its family, the image itself first
IMAGES: dict[str, list[list[str]]] = {
    DEFAULT_IMAGES["nvidia"]: [
        [f"{CUDA_13} (default)", DEFAULT_IMAGES["nvidia"]],
        [CUDA_129, "vllm/vllm-openai:latest-cu129"],
    ],
    "vllm/vllm-openai:latest-cu129": [
        [CUDA_129, "vllm/vllm-openai:latest-cu129"],
        [f"{CUDA_13} (default)", DEFAULT_IMAGES["nvidia"]],
    ],
    NIGHTLY_IMAGES["nvidia"]: [[f"{CUDA_13} nightly", NIGHTLY_IMAGES["nvidia"]]],
    DEFAULT_IMAGES["amd"]: [["ROCm", DEFAULT_IMAGES["amd"]]],
    NIGHTLY_IMAGES["amd"]: [["ROCm nightly", NIGHTLY_IMAGES["amd"]]],
    DEFAULT_IMAGES["tpu"]: [["TPU", DEFAULT_IMAGES["tpu"]]],
    NIGHTLY_IMAGES["tpu"]: [["TPU nightly", NIGHTLY_IMAGES["tpu"]]],
    XPU_IMAGE: [["Intel XPU", XPU_IMAGE]],
    DEFAULT_IMAGES["intel"]: [["CPU (x86-64)", DEFAULT_IMAGES["intel"]]],
}
PINNED = "Pinned by the recipe"
# a rendering whose toggles cannot be joined (picker.py `features_locked`) is shown as rendered
LOCKED_REASON = "Fixed for this layout: its command is shown as rendered."
MAX_INSTANCES = 16  # the reference's Mooncake "Instances" control offers 1-16


def kv_store_topologies(strategies: dict) -> dict:
    """Mooncake kv-store id -> its default instance count, for 1..MAX_INSTANCES instances the
    router tab's text (None: one instance needs no router), as synthesis writes it, and the host
    memory each vLLM GPU registers (host_memory.kv_store_sizes)."""
    out = {}
    for sid, spec in strategies.items():
        spec = mapping(spec)
        if spec.get("deploy_type") != "kv_store_lb":
            continue
        install = mapping(spec.get("router")).get("install")
        routers = []
        for n in range(1, MAX_INSTANCES + 1):
            command = kv_router_command(spec, n)
            routers.append(None if command is None else (install or "") + "\n" + command)
        out[sid] = {"default": spec.get("default_instances") or 1, "routers": routers}
        sizes = host_memory.kv_store_sizes(spec)
        if sizes is not None:  # the page's KV-offload note: host memory per GPU, node, in all
            per_gpu = sizes["segment_bytes"] + sizes["local_buffer_bytes"]
            out[sid]["host"] = {**sizes, "per_gpu_bytes": per_gpu}
        on_pd = pd_store(sid, spec)
        if on_pd is not None:
            out[sid]["pd"] = pd_pieces(on_pd, spec)
    return out


def pd_pieces(store, spec: dict) -> dict:
    """A store's pieces on a prefill/decode rendering (synthesis/pd_store.py; more.js joins them
    into every pool node as `with_store` does): per role the line replacing the pool's
    --kv-transfer-config line, the exports and docker lines, the install line per GPU brand and
    the companion tabs, first in the tab row."""
    return {
        "label": "Mooncake: " + str(spec.get("label") or spec.get("display_name") or store.kv_id),
        "description": PD_NOTE,
        "lines": {role: list(lines) for role, lines in store.lines.items()},
        "exports": store.exports,
        "docker_env": list(store.docker_lines),
        "install": store.install,
        "tabs": [
            {"id": i, "label": label, "text": text} for i, label, text in companion_steps(store)
        ],
    }


# the Kubernetes tab holds deploy.json's manifests of the rendering as published: with options of
# this row chosen, it says which ones the manifests leave out ({chosen}: their labels)
K8S_NOTE = (
    "These manifests are for the command without {chosen} (chosen under More options). "
    "`recipes-site command` with the same options and --k8s prints them with --image, "
    "--max-model-len auto and a KV-offload option that needs no companion process "
    "(kubernetes_options.py); for LMCache or a Mooncake store, add the command's extra lines "
    "to the vLLM container's args and env and run the companion process yourself."
)


def picker_options_doc(taxonomy: dict, vllm_version: str, strategies: dict) -> dict:
    """api/v1/picker-options.json: what the "More options" row offers, for every recipe."""
    kv = kv_offload.options_doc(taxonomy, vllm_version, strategies)
    return {
        "vllm_version": vllm_version,
        "layout_reason": kv["layout_reason"],
        "kv_offload": kv["options"],
        "max_model_len_auto": MAX_MODEL_LEN_AUTO,
        "images": IMAGES,
        "pinned": PINNED,
        "locked_reason": LOCKED_REASON,
        "kv_stores": kv_store_topologies(strategies),
        "k8s_note": K8S_NOTE,
    }
