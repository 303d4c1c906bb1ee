"""Synthesis: from a validated recipe to every rendering a user can pick.

`synthesize_recipe` walks the variant trees (the `default` variant and every variant that
serves its own checkpoint), the hardware each runs on, and the strategies offered there.
No I/O and no formatting of pages happens here.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import cast

from recipes_site.errors import ChoiceError  # raised here, caught by the commands
from recipes_site.fit import hf_config_of, shape_from_argv
from recipes_site.jsish import mapping
from recipes_site.kv_cache import tp_problem
from recipes_site.suggest import NameIndex, did_you_mean

from .choices import feature_choices
from .deployments import render_kv, render_pd, render_serving
from .hardware import Hardware
from .memo import synthesizing
from .recording import Pieces, Recording, Trace, relabelled
from .selection import (
    MAX_NODES,
    Context,
    hardware_list,
    node_count_problem,
    nodes_for_strategy,
    recommend,
    strategy_set,
    substitute_variant,
    unavailable_reason,
)
from .serve_args import model_id, variant_of
from .types import (
    HardwareResult,
    Process,
    RecipeRenderings,
    Rendering,
    VariantTree,
    hardware_result,
)

__all__ = [
    "Context",
    "synthesize_recipe",
    "render_strategy",
    "is_omni",
    "promotable_variants",
    "Rendering",
    "Process",
    "RecipeRenderings",
    "VariantTree",
    "HardwareResult",
]


def is_omni(recipe: dict) -> bool:
    return "omni" in (mapping(recipe.get("meta")).get("tasks") or [])


def promotable_variants(
    recipe: dict, standalone_ids: AbstractSet[str]
) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Variants serving their own checkpoint id, as {tree key: rendered variant key}.

    Those colliding with a standalone recipe are skipped. When several variants serve the same
    checkpoint, the checkpoint keeps one tree under the first variant's key, rendered from the
    last variant (the reference overwrites the earlier tree); `validate` warns about it.
    """
    by_checkpoint: dict[str, list[str]] = {}
    skipped = []
    for key, variant in mapping(recipe.get("variants")).items():
        mid = mapping(variant).get("model_id")
        if isinstance(mid, str) and "/" in mid:
            if mid in standalone_ids:
                skipped.append((key, mid))
            else:
                by_checkpoint.setdefault(mid, []).append(key)
    trees = {}
    for keys in by_checkpoint.values():
        # the `default` tree always renders the default variant; a later variant sharing its
        # checkpoint gets a tree of its own
        first = keys[0] if keys[0] != "default" or keys[-1] == "default" else keys[-1]
        trees[first] = keys[-1]
    return trees, skipped


def default_nodes(ctx: Context, recipe: dict, strategy_id: str, hw: Hardware) -> int:
    """Node count of a strategy offered as an alternative: its floor, at least 2 when multi-node."""
    if ctx.deploy_type(strategy_id) == "multi_node":
        return max(2, nodes_for_strategy(recipe, strategy_id, hw))
    return 1


def render_strategy(
    ctx: Context,
    recipe: dict,
    variant_key: str,
    strategy_id: str,
    hw: Hardware,
    nodes: int | None = None,
    features: dict | None = None,
) -> Rendering | None:
    """One rendering; `nodes` None means the strategy's own default node count, `features`
    None the recipe's default feature set."""
    if strategy_id in ctx.kv_ids:
        return render_kv(ctx, recipe, variant_key, strategy_id, hw, features)
    if ctx.deploy_type(strategy_id) == "pd_cluster":
        return render_pd(ctx, recipe, variant_key, hw, features)
    if nodes is not None:
        return render_serving(ctx, recipe, variant_key, strategy_id, hw, nodes, features)
    rendering = render_serving(
        ctx,
        recipe,
        variant_key,
        strategy_id,
        hw,
        default_nodes(ctx, recipe, strategy_id, hw),
        features,
    )
    return allowed_node_count(ctx, recipe, rendering, hw, features)


