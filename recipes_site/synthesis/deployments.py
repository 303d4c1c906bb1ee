"""Building renderings: the parallel block of each deployment shape, then processes from it.

Shapes: single node; multi-node head + workers; prefill/decode pools with a router; Mooncake
kv-store instances. The flags that say *how* GPUs are split are decided here and only here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

from recipes_site.fit import NO_CHANGE, EngineSizing, engine_sizing, engine_tp, hf_config_of
from recipes_site.jsish import is_number, mapping, str_list

from . import docker
from .features import allowed_modes, applicable_features, is_modal, option_args
from .hardware import Hardware
from .memo import remembered
from .recording import hardware_query
from .selection import (
    Context,
    effective_strategies,
    fits_node,
    nodes_for_strategy,
    recommend_strategy,
)
from .serve_args import (
    KvSide,
    OnHardware,
    ProcessSpec,
    arg_lines,
    kv_side,
    serve_parts,
    variant_of,
    variant_on_hardware,
)
from .shell import SEP, Placeholder, quote, serve_head
from .types import PdPool, Process, Rendering, Router, kv_store, pd_pool, process, rendering

TP = "--tensor-parallel-size"
DP = "--data-parallel-size"
SOCKET_ENV = {
    "GLOO_SOCKET_IFNAME": Placeholder("$IFACE_NAME"),
    "NCCL_SOCKET_IFNAME": Placeholder("$IFACE_NAME"),
}
HEAD_IP = Placeholder("$HEAD_IP")
INSTANCE_1 = Placeholder("$VLLM_INSTANCE_1")  # the first kv-store instance
MAX_PD_NODES = 4


def make_processes(
    spec: ProcessSpec,
    blocks: list[list],
    port: int,
    env_changes: Callable[[dict], list[dict] | None] | None = None,
) -> list[Process]:
    """One process per parallel block (the ranks of a multi-node layout, or a single one): only
    the block differs between them, so args, env and docker lines around it are built once.
    `env_changes`: given the environment, per block the values that replace some of it (a PD
    pool's node address; the keys keep their places), or None."""
    model = spec.on_hw.model
    parts = serve_parts(spec)
    per_block = env_changes(parts.env) if env_changes else None

    def docker_head(env: dict) -> docker.DockerHead:
        # A deliberate deviation from the reference (docs/compat-deviations.json): a multi-node
        # process runs on the host network.
        return docker.docker_head(
            spec.on_hw.image,
            model,
            env,
            spec.hw,
            port,
            host_network=spec.multi_node,
            pass_env=spec.on_hw.pass_env,
        )

    head = docker_head(parts.env)
    serve = serve_head(model)
    out = []
    for i, block in enumerate(blocks):
        changes = per_block[i] if per_block else None
        if changes:
            env = {**parts.env, **changes}
            out.append(_process(spec, model, serve, parts.segments(block), env, docker_head(env)))
        else:
            out.append(_process(spec, model, serve, parts.segments(block), parts.env, head))
    return out


def _process(
    spec: ProcessSpec,
    model: str,
    serve: str,
    segments: tuple,
    env: dict,
    docker_head: docker.DockerHead,
) -> Process:
    before, features, after = segments
    # KV-cache sizing (fit.py): a safe --max-model-len, only for recipes with model.hf_config
    sized = (
        NO_CHANGE
        if hf_config_of(spec.recipe) is None
        else _engine_sizing(
            spec.recipe,
            spec.variant_key,
            spec.hw,
            before + features + after,
            speculative_options(spec),
        )
    )
    args = arg_lines(before, features, after + sized.args)
    return process(
        argv=("vllm", "serve", model, *args.args),
        command=serve + args.text,
        env=env,
        docker_argv=docker_head.argv + args.args,
        docker_command=docker_head.text
        + args.text,  # == docker.docker_text(model, docker_head.lines + args.lines)
        lines_before=args.lines_before,
        lines_after=args.lines_after,
        docker_head=docker_head.text,
        notes=sized.notes,
    )


@hardware_query
def _engine_sizing(
    recipe: dict, variant_key: str, hw: Hardware, tokens: tuple, drafts: tuple
) -> EngineSizing:
    """fit.engine_sizing of a process on `hw`, asked as one question (it reads the whole profile:
    memory, display name). Only for recipes with model.hf_config: for the others it is NO_CHANGE
    whatever the hardware, and not asking keeps a question per process out of the record."""
    return engine_sizing(recipe, variant_key, hw.id, hw.profile, tokens, drafts)


def speculative_options(spec: ProcessSpec) -> tuple[str, ...]:
    """The `--speculative-config` values a reader can switch on for this process: those of every
    mode, allowed on this hardware and variant, of a feature this strategy takes. The engine's
    length holds with each of them, since the page toggles them without re-sizing the command."""
    found = []
    for _, feature in applicable_features(spec.recipe, spec.strategy_id):
        modes = allowed_modes(feature, spec.hw, spec.variant_key) if is_modal(feature) else [None]
        for mode in modes:
            args = option_args(feature, spec.hw, mode)
            found += [args[i + 1] for i, a in enumerate(args[:-1]) if a == "--speculative-config"]
    return tuple(found)


# -- single node ------------------------------------------------------------------------------


@hardware_query
def tensor_parallel_size(recipe: dict, variant: dict, hw: Hardware) -> int:
    """Declared TP (variant, then strategy override) clamped to the node, else auto-fit: 1 GPU or all."""
    overrides = mapping(mapping(recipe.get("strategy_overrides")).get("single_node_tp"))
    for declared in (variant.get("tp"), overrides.get("tp")):
        value: Any = hw.keyed(declared) if isinstance(declared, dict) else declared
        if is_number(value) and value > 0:
            return value if hw.generation == "cpu" else min(value, hw.gpus)
    need = variant.get("vram_minimum_gb")
    per_gpu = hw.node_vram_gb / hw.gpus if hw.gpus else 0
    if not need or not per_gpu:
        return hw.gpus
    return 1 if need <= per_gpu else hw.gpus


def single_node_block(
    strategy_id: str, strategy: dict, recipe: dict, variant_key: str, variant: dict, hw: Hardware
) -> list:
    # kept per recipe: a kv-store rendering serves through a strategy already laid out on this hardware
    return remembered(
        recipe,
        ("single_node_block", strategy_id, variant_key, hw.label),
        _single_node_block,
        strategy_id,
        strategy,
        recipe,
        variant,
        hw,
    )


def _single_node_block(
    strategy_id: str, strategy: dict, recipe: dict, variant: dict, hw: Hardware
) -> list:
    # engine_tp: no TP size the attention heads do not allow (recipes with model.hf_config only)
    if strategy_id == "single_node_tp":
        return [TP, str(engine_tp(recipe, tensor_parallel_size(recipe, variant, hw)))]
    flag = strategy.get("parallel_flag") or TP
    return [flag, str(engine_tp(recipe, hw.gpus) if flag == TP else hw.gpus)]


# -- multi node --------------------------------------------------------------------------------


@hardware_query
def _dp_local_override(recipe: dict, strategy_id: str, hw: Hardware) -> str | None:
    overrides = mapping(mapping(recipe.get("strategy_overrides")).get(strategy_id))
    per_hw = mapping(overrides.get("hardware_overrides"))
    tokens = (
        str_list(overrides.get("vllm_args"))
        + str_list(overrides.get("extra_args"))
        + str_list(mapping(per_hw.get(hw.generation)).get("extra_args"))
        + str_list(mapping(hw.entry(per_hw)).get("extra_args"))
    )
    value = None
    for i, tok in enumerate(tokens[:-1]):
        if tok == "--data-parallel-size-local":
            value = tokens[i + 1]
    return value


def multi_node_block(
    strategy_id: str, strategy: dict, recipe: dict, hw: Hardware, nodes: int, rank: int, addr: str
) -> list:
    g = hw.gpus
    if strategy.get("parallel_flag") == DP:
        block = [
            DP,
            str(g * nodes),
            "--data-parallel-size-local",
            str(g),
            "--data-parallel-address",
            addr,
        ]
        if rank:
            local = _dp_local_override(recipe, strategy_id, hw)
            step = int(local) if local is not None and local.lstrip("-").isdigit() else g
            block += ["--data-parallel-start-rank", str(rank * step)]
        return block
    if strategy.get("parallelism") == "tp_pp":
        block = [
            TP,
            str(g),
            "--pipeline-parallel-size",
            str(nodes),
            "--nnodes",
            str(nodes),
            "--node-rank",
            str(rank),
            "--master-addr",
            addr,
        ]
        return block + (["--headless"] if rank else [])
    if strategy.get("parallelism") == "tp_dp":
        block = [
            TP,
            str(g),
            DP,
            str(nodes),
            "--data-parallel-size-local",
            "1",
            "--data-parallel-address",
            addr,
        ]
        return block + (["--data-parallel-start-rank", str(rank)] if rank else [])
    block = [
        TP,
        str(g * nodes),
        "--nnodes",
        str(nodes),
        "--node-rank",
        str(rank),
        "--master-addr",
        addr,
    ]
    return block + (["--headless"] if rank else [])


def serving_processes(
    ctx: Context,
    recipe: dict,
    variant_key: str,
    strategy_id: str,
    hw: Hardware,
    nodes: int,
    on_hw: OnHardware,
    kv: KvSide | None = None,
    addr: str = HEAD_IP,
    port: int = 8000,
    features: dict | None = None,
) -> tuple[Process, tuple]:
    """Head (or only) process and worker processes of a single- or multi-node serving strategy."""
    strategy = mapping(ctx.strategies.get(strategy_id))
    multi = ctx.deploy_type(strategy_id) == "multi_node" and nodes > 1
    spec = ProcessSpec(
        recipe,
        variant_key,
        on_hw,
        strategy_id,
        strategy,
        hw,
        kv=kv,
        features=features,
        multi_node=multi,
    )
    if multi:
        blocks = [
            multi_node_block(strategy_id, strategy, recipe, hw, nodes, rank, addr)
            for rank in range(nodes)
        ]
    else:
        blocks = [single_node_block(strategy_id, strategy, recipe, variant_key, spec.variant, hw)]
    procs = make_processes(spec, blocks, port)
    return procs[0], tuple(procs[1:])


def render_serving(
    ctx: Context,
    recipe: dict,
    variant_key: str,
    strategy_id: str,
    hw: Hardware,
    nodes: int,
    features: dict | None = None,
) -> Rendering:
    on_hw = variant_on_hardware(recipe, variant_key, hw)
    head, workers = serving_processes(
        ctx, recipe, variant_key, strategy_id, hw, nodes, on_hw, features=features
    )
    multi = ctx.deploy_type(strategy_id) == "multi_node" and nodes > 1
    if multi:
        return rendering(
            hardware=hw.label,
            strategy=strategy_id,
            variant=variant_key,
            node_count=nodes,
            deploy_type="multi_node",
            env=head.env,
            docker_image=on_hw.image,
            head=head,
            workers=workers,
        )
    return rendering(
        hardware=hw.label,
        strategy=strategy_id,
        variant=variant_key,
        node_count=nodes,
        deploy_type="single_node",
        env=head.env,
        docker_image=on_hw.image,
        single=head,
    )


# -- prefill / decode -----------------------------------------------------------------------------


@hardware_query
def pd_pool_nodes(recipe: dict, variant: dict, hw: Hardware, strategy: dict) -> dict | None | str:
    """Per-role node counts, None when both pools share one node, "skip" when it would need > 4 nodes."""
    need = variant.get("vram_minimum_gb") or 0
    have = hw.node_vram_gb
    if hw.gpus >= 2 and have >= 2 * need:
        return None
    if not have or not need:
        return None
    k = math.ceil(need / have)
    if k > MAX_PD_NODES:
        return "skip"
    overrides = _pd_overrides(recipe)
    out = {}
    for role in ("prefill", "decode"):
        parallelism = (
            mapping(overrides.get(role)).get("parallelism")
            or mapping(strategy.get(role)).get("parallelism")
            or "tp"
        )
        out[role] = max(k, nodes_for_strategy(recipe, parallelism, hw))
    return out


def pool_modes(ctx: Context, recipe: dict) -> list[str]:
    """The pool layouts a PD role may take: those of the recipe's strategies, narrowed by its
    pd_cluster `pool_modes`."""
    # kept per recipe: the same for both roles on every hardware (as effective_strategies, keyed by
    # the context)
    return remembered(recipe, ("pool_modes", id(ctx)), _pool_modes, ctx, recipe)


def _pool_modes(ctx: Context, recipe: dict) -> list[str]:
    found = set()
    for s in effective_strategies(ctx, recipe):
        if s.endswith("tep"):
            found.add("tep")
        elif s.endswith("dep"):
            found.add("dep")
        elif s.endswith("tp") or s.endswith("tp_pp") or s.endswith("tp_dp"):
            found.add("tp")
    modes: list[str] = [m for m in ("tp", "tep", "dep") if m in found]
    narrowed = str_list(_pd_overrides(recipe).get("pool_modes"))
    if narrowed:
        modes = [m for m in modes if m in narrowed]
    return modes or ["tp"]


class PoolChoice(NamedTuple):
    """The layout of one PD pool: its nodes (0: half of one node, which the other pool's half
    shares) and its mode (`tp`, `tep` or `dep`, one of `pool_modes`)."""

    nodes: int
    mode: str


PD_ROLES = ("prefill", "decode")
PD_PORTS = {"prefill": 8001, "decode": 8002}  # each pool's API port, the router's endpoints


def _pd_overrides(recipe: dict) -> dict:
    """The recipe's `strategy_overrides.pd_cluster` (per role, `router`, `pool_modes`)."""
    return mapping(mapping(recipe.get("strategy_overrides")).get("pd_cluster"))


def _role_override(recipe: dict, role: str) -> dict:
    return mapping(_pd_overrides(recipe).get(role))


def _declared_mode(ctx: Context, recipe: dict, role: str) -> tuple[str, str]:
    """(the role's parallelism as declared, the pool mode it snaps to among `pool_modes`)."""
    role_spec = mapping(mapping(ctx.strategies.get("pd_cluster")).get(role))
    declared = _role_override(recipe, role).get("parallelism") or role_spec.get("parallelism")
    declared = declared or "tp"
    allowed = pool_modes(ctx, recipe)
    return declared, declared if declared in allowed else allowed[0]


def pd_default_topology(
    ctx: Context, recipe: dict, variant_key: str, hw: Hardware
) -> dict[str, PoolChoice] | None:
    """The topology a PD rendering has by default (the reference's build rule, `pd_pool_nodes`,
    and each role's declared parallelism snapped to `pool_modes`); None when a pool would need
    more than MAX_PD_NODES nodes."""
    strategy = mapping(ctx.strategies.get("pd_cluster"))
    pools = pd_pool_nodes(recipe, variant_of(recipe, variant_key), hw, strategy)
    if pools == "skip":
        return None
    return {
        role: PoolChoice(pools[role] if pools else 0, _declared_mode(ctx, recipe, role)[1])
        for role in PD_ROLES
    }


def pd_declared_nodes(recipe: dict, hw: Hardware, role: str) -> int | None:
    """The role's `strategy_overrides.pd_cluster.<role>.nodes` on `hw` (the reference's page starts
    its node input there; its build ignores it, and so does our default), None when unset."""
    value: Any = _role_override(recipe, role).get("nodes")
    value = hw.keyed(value) if isinstance(value, dict) else value
    return value if is_number(value) and value >= 0 and int(value) == value else None


def pd_node_counts(recipe: dict, hw: Hardware, role: str) -> list[int]:
    """The node counts a reader may give a pool on `hw`: 0 (half of one node) when a node has two
    GPUs or more, 1 to MAX_PD_NODES, and the recipe's declared count beyond them."""
    counts = ([0] if hw.gpus >= 2 else []) + list(range(1, MAX_PD_NODES + 1))
    declared = pd_declared_nodes(recipe, hw, role)
    if declared is not None and int(declared) not in counts and declared <= 2 * MAX_PD_NODES:
        counts.append(int(declared))
    return counts


def pd_pool_gpus(hw: Hardware, nodes: int) -> int:
    """The GPUs of a pool on `nodes` nodes (0: half of one node)."""
    return hw.gpus // 2 if nodes == 0 else nodes * hw.gpus


def render_pd_pool(
    ctx: Context,
    recipe: dict,
    variant_key: str,
    hw: Hardware,
    role: str,
    choice: PoolChoice,
    features: dict | None = None,
) -> PdPool:
    """One pool of a PD deployment laid out as `choice` (every node's command)."""
    on_hw = variant_on_hardware(recipe, variant_key, hw)
    return _pd_pool(ctx, recipe, variant_key, hw, role, choice, on_hw, features)


def _pd_pool(
    ctx: Context,
    recipe: dict,
    variant_key: str,
    hw: Hardware,
    role: str,
    choice: PoolChoice,
    on_hw: OnHardware,
    features: dict | None = None,
) -> PdPool:
    strategy = mapping(ctx.strategies.get("pd_cluster"))
    role_spec = mapping(strategy.get(role))
    role_override = _role_override(recipe, role)
    g = hw.gpus
    nodes, mode = choice
    pool_gpus = pd_pool_gpus(hw, nodes)
    declared, snapped = _declared_mode(ctx, recipe, role)
    # the reference publishes the declared parallelism, not the snapped one; a mode the reader
    # picks is published as picked
    parallelism = declared if mode == snapped else mode
    upper = role.upper()
    tp_declared = (
        role_override.get("tp") if role_override.get("tp") is not None else role_spec.get("tp")
    )
    if mode == "dep":
        dp_local = max(1, g // (tp_declared if is_number(tp_declared) and tp_declared else 1))
        dp_size = max(1, nodes) * dp_local
        block = [TP, str(tp_declared)] if tp_declared is not None else []
        block += [
            DP,
            str(dp_size),
            "--data-parallel-size-local",
            str(dp_local),
            "--data-parallel-start-rank",
            "0",
            "--data-parallel-address",
            Placeholder(f"${upper}_NODE_1"),
            "--data-parallel-rpc-port",
            Placeholder(f"${upper}_DP_RPC_PORT"),
        ]
        block += ["--data-parallel-hybrid-lb"] if nodes > 1 else []
        block += ["--enable-expert-parallel"]
        tp = tp_declared or 1
    else:
        flag = (
            role_override.get("parallel_flag")
            or role_spec.get("parallel_flag")
            or strategy.get("parallel_flag")
            or TP
        )
        block = [flag, str(max(1, pool_gpus))]
        block += ["--enable-expert-parallel"] if mode == "tep" else []
        block += (
            [
                "--nnodes",
                str(nodes),
                "--node-rank",
                "0",
                "--master-addr",
                Placeholder(f"${upper}_NODE_1"),
            ]
            if nodes > 1
            else []
        )
        dp_local, dp_size, tp = 0, 1, pool_gpus
    if nodes >= 1:
        pinning = {"CUDA_VISIBLE_DEVICES": ",".join(str(i) for i in range(g))}
        if nodes >= 2:
            pinning.update(SOCKET_ENV)
    else:
        half = g // 2
        ids = range(half) if role == "prefill" else range(half, g)
        pinning = {"CUDA_VISIBLE_DEVICES": ",".join(str(i) for i in ids)}
    spec = ProcessSpec(
        recipe,
        variant_key,
        on_hw,
        "pd_cluster",
        strategy,
        hw,
        role=role,
        pinning_env=pinning,
        features=features,
        multi_node=nodes > 1,
    )
    port = PD_PORTS[role]
    blocks = [block] + [_worker_block(block, rank, dp_local) for rank in range(1, nodes)]
    process, *workers = make_processes(
        spec, blocks, port, lambda env: _worker_env(env, role.upper(), nodes)
    )
    return pd_pool(
        process=process,
        nodes=nodes,
        parallelism=parallelism,
        tp=tp,
        dp_local=dp_local,
        dp_size=dp_size,
        pool_gpus=pool_gpus,
        workers=tuple(workers),
    )


NIXL_HOST = "VLLM_NIXL_SIDE_CHANNEL_HOST"


def _worker_block(block: list, rank: int, dp_local: int) -> list:
    """The parallel block of node `rank + 1` of a pool spanning nodes: the first node's with its
    rank.

    vLLM 0.33 starts the other nodes of one engine as a multi-node layout does
    (`multi_node_block`): a tensor-parallel pool's with `--node-rank <rank> --headless`
    (vllm/entrypoints/cli/serve.py:221-230 runs them as headless workers of the head's
    torch.distributed group, --master-addr); a DEP pool's with `--data-parallel-start-rank
    <rank x local DP size>` and no `--headless`: with `--data-parallel-hybrid-lb` every node
    serves its own API (vllm/engine/arg_utils.py:2380 refuses hybrid LB headless; 2489-2491 and
    2507-2511 take the node's first DP rank from the start rank)."""
    if "--data-parallel-start-rank" in block:
        at = block.index("--data-parallel-start-rank") + 1
        return [*block[:at], str(rank * dp_local), *block[at + 1 :]]
    at = block.index("--node-rank") + 1
    return [*block[:at], str(rank), *block[at + 1 :], "--headless"]


def _worker_env(env: dict, upper: str, nodes: int) -> list[dict] | None:
    """Per node of a pool, its environment's changes: each node's NIXL side channel listens on its
    own address (vllm/distributed/kv_transfer/kv_connector/v1/nixl/base_scheduler.py:76 binds
    VLLM_NIXL_SIDE_CHANNEL_HOST), so the pool's `$<ROLE>_NODE_1` there becomes the node's
    variable (a value of the trusted vocabulary only, never a recipe's string)."""
    if nodes < 2:
        return None
    host = env.get(NIXL_HOST)
    if not (isinstance(host, Placeholder) and host == f"${upper}_NODE_1"):
        return None
    return [{}] + [{NIXL_HOST: Placeholder(f"${upper}_NODE_{i}")} for i in range(2, nodes + 1)]


class RouterParts(NamedTuple):
    """The PD router command around its pool endpoints: the page joins `head`, each pool's
    endpoint lines (`pool_endpoints`) and `tail` with `{intra}` filled (`router_command`)."""

    head: tuple[str, ...]
    tail: tuple[str, ...]
    intra: str | None  # the recipe's --intra-node-data-parallel-size, else None: the pools' max


def pd_router_parts(strategy: dict, recipe: dict) -> RouterParts:
    policy = mapping(strategy.get("router")).get("policy") or "round_robin"
    intra = _role_override(recipe, "router").get("intra_node_data_parallel_size")
    return RouterParts(
        head=(f"vllm-router --policy {quote(str(policy))}", "  --vllm-pd-disaggregation"),
        tail=(
            "  --host $ROUTER_HOST",
            "  --port $ROUTER_PORT",
            "  --intra-node-data-parallel-size {intra}",
        ),
        intra=None if intra is None else quote(str(intra)),
    )


def pool_endpoints(role: str, pool: PdPool) -> tuple[str, ...]:
    """The router's lines for one pool: every node of a DEP pool serves (hybrid load balancing),
    a tensor-parallel pool answers on its first node."""
    port = PD_PORTS[role]
    count = max(1, pool.nodes) if pool.dp_local else 1
    upper = role.upper()
    return tuple(f"  --{role} http://${upper}_NODE_{i}:{port}" for i in range(1, count + 1))


def router_command(parts: RouterParts, prefill: tuple, decode: tuple, intra: int) -> str:
    """The router command from its parts (`intra`: the pools' largest local DP size, at least 1,
    used when the recipe sets none)."""
    tail = [line.replace("{intra}", parts.intra or str(intra)) for line in parts.tail]
    return SEP.join([*parts.head, *prefill, *decode, *tail])


def _pd_router(strategy: dict, recipe: dict, prefill: PdPool, decode: PdPool) -> Router:
    command = router_command(
        pd_router_parts(strategy, recipe),
        pool_endpoints("prefill", prefill),
        pool_endpoints("decode", decode),
        max(prefill.dp_local, decode.dp_local, 1),
    )
    return Router(command=command, install="uv pip install vllm-router")


def render_pd(
    ctx: Context,
    recipe: dict,
    variant_key: str,
    hw: Hardware,
    features: dict | None = None,
    topology: dict[str, PoolChoice] | None = None,
) -> Rendering | None:
    """A PD deployment; `topology` gives a role's pool layout (a missing role: the default,
    `pd_default_topology`). None when a pool it defaults would need more than MAX_PD_NODES."""
    strategy = mapping(ctx.strategies.get("pd_cluster"))
    chosen = dict(topology or {})
    if any(role not in chosen for role in PD_ROLES):
        defaults = pd_default_topology(ctx, recipe, variant_key, hw)
        if defaults is None:
            return None
        chosen = {**defaults, **chosen}
    on_hw = variant_on_hardware(recipe, variant_key, hw)
    prefill = _pd_pool(ctx, recipe, variant_key, hw, "prefill", chosen["prefill"], on_hw, features)
    decode = _pd_pool(ctx, recipe, variant_key, hw, "decode", chosen["decode"], on_hw, features)
    return rendering(
        hardware=hw.label,
        strategy="pd_cluster",
        variant=variant_key,
        node_count=1,
        deploy_type="pd_cluster",
        env={},
        docker_image=on_hw.image,
        prefill=prefill,
        decode=decode,
        router=_pd_router(strategy, recipe, prefill, decode),
        router_config=strategy.get("router"),
    )


# -- kv store ------------------------------------------------------------------------------------


@hardware_query
def kv_serving_strategy(
    ctx: Context, recipe: dict, variant: dict, hw: Hardware
) -> tuple[str, int] | None:
    effective = effective_strategies(ctx, recipe)
    nodes = 1 if fits_node(hw, variant) else 2
    while True:
        wanted = recommend_strategy(recipe, effective, nodes)
        choice: str | None = wanted
        if not (_shaped(ctx, wanted, nodes) and wanted not in ctx.kv_ids):
            choice = next(
                (s for s in effective if s not in ctx.kv_ids and _shaped(ctx, s, nodes)), None
            )
        if choice is not None:
            if nodes > 1:
                nodes = max(nodes, nodes_for_strategy(recipe, choice, hw))
            return choice, nodes
        if nodes == 1:
            return None
        nodes = 1


def _shaped(ctx: Context, s: str, nodes: int) -> bool:
    """Whether strategy `s` is a serving strategy of the shape `nodes` needs (single or multi-node)."""
    kind = ctx.deploy_type(s) if s in ctx.strategies else None
    return kind == ("multi_node" if nodes > 1 else "single_node")


class KvVocabulary(NamedTuple):
    """What a kv-store spec (kv_store/*.yaml) says about its deployments, whatever the model and hardware."""

    instances: int
    port: int
    addr: Placeholder  # the head address of an instance's ranks
    side: KvSide  # its args and env
    serving: tuple | None  # its side and port by value (None when unhashable): `_kv_processes`
    router: Router | None  # in front of several instances
    installs: dict  # its vLLM-side install command per brand key
    min_vllm_version: str | None
    master: dict | None
    store: dict | None
    config: dict | None
    config_note: str | None


def kv_vocabulary(kv: dict) -> KvVocabulary:
    instances = kv.get("default_instances") or 1
    vllm = mapping(kv.get("vllm"))
    port = vllm.get("port") or 8000
    vllm_config = mapping(kv.get("mooncake_vllm_config"))
    store = kv.get("mooncake_store_config")
    side = kv_side(kv)
    return KvVocabulary(
        instances=instances,
        port=port,
        addr=INSTANCE_1 if instances > 1 else HEAD_IP,
        side=side,
        serving=_serving_key(side, port),
        router=_kv_router(kv, instances, port),
        installs=mapping(vllm.get("install")),
        min_vllm_version=kv.get("min_vllm_version"),
        master=kv.get("mooncake_master"),
        store=store if isinstance(store, dict) else None,
        config=vllm_config.get("template"),
        config_note=vllm_config.get("note"),
    )


def _serving_key(side: KvSide, port) -> tuple | None:
    """`side` and `port` as a memo key (`_kv_processes`), by value. Types are part of it: `0`,
    `False` and `0.0` print differently, a Placeholder bare."""
    key = (
        side.args,
        tuple(side.env.items()),
        port,
        tuple(map(type, (*side.args, *side.env.values(), port))),
    )
    try:
        hash(key)
    except TypeError:  # a list or map in the vocabulary's env: not kept
        return None
    return key


def _kv_router(kv: dict, instances: int, port) -> Router | None:
    """The router in front of a kv-store's instances (None for a single instance)."""
    if instances <= 1:
        return None
    spec = mapping(kv.get("router"))
    lines = [f"vllm-router --policy {quote(str(spec.get('policy') or 'cache_aware'))}"]
    lines += [f"  --backend-url http://$VLLM_INSTANCE_{i}:{port}" for i in range(1, instances + 1)]
    lines += [
        "  --host $ROUTER_HOST",
        "  --port $ROUTER_PORT",
        "  --cache-threshold 0.5",
        "  --balance-abs-threshold 4",
        "  --balance-rel-threshold 1.1",
    ]
    return Router(command=SEP.join(lines), install=spec.get("install"), port=spec.get("port"))


def kv_router_command(kv: dict, instances: int) -> str | None:
    """The router command in front of `instances` instances of kv-store `kv` (the vocabulary's
    port), None for one instance: what the page's instance count shows (render/advanced.py)."""
    router = _kv_router(kv, instances, mapping(kv.get("vllm")).get("port") or 8000)
    return router.command if router else None


def render_kv(
    ctx: Context,
    recipe: dict,
    variant_key: str,
    kv_id: str,
    hw: Hardware,
    features: dict | None = None,
) -> Rendering | None:
    on_hw = variant_on_hardware(recipe, variant_key, hw)
    # kept per recipe: every kv-store on this hardware serves the variant through the same strategy
    picked = remembered(
        recipe,
        ("kv_serving_strategy", variant_key, hw.label),
        kv_serving_strategy,
        ctx,
        recipe,
        on_hw.variant,
        hw,
    )
    if picked is None:
        return None
    serving, nodes = picked
    # kept per recipe: the same for every rendering through this kv-store
    kv = remembered(
        recipe, ("kv_vocabulary", kv_id), kv_vocabulary, mapping(ctx.strategies.get(kv_id))
    )
    head, workers = _kv_processes(ctx, recipe, variant_key, serving, hw, nodes, on_hw, kv, features)
    state = kv_store(
        serving_strategy=serving,
        instances=kv.instances,
        min_vllm_version=kv.min_vllm_version,
        head=head,
        workers=workers,
        install=kv.installs.get(hw.image_brand),
        master=kv.master,
        store=kv.store,
        router=kv.router,
        config=kv.config,
        config_note=kv.config_note,
    )
    return rendering(
        hardware=hw.label,
        strategy=kv_id,
        variant=variant_key,
        node_count=nodes,
        deploy_type="kv_store_lb",
        env=head.env,
        docker_image=on_hw.image,
        kv=state,
    )


def _kv_processes(
    ctx: Context,
    recipe: dict,
    variant_key: str,
    serving: str,
    hw: Hardware,
    nodes: int,
    on_hw: OnHardware,
    kv: KvVocabulary,
    features: dict | None,
) -> tuple[Process, tuple]:
    """The serving processes of one instance of a kv-store deployment (`serving_processes`)."""
    if features is not None or kv.serving is None:
        return serving_processes(
            ctx,
            recipe,
            variant_key,
            serving,
            hw,
            nodes,
            on_hw,
            kv=kv.side,
            addr=kv.addr,
            port=kv.port,
            features=features,
        )
    # kept per recipe: kv-stores whose vLLM side is alike (the compat corpus's two Mooncake
    # topologies) serve through the same processes on this hardware.
    # The head address is read by multi-node blocks alone (`serving_processes`); `on_hw` is
    # variant_on_hardware(recipe, variant_key, hw)
    addr = kv.addr if nodes > 1 else None
    return remembered(
        recipe,
        ("kv_processes", variant_key, hw.label, serving, nodes, kv.serving, addr),
        serving_processes,
        ctx,
        recipe,
        variant_key,
        serving,
        hw,
        nodes,
        on_hw,
        kv.side,
        kv.addr,
        kv.port,
    )
