"""The JSON shape of one rendering, with the field names the reference API uses, so CI
scripts written against either keep working."""

from __future__ import annotations

from recipes_site.synthesis.types import PdPool, Process, Rendering


def _lists(p: Process | None):
    return None if p is None else list(p.argv)


def _pool(pool: PdPool) -> dict:
    p = pool.process
    return {
        "command": p.command,
        "argv": list(p.argv),
        "env": p.env,
        "nodes": pool.nodes,
        "parallelism": pool.parallelism,
        "tp": pool.tp,
        "dpLocal": pool.dp_local,
        "dpSize": pool.dp_size,
        "poolGpus": pool.pool_gpus,
        "currentNode": 0,
        "startRank": 0,
        "docker_command": p.docker_command,
        "docker_argv": list(p.docker_argv),
    }


def _worker_keys(prefix: str) -> tuple[str, ...]:
    return tuple(
        f"{prefix}worker_{name}"
        for name in (
            "command",
            "commands",
            "argv",
            "argvs",
            "docker_command",
            "docker_commands",
            "docker_argv",
            "docker_argvs",
        )
    )


_WORKER_KEYS = {prefix: _worker_keys(prefix) for prefix in ("", "vllm_")}  # the two prefixes in use


def _add_workers(out: dict, prefix: str, workers: tuple, empty_as_null: bool) -> None:
    """The worker fields of a multi-node deployment (first worker, then every worker), written
    into `out` in the reference's order."""
    command, commands, argv, argvs, docker_command, docker_commands, docker_argv, docker_argvs = (
        _WORKER_KEYS.get(prefix) or _worker_keys(prefix)
    )
    if workers:
        first = workers[0]
        out[command] = first.command
        out[commands] = [w.command for w in workers]
        out[argv] = list(first.argv)
        out[argvs] = [list(w.argv) for w in workers]
        out[docker_command] = first.docker_command
        out[docker_commands] = [w.docker_command for w in workers]
        out[docker_argv] = list(first.docker_argv)
        out[docker_argvs] = [list(w.docker_argv) for w in workers]
    else:
        none = None if empty_as_null else []
        out[command], out[commands], out[argv], out[argvs] = None, none, None, none
        out[docker_command], out[docker_commands], out[docker_argv], out[docker_argvs] = (
            None,
            none,
            None,
            none,
        )


def rendering_json(r: Rendering, processes: tuple | None = None) -> dict:
    """`processes`: `r.processes`, when the caller has them."""
    out = {
        "hardware": r.hardware,
        "strategy": r.strategy,
        "variant": r.variant,
        "node_count": r.node_count,
        "deploy_type": r.deploy_type,
        "env": r.env,
    }
    if r.docker_image is not None:
        out["docker_image"] = r.docker_image
    for p in r.processes if processes is None else processes:
        if p.notes:
            out["notes"] = list(
                r.notes
            )  # KV-cache sizing changed the command (recipes with hf_config only)
            break
    if r.single:
        p = r.single
        out["command"], out["argv"] = p.command, list(p.argv)
        out["docker_command"], out["docker_argv"] = p.docker_command, list(p.docker_argv)
    elif r.head:
        h = r.head
        out["head_command"], out["head_argv"] = h.command, list(h.argv)
        out["head_docker_command"], out["head_docker_argv"] = h.docker_command, list(h.docker_argv)
        _add_workers(out, "", r.workers, empty_as_null=False)
    elif r.prefill:
        out["prefill"], out["decode"] = _pool(r.prefill), _pool(r.decode)
        out["router"] = {"command": r.router.command, "install": r.router.install}
        out["router_config"] = r.router_config
    elif r.kv:
        kv, h = r.kv, r.kv.head
        out["serving_strategy"], out["kv_min_vllm_version"] = (
            kv.serving_strategy,
            kv.min_vllm_version,
        )
        out["instances"], out["vllm_command"], out["vllm_argv"] = (
            kv.instances,
            h.command,
            list(h.argv),
        )
        _add_workers(out, "vllm_", kv.workers, empty_as_null=True)
        out["vllm_install"], out["vllm_docker_command"] = kv.install, h.docker_command
        out["vllm_docker_argv"], out["master"], out["store"] = (
            list(h.docker_argv),
            kv.master,
            kv.store,
        )
        out["router"] = (
            None
            if kv.router is None
            else {
                "command": kv.router.command,
                "install": kv.router.install,
                "port": kv.router.port,
            }
        )
        out["mooncake_config"], out["mooncake_config_note"] = kv.config, kv.config_note
    return out