def allowed_node_count(
    ctx: Context, recipe: dict, rendering: Rendering, hw: Hardware, features: dict | None = None
) -> Rendering:
    """A default multi-node layout whose TP the model's heads refuse (recipes with hf_config only)
    moves to the smallest larger node count they allow; anything else is returned as it is.
    `hw` is the hardware `rendering` was made for (a synthesis's Recording, synthesis/recording.py)."""
    if rendering.deploy_type != "multi_node" or tp_refusal(recipe, rendering) is None:
        return rendering
    for more in range(rendering.node_count + 1, MAX_NODES + 1):
        other = render_serving(
            ctx, recipe, rendering.variant, rendering.strategy, hw, more, features
        )
        if tp_refusal(recipe, other) is None:
            return other
    return rendering


def _on_hardware(
    ctx: Context, recipe: dict, tree_key: str, hw: Hardware, pieces: Pieces | None = None
) -> HardwareResult | None:
    """The renderings of variant tree `tree_key` on `hw`. With `pieces` (`hw` is then a Recording),
    each strategy's rendering may be taken, re-labelled, from an earlier profile that answered
    what that rendering read alike (synthesis/recording.py)."""
    key = substitute_variant(recipe, tree_key, hw)
    if key is None:
        return None
    variant = variant_of(recipe, key)
    offered = strategy_set(ctx, recipe, hw)
    pick = recommend(ctx, recipe, variant, hw, offered)
    # the type of the node count too: 1 and True are equal keys but would print differently
    recommended = _piece(
        pieces,
        ("recommended", key, pick.strategy, pick.nodes, type(pick.nodes)),
        hw,
        _recommended,
        (ctx, recipe, key, pick.strategy, hw, pick.nodes),
    )
    if recommended is None:
        return None
    alternatives = []
    for s in offered:
        if s == pick.strategy:
            continue
        rendering = _piece(
            pieces, ("alternative", key, s), hw, _alternative, (ctx, recipe, key, s, hw)
        )
        if rendering is not None:
            alternatives.append(rendering)
    return hardware_result(
        hardware=hw.label, recommended=recommended, alternatives=tuple(alternatives)
    )


def _alternative(
    ctx: Context, recipe: dict, key: str, strategy_id: str, hw: Hardware
) -> Rendering | None:
    """An alternative strategy's rendering, None when it has none or the model's heads refuse its TP
    (recipes with hf_config only). Checked inside the piece: a profile taking it takes the verdict
    too (tp_refusal reads the rendering's commands and the recipe alone, the same re-labelled)."""
    rendering = render_strategy(ctx, recipe, key, strategy_id, hw)
    return None if rendering is None or tp_refusal(recipe, rendering) is not None else rendering


def _recommended(
    ctx: Context, recipe: dict, key: str, strategy_id: str, hw: Hardware, nodes: int
) -> Rendering | None:
    """The recommended strategy's rendering on its recommended node count (moved to a larger one
    when the model's heads refuse its TP)."""
    rendering = render_strategy(ctx, recipe, key, strategy_id, hw, nodes)
    return None if rendering is None else allowed_node_count(ctx, recipe, rendering, hw)


def _piece(
    pieces: Pieces | None, key: tuple, hw: Hardware, render, args: tuple
) -> Rendering | None:
    """`render(*args)`, a rendering for `hw`: made here, or (with `pieces`) taken re-labelled from an
    earlier profile's piece under the same `key` (its arguments but the hardware)."""
    if pieces is None:
        return render(*args)
    rendering, taken = pieces.get(key, cast(Recording, hw), render, args)
    return rendering.relabelled(hw.label) if taken and rendering is not None else rendering


