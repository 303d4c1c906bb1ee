"""The JSON shape of one rendering, with the field names the reference API uses, so CI
scripts written against either keep working."""

from __future__ import annotations

from recipes_site.synthesis.shell import expanded_variables, export_lines, heredoc
from recipes_site.synthesis.types import PdPool, Process, Rendering


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


def _pool_worker(node: int, p: Process) -> dict:
    """Node `node` (2..N) of a pool spanning nodes: a member of its own (`pool_workers`), since
    the reference's `prefill` / `decode` objects describe a pool's first node only."""
    return {
        "node": node,
        "command": p.command,
        "argv": list(p.argv),
        "env": p.env,
        "docker_command": p.docker_command,
        "docker_argv": list(p.docker_argv),
    }


def _add_workers(out: dict, prefix: str, workers: tuple[Process, ...], empty_as_null: bool) -> None:
    """The worker fields of a multi-node deployment (the first worker's, then every worker's),
    written into `out` in the reference's order."""
    empty: list | None = None if empty_as_null else []
    for field in ("command", "argv", "docker_command", "docker_argv"):
        values = [_listed(getattr(w, field)) for w in workers]
        out[f"{prefix}worker_{field}"] = values[0] if values else None
        out[f"{prefix}worker_{field}s"] = values if values else empty


def _listed(value):
    """argv tuples as JSON lists; commands as they are."""
    return list(value) if isinstance(value, tuple) else value


def user_variables(r: Rendering) -> list[str]:
    """The shell variables a user sets before pasting the deployment's commands ($HEAD_IP,
    $IFACE_NAME, a recipe env value such as `${IB_IF}`, ...): every name the texts we print
    expand (exports, serve and docker forms, router, Mooncake steps), in first-use order. A
    recipe's own install commands are its text, not ours, and are not read."""
    texts = [export_lines(r.env)]
    for p in r.processes:
        texts += [export_lines(p.env), p.command, p.docker_command]
    router = r.router or (r.kv.router if r.kv else None)
    if router:
        texts.append(router.command)
    if r.kv:
        if r.kv.config:
            texts.append(heredoc("$MOONCAKE_CONFIG_PATH", r.kv.config, None))
        for helper in (r.kv.master, r.kv.store):
            if isinstance(helper, dict) and isinstance(helper.get("command"), str):
                texts.append(helper["command"])
        store_config = (r.kv.store or {}).get("config")
        if isinstance(store_config, dict):
            texts.append(heredoc("$MOONCAKE_STORE_CONFIG_PATH", store_config, None))
    return list(dict.fromkeys(name for text in texts for name in expanded_variables(text)))


def rendering_json(r: Rendering) -> dict:
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
    if any(p.notes for p in r.processes):  # KV-cache sizing changed the command (hf_config)
        out["notes"] = list(r.notes)
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
        assert r.decode is not None and r.router is not None  # a disaggregated deployment has both
        out["prefill"], out["decode"] = _pool(r.prefill), _pool(r.decode)
        out["router"] = {"command": r.router.command, "install": r.router.install}
        out["router_config"] = r.router_config
        out["pool_workers"] = {
            role: [_pool_worker(i, w) for i, w in enumerate(pool.workers, 2)]
            for role, pool in (("prefill", r.prefill), ("decode", r.decode))
        }
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
    out["user_variables"] = user_variables(r)
    return out
