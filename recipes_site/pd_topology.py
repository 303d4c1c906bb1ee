"""Prefill/decode topologies a reader picks: every pool layout a PD rendering offers, each with
the verdict of its own memory plan, and the rendering of a chosen topology.

A stage above plan.py. A PD rendering's pools each take a node count (0: half of one node, the
other half the other pool's) and a mode among the recipe's `pool_modes` (TP, TEP, DEP);
synthesis lays any of them out (`deployments.render_pd_pool`). Whether a layout can start is
plan.py's verdict of the pool's own command on its own GPUs: weights per GPU against the budget,
room for a KV cache, one request of the served length (`plan.holds`). A layout that cannot start
is offered disabled with plan.py's reason; the CLI refuses it with the same words.
"""

from __future__ import annotations

from typing import NamedTuple

from recipes_site import fit, plan, sizing
from recipes_site.errors import ChoiceError
from recipes_site.suggest import NameIndex, did_you_mean
from recipes_site.synthesis import Context
from recipes_site.synthesis.deployments import (
    PD_ROLES,
    PoolChoice,
    pd_declared_nodes,
    pd_default_topology,
    pd_node_counts,
    pool_modes,
    render_pd,
    render_pd_pool,
)
from recipes_site.synthesis.hardware import Hardware
from recipes_site.synthesis.types import PdPool, Rendering


class PoolOption(NamedTuple):
    """One layout a pool may take, and whether it starts."""

    role: str
    choice: PoolChoice
    pool: PdPool | None  # None when ruled out before it is planned (`reason` says why)
    plan: dict | None  # plan.plan_of of the pool's first node on the pool's GPUs
    fits: bool
    reason: str  # plan.reason of the verdict, or why the layout is ruled out
    default: bool  # the layout the rendering has by default
    declared: bool  # the node count the recipe's strategy_overrides.pd_cluster.<role>.nodes names


def shared_dep_reason(hw: Hardware) -> str:
    """Why a DEP pool cannot take half a node: its local DP size is the whole node's."""
    return (
        f"a DEP pool on half a node would start {hw.gpus} data-parallel ranks "
        f"(--data-parallel-size-local {hw.gpus}) on {hw.gpus // 2} GPUs"
    )


def gpu_facts(ctx: Context, hw_id: str) -> tuple[dict, str, float]:
    """(profile, GPU name, GPU memory in GiB): what plan.expand words a reason with."""
    profile = ctx.profiles.get(hw_id) or {}
    return profile, sizing.gpu_label(profile, hw_id), round(fit.gpu_memory(profile).total_gib, 2)


class PoolLayout(NamedTuple):
    """One layout a pool may take, laid out by synthesis (no plan yet)."""

    role: str
    choice: PoolChoice
    pool: PdPool | None  # None when ruled out before it is planned (`reason` says why)
    reason: str
    default: bool
    declared: bool


def pool_layouts(
    ctx: Context,
    recipe: dict,
    variant_key: str,
    hw: Hardware,
    features: dict | None = None,
) -> dict[str, list[PoolLayout]]:
    """Per role, every layout a reader may pick on `hw` (node counts x modes, in that order), each
    laid out by synthesis. `hw` may be a synthesis Recording (render/pd_json.py shares the
    layouts between profiles that answer its questions alike): nothing here reads its id."""
    default = pd_default_topology(ctx, recipe, variant_key, hw) or {}
    out: dict[str, list[PoolLayout]] = {}
    for role in PD_ROLES:
        declared = pd_declared_nodes(recipe, hw, role)
        found = []
        for nodes in pd_node_counts(recipe, hw, role):
            for mode in pool_modes(ctx, recipe):
                choice = PoolChoice(nodes, mode)
                is_default = default.get(role) == choice
                if nodes == 0 and mode == "dep" and not is_default:
                    why = shared_dep_reason(hw)
                    found.append(PoolLayout(role, choice, None, why, False, nodes == declared))
                    continue
                pool = render_pd_pool(ctx, recipe, variant_key, hw, role, choice, features)
                found.append(PoolLayout(role, choice, pool, "", is_default, nodes == declared))
        out[role] = found
    return out