def _on_hardware_once(
    ctx: Context,
    recipe: dict,
    tree_key: str,
    hw: Hardware,
    recordings: dict,
    made: list,
    pieces: Pieces,
) -> HardwareResult | None:
    """`_on_hardware`, taken re-labelled from a profile synthesized earlier for this tree when `hw`
    answers everything that synthesis asked of its hardware the same way (synthesis/recording.py);
    synthesized under a Recording otherwise, sharing the recipe's `pieces`. `made` holds this tree's
    (recording, result) pairs."""
    recording = recordings.get(hw.id)
    if recording is None:
        recording = recordings[hw.id] = Recording(hw, pieces.trace)
    for earlier, result in reversed(made):
        if earlier.agrees(recording):
            return relabelled(result, hw.id)
    # a Recording answers every read as the Hardware it wraps does
    result = _on_hardware(ctx, recipe, tree_key, cast(Hardware, recording), pieces)
    made.append((recording, result))
    return result


def synthesize_recipe(
    ctx: Context, hf_id: str, recipe: dict, standalone_ids: AbstractSet[str]
) -> RecipeRenderings:
    if is_omni(recipe):
        return RecipeRenderings(hf_id=hf_id, trees=())
    trace = Trace()
    with synthesizing(recipe, trace):
        return _synthesize(ctx, hf_id, recipe, standalone_ids, Pieces(trace))


def _synthesize(
    ctx: Context, hf_id: str, recipe: dict, standalone_ids: AbstractSet[str], pieces: Pieces
) -> RecipeRenderings:
    variants = mapping(recipe.get("variants"))
    promoted, skipped = promotable_variants(recipe, standalone_ids)
    trees_to_render = {"default": "default"} if "default" in variants else {}
    trees_to_render.update({k: v for k, v in promoted.items() if k != "default"})
    trees = []
    recordings: dict[str, Recording] = {}  # per profile, for the whole recipe (as its memos are)
    for tree_key, rendered_key in trees_to_render.items():
        variant = mapping(variants.get(rendered_key))
        results = []
        made: list = []
        for index, hw_id in enumerate(hardware_list(ctx, recipe, variant)):
            result = _on_hardware_once(
                ctx, recipe, rendered_key, ctx.hardware(hw_id), recordings, made, pieces
            )
            if result is None:
                if index == 0:
                    break
                continue
            results.append(result)
        if results:
            trees.append(
                VariantTree(
                    variant=tree_key,
                    model_id=model_id(recipe, variant),
                    default_hardware=results[0].hardware,
                    by_hardware=tuple(results),
                )
            )
    return RecipeRenderings(hf_id=hf_id, trees=tuple(trees), skipped_promotions=tuple(skipped))


def render_choice(
    ctx: Context,
    recipe: dict,
    variant_key: str = "default",
    hw_id: str | None = None,
    strategy_id: str | None = None,
    nodes: int | None = None,
    features: dict | None = None,
) -> Rendering:
    """The rendering for one explicit choice, defaulting each part the way the site does.

    `features` is the full selected set (name -> mode, None for features without modes)."""
    variants = mapping(recipe.get("variants"))
    if variant_key not in variants:
        hint = did_you_mean(NameIndex(variants).suggest(variant_key))
        raise ChoiceError(f"no variant {variant_key!r}{hint}; variants: {', '.join(variants)}")
    if is_omni(recipe):
        raise ChoiceError("omni recipes have no `vllm serve` command (they run under vLLM-Omni)")
    hw_ids = hardware_list(ctx, recipe, mapping(variants[variant_key]))
    hw_id = hw_id or hw_ids[0]
    if hw_id not in ctx.profiles:
        hint = did_you_mean(NameIndex(ctx.profiles).suggest(hw_id))
        raise ChoiceError(
            f"unknown hardware {hw_id!r}{hint}; `recipes-site hardware` lists the profiles"
        )
    if hw_id not in hw_ids:
        reason = unavailable_reason(mapping(variants[variant_key]), ctx.hardware(hw_id))
        raise ChoiceError(
            f"variant {variant_key!r} is not offered on {hw_id!r}"
            + (f" ({reason})" if reason else "")
            + f"; available: {', '.join(hw_ids)}"
        )
    hw = ctx.hardware(hw_id)
    key = substitute_variant(recipe, variant_key, hw)
    if key is None:
        raise ChoiceError(
            f"no variant of this recipe fits on one {hw_id} and it cannot be clustered"
        )
    offered = strategy_set(ctx, recipe, hw)
    pick = recommend(ctx, recipe, mapping(variants[key]), hw, offered)
    strategy_id = strategy_id or pick.strategy
    if strategy_id not in offered:
        raise ChoiceError(
            f"strategy {strategy_id!r} is not offered on {hw_id}; offered: {', '.join(offered)}"
        )
    kind = ctx.deploy_type(strategy_id)
    problem = node_count_problem(ctx, recipe, strategy_id, hw, nodes, pick)
    if problem:
        raise ChoiceError(problem)
    defaulted = nodes is None
    if nodes is None and strategy_id == pick.strategy:
        nodes = pick.nodes
    rendering = render_strategy(
        ctx, recipe, key, strategy_id, hw, nodes if kind == "multi_node" else None, features
    )
    if rendering is None:
        raise ChoiceError(
            f"{strategy_id} cannot be laid out for this model on {hw_id} (it would need more than 4 nodes per pool)"
        )
    if features is not None:
        _check_features(
            recipe, hw, key, rendering.feature_strategy, features, rendering.kv is not None
        )
    if defaulted:
        rendering = allowed_node_count(ctx, recipe, rendering, hw, features)
    refused = tp_refusal(recipe, rendering)
    if refused:
        raise ChoiceError(_refusal_message(ctx, recipe, key, strategy_id, hw, rendering, refused))
    return rendering


