"""`recipes-site command --k8s` with the model page's "More options" (more_options.py): the
Kubernetes forms (kubernetes.py) of the rendering with the options joined into it.

The containers run the joined argv, environment and image: `--image`, `--max-model-len auto` and
a KV-offload option vLLM serves on its own (a `--kv-transfer-config` and its env, no install
line and no companion process). The plan, the GPUs and the replicas stay the rendering's: an
option changes no GPU count.

An offload tier in host memory is memory the vLLM container takes beside its GPUs. The
manifests set no memory request or limit (kubernetes.py `resources` asks for devices only), so
the checklist says what each pod's node must have free: the tier's bytes per node of the plan
(host_memory.py `per_node_bytes`), which is one pod's share (a single-node pod holds the plan's
GPUs; a multi-node group runs one pod per node).

What runs a companion process (LMCache's server, a Mooncake store's master and store service,
the Mooncake router `--kv-instances` sizes) is refused: no manifest runs the companion yet.
"""

from __future__ import annotations

import dataclasses
import shlex

from recipes_site import host_memory, kubernetes, plan
from recipes_site.jsish import mapping
from recipes_site.synthesis.types import Rendering, with_processes

NO_MANIFEST = "the Kubernetes forms have no manifest for a companion process yet"


def refusal(kv_offload: dict | None, kv_store: dict | None, plain: list[str]) -> str | None:
    """Why `command --k8s` cannot carry the joined options (more_options.Applied.pieces'
    `kv_offload` and, for a store joined into prefill/decode pools, `kv_store`), or None;
    `plain`: the option ids vLLM serves on its own, named as the way out."""
    way_out = f"; without --k8s it prints the commands, and {', '.join(plain)} need no companion"
    if kv_store is not None and kv_store.get("companions"):
        steps = ", ".join(c["label"] for c in kv_store["companions"])
        return (
            f"--kv-offload {kv_store['id']} is refused with --k8s: the Mooncake store runs "
            f"companion processes beside vLLM ({steps}), and {NO_MANIFEST}; without --k8s it "
            "prints the commands"
        )
    if kv_offload is not None and (kv_offload["companion"] or kv_offload["install"]):
        companion = kv_offload["companion"]
        what = (
            f"a companion process beside vLLM ({companion['label']})"
            if companion
            else f"a package installed into the image first ({kv_offload['install']})"
        )
        return (
            f"--kv-offload {kv_offload['id']} is refused with --k8s: it needs {what}, and "
            f"{NO_MANIFEST}{way_out}"
        )
    return None


def kv_instances_refusal() -> str:
    return (
        "--kv-instances is refused with --k8s: it sizes the Mooncake kv-store's router, a "
        f"companion process, and {NO_MANIFEST}; --k8s without it gives the strategy's own "
        "instance count"
    )


def with_option_env(r: Rendering, env: dict) -> Rendering:
    """The option's environment in every container: the command prints it as exports after the
    rendering's own when both name a variable (more_options.py), so the option's value wins."""
    if not env:
        return r
    r = with_processes(r, lambda p: dataclasses.replace(p, env={**p.env, **env}))
    return dataclasses.replace(r, env={**r.env, **env})


def tier_prerequisite(kv_offload: dict, replicas_note: bool) -> str | None:
    """The checklist line of an offload option's host tier (None: vLLM holds none of its own)."""
    tier = kv_offload.get("host_memory")
    if not tier:
        return None
    line = (
        f"KV offload {kv_offload['label']} ({kv_offload['id']}): the vLLM container keeps a "
        f"host-memory tier beside its GPUs. {host_memory.offload_text(tier)} The manifests set "
        "no memory request or limit, so the scheduler does not count it; each vLLM pod takes it "
        "on its node. " + host_memory.ram_note(tier["per_node_bytes"])
    )
    if replicas_note:
        line += " The chart values put several copies on one node: each copy takes as much."
    return line


def file_tiers(kv_offload: dict) -> list[str]:
    """Checklist lines for a filesystem tier behind the host tier: its directory is the
    container's own filesystem unless a volume is mounted there."""
    out = []
    for line in kv_offload["lines"]:
        found = host_memory.transfer_config(shlex.split(line))
        if found is None:
            continue
        extra = mapping(found[1].get("kv_connector_extra_config"))
        for tier in extra.get("secondary_tiers") or ():
            root = mapping(tier).get("root_dir")
            if root:
                out.append(
                    f"KV offload {kv_offload['id']} writes its filesystem tier to {root} in the "
                    "container: mount a volume there (fast local NVMe, or a shared mount for a "
                    "cache several pods reuse), else it is the pod's ephemeral storage and is "
                    "lost with the pod."
                )
    return out


def forms(
    hf_id: str,
    recipe: dict,
    r: Rendering,
    applied: Rendering,
    profile: dict,
    kv_offload: dict | None,
    option_env: dict,
) -> kubernetes.KubeForms:
    """The Kubernetes forms of `applied` (the rendering `r` with the options joined), sized as
    `r`, with the offload tier's prerequisites appended to the checklist."""
    served = with_option_env(applied, option_env)
    found = kubernetes.rendering_forms(
        hf_id, recipe, r, profile, plan.RecipePlans(recipe), served=served
    )
    extra: list[str] = []
    if kv_offload is not None:
        line = tier_prerequisite(kv_offload, found.helm_values is not None)
        extra += [line] if line else []
        extra += file_tiers(kv_offload)
    return dataclasses.replace(
        found, prerequisites=tuple(dict.fromkeys((*found.prerequisites, *extra)))
    )
