"""Deciding where a variant runs and how: hardware list, default hardware, variant fallback on
fixed-size machines, the strategy set per hardware, the recommended strategy and node count.

These choices follow the reference site's rules so that contributors' recipes keep producing
the commands they were written for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple

from recipes_site.jsish import is_number, mapping, str_list, truthy

from .hardware import Hardware
from .memo import remembered
from .recording import hardware_query

BLACKWELL_ONLY = {"brand": "NVIDIA", "generation": "blackwell"}
MULTI_NODE_PREFERENCE = ("multi_node_tp", "multi_node_dep", "multi_node_tep")
MAX_NODES = 16


@dataclass(frozen=True)
class Context:
    """Catalog-wide inputs every decision may consult."""

    profiles: dict  # hw id -> taxonomy profile (taxonomy order)
    strategies: dict  # serving strategy id -> spec, then kv-store id -> spec
    kv_ids: tuple  # kv-store ids, in file order
    kv_offload: dict = field(default_factory=dict)  # taxonomy `kv_offload` (render/kv_offload.py)

    def hardware(self, hw_id: str) -> Hardware:
        hw = self._hardware.get(hw_id)
        if hw is None:
            hw = self._hardware[hw_id] = Hardware(hw_id, mapping(self.profiles.get(hw_id)))
        return hw

    @cached_property
    def _hardware(self) -> dict:
        """One Hardware per id for the whole build (immutable, its facts worked out once), instead
        of a new one, its facts worked out again, for each of thousands of look-ups."""
        return {}

    def deploy_type(self, strategy_id: str) -> str:
        return self._deploy_types.get(strategy_id, "single_node")

    @cached_property
    def _deploy_types(self) -> dict:
        """deploy_type per strategy id, read once per build (asked tens of thousands of times)."""
        return {
            s: mapping(spec).get("deploy_type") or "single_node"
            for s, spec in self.strategies.items()
        }


# -- hardware eligibility -------------------------------------------------------------------


def precision_constraint(variant: dict) -> dict | None:
    declared = variant.get("precision_hardware")
    if truthy(declared):
        return mapping(declared)
    if variant.get("precision") in ("nvfp4", "fp4"):
        return BLACKWELL_ONLY
    return None


def meets_constraint(constraint: dict | None, hw: Hardware) -> bool:
    if not constraint:
        return True
    brand, generation = constraint.get("brand"), constraint.get("generation")
    if truthy(brand) and hw.brand != brand:
        return False
    if truthy(generation) and generation not in hw.generations:
        return False
    return True


def allowed_by_variant(variant: dict, hw: Hardware) -> bool:
    allow = str_list(variant.get("supported_hardware"))
    return not allow or hw.id in allow


def runs_on(variant: dict, hw: Hardware) -> bool:
    """Whether vLLM runs the variant's weight format on `hw` (the profile's `precisions`)."""
    return hw.precision_problem(variant.get("precision")) is None


def unavailable_reason(variant: dict, hw: Hardware) -> str | None:
    """Why the variant's precision keeps it off `hw`, in words a page or the CLI shows: the
    recipe's (or the reference's NVFP4) hardware constraint, else the profile's `precisions`."""
    constraint = precision_constraint(variant)
    if constraint and not meets_constraint(constraint, hw):
        # the model page's words for the same rule (render/pages.py unavailable_reasons)
        need = " ".join(
            str(x) if str(x).isupper() else str(x).capitalize()
            for x in (constraint.get("brand"), constraint.get("generation"))
            if truthy(x)
        )
        return f"{str(variant.get('precision') or 'these').upper()} weights need {need} hardware"
    return hw.precision_problem(variant.get("precision"))


def eligible_hardware(ctx: Context, recipe: dict, variant: dict) -> list[str]:
    """Profiles the variant may run on, in taxonomy order: not declared unsupported in
    meta.hardware, a restricted profile only when listed there, and the variant's precision
    constraint and allow-list (allowed_by_variant) met. The declarations and the constraint are
    read once for all profiles. A profile that declares `precisions` is left out when vLLM runs
    the variant's weight format there neither natively nor weight-only."""
    declared = mapping(mapping(recipe.get("meta")).get("hardware"))
    constraint = precision_constraint(variant)
    allow = str_list(variant.get("supported_hardware"))  # allowed_by_variant's list, read once
    out = []
    for h in ctx.profiles:
        hw = ctx.hardware(h)
        if declared.get(h) == "unsupported" or (hw.restricted and h not in declared):
            continue
        if (
            (not constraint or meets_constraint(constraint, hw))
            and (not allow or h in allow)
            and runs_on(variant, hw)
        ):
            out.append(h)
    return out


def unavailable_hardware(ctx: Context, recipe: dict, variant: dict) -> dict[str, str]:
    """Profile id -> why the variant's precision keeps it off that profile, for the profiles the
    recipe would otherwise offer (not unsupported; restricted ones only when listed)."""
    declared = mapping(mapping(recipe.get("meta")).get("hardware"))
    out = {}
    for h in ctx.profiles:
        hw = ctx.hardware(h)
        if declared.get(h) == "unsupported" or (hw.restricted and h not in declared):
            continue
        reason = unavailable_reason(variant, hw)
        if reason:
            out[h] = reason
    return out