def tp_refusal(recipe: dict, rendering: Rendering) -> tuple[int, str] | None:
    """(TP size, why) when a process of `rendering` uses a tensor-parallel size the model's attention
    heads do not allow (fit/kv_cache `tp_problem`); None when every TP is fine or the recipe has no
    `model.hf_config` (recipes without it render exactly as the reference does)."""
    cfg = hf_config_of(recipe)
    if cfg is None:
        return None
    for process in rendering.processes:
        tp = shape_from_argv(process.argv).tp
        problem = tp_problem(cfg, tp)
        if problem:
            return tp, problem
    return None


def _refusal_message(
    ctx: Context,
    recipe: dict,
    variant_key: str,
    strategy_id: str,
    hw: Hardware,
    rendering: Rendering,
    refused: tuple[int, str],
) -> str:
    tp, problem = refused
    nodes = rendering.node_count
    where = f"{nodes} node{'s' if nodes > 1 else ''} of {hw.id}"
    message = f"{strategy_id} on {where} would need TP {tp}, which vLLM refuses: {problem}"
    if ctx.deploy_type(strategy_id) != "multi_node":
        return message
    floor = max(2, nodes_for_strategy(recipe, strategy_id, hw))
    working = []
    for n in range(floor, MAX_NODES + 1):
        other = (
            render_strategy(ctx, recipe, variant_key, strategy_id, hw, n) if n != nodes else None
        )
        if other is not None and tp_refusal(recipe, other) is None:
            working.append(str(n))
    if working:
        return message + f"; node counts that work: {', '.join(working)}"
    return message + f"; no node count from {floor} to {MAX_NODES} works, choose another strategy"


def _check_features(
    recipe: dict,
    hw: Hardware,
    variant_key: str,
    strategy_id: str,
    features: dict,
    with_kv_store: bool,
) -> None:
    offered = {
        c.name: c for c in feature_choices(recipe, hw, variant_key, strategy_id, with_kv_store)
    }
    for name, mode in features.items():
        choice = offered.get(name)
        if choice is None:
            raise ChoiceError(
                f"feature {name!r} is not available here; available: {', '.join(offered) or 'none'}"
            )
        if choice.modes is not None:
            names = [m.name for m in choice.modes]
            if mode not in names:
                raise ChoiceError(f"feature {name!r} needs a mode: one of {', '.join(names)}")
        elif mode is not None:
            raise ChoiceError(f"feature {name!r} has no modes")
