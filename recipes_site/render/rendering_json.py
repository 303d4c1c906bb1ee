"""The JSON shape of one rendering, with the field names the reference API uses, so CI
scripts written against either keep working."""
from __future__ import annotations

from recipes_site.synthesis.types import PdPool, Process, Rendering


def _lists(p: Process | None):
    return None if p is None else list(p.argv)


def _pool(pool: PdPool) -> dict:
    p = pool.process
    return {"command": p.command, "argv": list(p.argv), "env": p.env, "nodes": pool.nodes,
            "parallelism": pool.parallelism, "tp": pool.tp, "dpLocal": pool.dp_local, "dpSize": pool.dp_size,
            "poolGpus": pool.pool_gpus, "currentNode": 0, "startRank": 0,
            "docker_command": p.docker_command, "docker_argv": list(p.docker_argv)}


def _workers(prefix: str, workers: tuple, empty_as_null: bool) -> dict:
    first = workers[0] if workers else None
    none = None if empty_as_null else []
    return {
        f"{prefix}worker_command": first.command if first else None,
        f"{prefix}worker_commands": [w.command for w in workers] if workers else none,
        f"{prefix}worker_argv": list(first.argv) if first else None,
        f"{prefix}worker_argvs": [list(w.argv) for w in workers] if workers else none,
        f"{prefix}worker_docker_command": first.docker_command if first else None,
        f"{prefix}worker_docker_commands": [w.docker_command for w in workers] if workers else none,
        f"{prefix}worker_docker_argv": list(first.docker_argv) if first else None,
        f"{prefix}worker_docker_argvs": [list(w.docker_argv) for w in workers] if workers else none,
    }


def rendering_json(r: Rendering, processes: tuple | None = None) -> dict:
    """`processes`: `r.processes`, when the caller has them."""
    out = {"hardware": r.hardware, "strategy": r.strategy, "variant": r.variant, "node_count": r.node_count,
           "deploy_type": r.deploy_type, "env": r.env}
    if r.docker_image is not None:
        out["docker_image"] = r.docker_image
    if any(p.notes for p in (r.processes if processes is None else processes)):
        out["notes"] = list(r.notes)    # KV-cache sizing changed the command (recipes with hf_config only)
    if r.single:
        p = r.single
        out.update(command=p.command, argv=list(p.argv), docker_command=p.docker_command,
                   docker_argv=list(p.docker_argv))
    elif r.head:
        h = r.head
        out.update(head_command=h.command, head_argv=list(h.argv), head_docker_command=h.docker_command,
                   head_docker_argv=list(h.docker_argv))
        out.update(_workers("", r.workers, empty_as_null=False))
    elif r.prefill:
        out.update(prefill=_pool(r.prefill), decode=_pool(r.decode),
                   router={"command": r.router.command, "install": r.router.install},
                   router_config=r.router_config)
    elif r.kv:
        kv, h = r.kv, r.kv.head
        out.update(serving_strategy=kv.serving_strategy, kv_min_vllm_version=kv.min_vllm_version,
                   instances=kv.instances, vllm_command=h.command, vllm_argv=list(h.argv))
        out.update(_workers("vllm_", kv.workers, empty_as_null=True))
        out.update(vllm_install=kv.install, vllm_docker_command=h.docker_command,
                   vllm_docker_argv=list(h.docker_argv), master=kv.master, store=kv.store,
                   router=None if kv.router is None else
                   {"command": kv.router.command, "install": kv.router.install, "port": kv.router.port},
                   mooncake_config=kv.config, mooncake_config_note=kv.config_note)
    return out