def pool_options(
    ctx: Context,
    recipe: dict,
    variant_key: str,
    hw: Hardware,
    plans: plan.RecipePlans,
    features: dict | None = None,
    layouts: dict[str, list[PoolLayout]] | None = None,
) -> dict[str, list[PoolOption]]:
    """Per role, every layout a reader may pick on `hw` (node counts x modes, in that order) with
    the verdict of its pool's plan on `hw`'s profile (`layouts`: `pool_layouts`, when the caller
    has them)."""
    profile, name, vram = gpu_facts(ctx, hw.label)
    if layouts is None:
        layouts = pool_layouts(ctx, recipe, variant_key, hw, features)
    out: dict[str, list[PoolOption]] = {}
    for role, found in layouts.items():
        out[role] = []
        for x in found:
            if x.pool is None:
                out[role].append(
                    PoolOption(role, x.choice, None, None, False, x.reason, x.default, x.declared)
                )
                continue
            p = plan.plan_of(
                plans,
                variant_key,
                profile,
                x.pool.process.argv,
                gpus=x.pool.pool_gpus,
                nodes=max(1, x.choice.nodes),
            )
            reason = plan.expand(p, name, vram)["reason"]
            out[role].append(
                PoolOption(role, x.choice, x.pool, p, plan.holds(p), reason, x.default, x.declared)
            )
    return out


def choice_text(choice: PoolChoice) -> str:
    """A layout as the CLI's flags spell it: `2 nodes, tp`, `shared node, dep`."""
    where = (
        "shared node" if choice.nodes == 0 else f"{choice.nodes} node" + "s" * (choice.nodes > 1)
    )
    return f"{where}, {choice.mode}"


def starting_text(choices: list[PoolChoice]) -> str:
    """Layouts by node count: `2 nodes tp/tep/dep, 3 nodes dep`."""
    by: dict[int, list[str]] = {}
    for c in choices:
        by.setdefault(c.nodes, []).append(c.mode)
    return ", ".join(
        f"{choice_text(PoolChoice(n, '')).rstrip(', ')} {'/'.join(m)}" for n, m in by.items()
    )


def topology_rendering(
    ctx: Context,
    recipe: dict,
    rendering: Rendering,
    asked: dict[str, dict],
    features: dict | None = None,
) -> Rendering:
    """`rendering` (a PD rendering) with the pools `asked` lays out: per role `nodes` and/or
    `mode` (what is not asked stays as the rendering has it). Refuses, with what was asked, what
    is allowed and the nearest layout that starts, a mode the recipe does not allow, a node count
    the hardware cannot take, or a layout whose pool cannot start."""
    if rendering.prefill is None or rendering.decode is None:
        raise ChoiceError("--prefill-* and --decode-* choose the pools of --strategy pd_cluster")
    hw = ctx.hardware(rendering.hardware)
    modes = pool_modes(ctx, recipe)
    options = pool_options(ctx, recipe, rendering.variant, hw, plan.RecipePlans(recipe), features)
    current = {"prefill": rendering.prefill, "decode": rendering.decode}
    topology: dict[str, PoolChoice] = {}
    for role in PD_ROLES:
        want = asked.get(role) or {}
        pool = current[role]
        mode = want.get("mode") or _mode_of(pool, modes)
        if mode not in modes:
            hint = did_you_mean(NameIndex(modes).suggest(mode))
            raise ChoiceError(
                f"--{role}-mode {mode}: not a pool mode of this recipe{hint}; "
                f"allowed: {', '.join(modes)}"
            )
        nodes = want.get("nodes")
        nodes = pool.nodes if nodes is None else nodes
        counts = pd_node_counts(recipe, hw, role)
        if nodes not in counts:
            raise ChoiceError(
                f"--{role}-nodes {nodes}: a {role} pool on {hw.id} takes "
                f"{', '.join(map(str, counts))} nodes (0: half of one node)"
            )
        choice = PoolChoice(nodes, mode)
        option = next(o for o in options[role] if o.choice == choice)
        if not option.fits:
            starts = [o.choice for o in options[role] if o.fits]
            near = min(
                starts,
                key=lambda c: (c.mode != mode, abs(c.nodes - nodes), c.nodes),
                default=None,
            )
            hint = (
                f"; layouts that start: {starting_text(starts)}; did you mean {choice_text(near)}?"
                if near
                else "; no layout of it starts"
            )
            raise ChoiceError(
                f"the {role} pool ({choice_text(choice)}) cannot start on {hw.id}: "
                f"{option.reason.rstrip('.')}{hint}"
            )
        topology[role] = choice
    laid = render_pd(ctx, recipe, rendering.variant, hw, features, topology)
    assert laid is not None  # both roles are given: no default to skip
    return laid.relabelled(rendering.hardware) if laid.hardware != rendering.hardware else laid


def _mode_of(pool: PdPool, modes: list[str]) -> str:
    """The mode a rendered pool runs (its published parallelism snaps to `modes` as synthesis does)."""
    return pool.parallelism if pool.parallelism in modes else modes[0]