def default_hardware(
    ctx: Context, recipe: dict, variant: dict, candidates: list[str] | None = None
) -> str:
    if candidates is None:
        candidates = eligible_hardware(ctx, recipe, variant)
    wanted = mapping(recipe.get("meta")).get("default_hardware")
    if wanted in candidates:
        return wanted
    constraint = precision_constraint(variant) or {}
    if constraint.get("generation") == "blackwell":
        for hw_id in ("b200", "gb200"):
            if hw_id in candidates:
                return hw_id
    if "h200" in candidates:
        return "h200"
    if candidates:
        rank = {"NVIDIA": 0, "AMD": 1}
        return sorted(candidates, key=lambda h: (rank.get(ctx.hardware(h).brand, 9), h))[0]
    return "h200"


def hardware_list(ctx: Context, recipe: dict, variant: dict) -> list[str]:
    candidates = eligible_hardware(ctx, recipe, variant)
    first = default_hardware(ctx, recipe, variant, candidates)
    return [first] + [h for h in candidates if h != first]


# -- fit --------------------------------------------------------------------------------------


def vram_needed(variant: dict) -> float:
    v: Any = variant.get("vram_minimum_gb")
    return v if is_number(v) else 0


@hardware_query
def fits_node(hw: Hardware, variant: dict) -> bool:
    need, have = vram_needed(variant), hw.node_vram_gb
    return need <= 0 or have <= 0 or need <= have


@hardware_query
def substitute_variant(recipe: dict, variant_key: str, hw: Hardware) -> str | None:
    """On a machine that cannot be clustered, swap an oversized variant for the largest one that fits."""
    variants = mapping(recipe.get("variants"))
    variant = mapping(variants.get(variant_key) or variants.get("default"))
    if hw.scalable or fits_node(hw, variant):
        return variant_key
    # the same answer for every oversized variant: worked out once per recipe and profile
    return remembered(
        recipe, ("largest_fitting_variant", hw.label), largest_fitting_variant, recipe, hw
    )


def largest_fitting_variant(recipe: dict, hw: Hardware) -> str | None:
    """The first of the variants fitting on one `hw` box whose variant needs the most VRAM; None
    when none fits."""
    variants = mapping(recipe.get("variants"))
    fitting = fitting_variants(recipe, hw)
    if not fitting:
        return None
    return max(fitting, key=lambda k: vram_needed(mapping(variants[k])))


def fitting_variants(recipe: dict, hw: Hardware) -> list[str]:
    """Variant keys that may run on one `hw` box as they are (precision, allow-list and VRAM)."""
    return [
        k
        for k, v in mapping(recipe.get("variants")).items()
        if meets_constraint(precision_constraint(mapping(v)), hw)
        and allowed_by_variant(mapping(v), hw)
        and runs_on(mapping(v), hw)
        and fits_node(hw, mapping(v))
    ]


def substitution_reason(recipe: dict, asked: str, hw: Hardware) -> str:
    """Why `substitute_variant` would not render variant `asked` on `hw`, with the variants that fit.

    The site swaps silently (the reference does); a person who typed `--variant` is told instead."""
    variant = mapping(mapping(recipe.get("variants")).get(asked))
    fitting = fitting_variants(recipe, hw)
    return (
        f"variant {asked!r} needs {vram_needed(variant):g} GB, more than one {hw.id} holds "
        f"({hw.node_vram_gb:g} GB), and {hw.id} cannot be clustered; "
        + (
            f"variants that fit on {hw.id}: {', '.join(fitting)}"
            if fitting
            else f"no variant fits on {hw.id}"
        )
    )


# -- strategies ---------------------------------------------------------------------------------


def effective_strategies(ctx: Context, recipe: dict) -> list[str]:
    """The recipe's strategies, then those `strategy_hardware` grants, then every kv-store."""
    # kept per recipe: consulted for every hardware and every kv-store or PD rendering
    return remembered(recipe, ("effective_strategies", id(ctx)), _effective_strategies, ctx, recipe)


def _effective_strategies(ctx: Context, recipe: dict) -> list[str]:
    listed = str_list(recipe.get("compatible_strategies"))
    granted = [
        s
        for s, per_hw in mapping(recipe.get("strategy_hardware")).items()
        if s not in listed and "supported" in mapping(per_hw).values()
    ]
    out: list[str] = []
    for s in listed + granted + list(ctx.kv_ids):
        if s not in out:
            out.append(s)
    return out


def min_gpus(recipe: dict, strategy_id: str, hw: Hardware) -> float:
    table = recipe.get("strategy_min_gpus")
    if table is None:
        return 0
    if is_number(table):
        return table
    table = mapping(table)
    return max(_min_gpus_block(table, strategy_id), _min_gpus_block(hw.entry(table), strategy_id))


def _min_gpus_block(x, strategy_id: str) -> float:
    """One level of a `strategy_min_gpus` table (the recipe's, or its entry for a profile id)."""
    if x is None:
        return 0
    if is_number(x):
        return x
    x = mapping(x)
    for key in (strategy_id, "multi_node_" + strategy_id, "single_node_" + strategy_id):
        if x.get(key) is not None:
            return x[key]
    return 0


@hardware_query
def nodes_for_strategy(recipe: dict, strategy_id: str, hw: Hardware) -> int:
    return max(1, math.ceil(min_gpus(recipe, strategy_id, hw) / hw.gpus_or_8))


def _hardware_gate(recipe: dict, strategy_id: str, hw: Hardware) -> bool:
    verdict = hw.keyed(mapping(recipe.get("strategy_hardware")).get(strategy_id))
    if verdict is not None:
        return verdict != "unsupported"
    return strategy_id in str_list(recipe.get("compatible_strategies"))


@hardware_query
def strategy_set(ctx: Context, recipe: dict, hw: Hardware) -> list[str]:
    kv_gate = mapping(recipe.get("kv_cache_strategy_hardware"))
    out = []
    for s in effective_strategies(ctx, recipe):
        if s in ctx.kv_ids:
            if (
                hw.scalable
                and hw.brand in ("NVIDIA", "AMD")
                and hw.entry(mapping(kv_gate.get(s))) != "unsupported"
            ):
                out.append(s)
            continue
        multi = ctx.deploy_type(s) in ("multi_node", "pd_cluster")
        if not _hardware_gate(recipe, s, hw):
            continue
        if (MAX_NODES if multi else 1) * hw.gpus_or_8 < min_gpus(recipe, s, hw):
            continue
        if not hw.scalable and (s.startswith("multi_node_") or s == "pd_cluster"):
            continue
        out.append(s)
    return out


def recommend_strategy(recipe: dict, effective: list[str], base_nodes: int) -> str:
    wanted = recipe.get("default_strategy")
    if wanted and wanted in effective:
        if base_nodes > 1 and wanted.startswith("single_node_"):
            sibling = "multi_node_" + wanted[len("single_node_") :]
            if sibling in effective:
                return sibling
        else:
            return wanted
    if base_nodes > 1:
        for s in MULTI_NODE_PREFERENCE:
            if s in effective:
                return s
    if "single_node_tp" in effective:
        return "single_node_tp"
    return effective[0] if effective else "single_node_tp"


class Recommendation(NamedTuple):
    strategy: str
    nodes: int


@hardware_query
def recommend(
    ctx: Context, recipe: dict, variant: dict, hw: Hardware, offered: list[str]
) -> Recommendation:
    # two nodes when the variant does not fit on one and a multi-node strategy is offered (the
    # offer is looked at only then: nearly every variant fits)
    base_nodes = (
        2
        if (
            not fits_node(hw, variant)
            and hw.scalable
            and any(s.startswith("multi_node_") for s in offered)
        )
        else 1
    )
    choice = recommend_strategy(recipe, effective_strategies(ctx, recipe), base_nodes)
    if choice not in offered:
        # an offered strategy that is neither a kv-store nor pd_cluster, else one that is no kv-store
        fallback = [s for s in offered if s not in ctx.kv_ids and s != "pd_cluster"] or [
            s for s in offered if s not in ctx.kv_ids
        ]
        if fallback:
            choice = fallback[0]
    floor = 2 if ctx.deploy_type(choice) == "multi_node" else 1
    return Recommendation(
        choice, max(base_nodes, max(floor, nodes_for_strategy(recipe, choice, hw)))
    )


def node_count_problem(
    ctx: Context,
    recipe: dict,
    strategy_id: str,
    hw: Hardware,
    nodes: int | None,
    pick: Recommendation,
) -> str | None:
    """Why `nodes` (a person's `--nodes`) does not suit `strategy_id` on `hw`, or None.

    One function so that `recipes-site command` and `fit` (both through `render_choice`) accept and
    refuse the same node counts with the same words. Multi-node strategies take their floor (at
    least 2, more when `strategy_min_gpus` says so) up to MAX_NODES; other strategies run on one
    node, except the recommended layout's own count, which is always accepted back."""
    if nodes is None:
        return None
    if nodes < 1:
        return f"--nodes must be a positive whole number, got {nodes}"
    if ctx.deploy_type(strategy_id) == "multi_node":
        floor = max(2, nodes_for_strategy(recipe, strategy_id, hw))
        if nodes < floor:
            return f"{strategy_id} needs at least {floor} nodes of {hw.id}"
        if nodes > MAX_NODES:
            return f"{strategy_id} is laid out for at most {MAX_NODES} nodes"
    elif nodes != 1 and not (strategy_id == pick.strategy and nodes == pick.nodes):
        return f"{strategy_id} runs on one node; --nodes applies to multi-node strategies"
    return None
