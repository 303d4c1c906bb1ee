"""Where a model runs: per hardware profile the smallest layout that fits, and the profile a
model page opens on.

Both read the plans of plan.py (the budget of fit.py), so a page never says "runs on" where the
memory panel of the same command says it cannot start.

**Smallest layout on a profile** (the model page's "Runs on" rows, the API's `smallest_fit`):
of the renderings published for the profile (every variant, strategy and node count), those
whose plan fits (`plan.FITS`: weights, overhead and one request of the served length fit every
GPU), the one taking the fewest GPUs, then the fewest nodes, then the variant listed first in
the recipe (the checkpoint its authors lead with), then the recommended strategy.

**Fits comfortably**: the plan fits, the command serves the model's full context length (no
`--max-model-len` cut below it) and its KV cache holds that full length COMFORT_REQUESTS times:
one whole-context request, and as much again as headroom for a second request or a long
prefix cache.

**The hardware a variant opens on** (`default_hardware` of the API and the page's first view,
when the site setting `default_hardware: smallest_fit` is on; site_config.py):

1. the recipe's `meta.default_hardware`, when the variant runs there (a recipe's word wins);
2. else the profile where the variant's recommended command fits comfortably, of the first brand
   that has one in the reference's brand order (NVIDIA, then AMD, then the others: what most
   readers own), on the least GPU memory (GPUs it takes x the memory each reports), then on
   fewer GPUs, then in taxonomy order;
3. else the same among profiles where it fits at all;
4. else the reference's rule (synthesis/selection.py `default_hardware`), as without the setting.

A profile serving another variant in its place (a fixed-size machine the variant does not fit,
selection.py `substitute_variant`) is never chosen: the page would open on a warning.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

from recipes_site import fit, plan
from recipes_site.jsish import mapping
from recipes_site.synthesis.types import RecipeRenderings, VariantTree

# the reference's brand ranking of a default (synthesis/selection.py `default_hardware`)
BRAND_ORDER = {"NVIDIA": 0, "AMD": 1}
COMFORT_REQUESTS = 2  # full-context requests the KV cache holds for a fit to count as comfortable


def fits(p: dict) -> bool:
    """Whether the plan says the command starts (an unknown weight size is not a fit)."""
    return p.get("verdict") == plan.FITS


def comfortable(p: dict, full_context: int | None) -> bool:
    """Fits, serves the full context, and holds it COMFORT_REQUESTS times (module docstring)."""
    if not fits(p):
        return False
    served, held = p.get("context_length"), p.get("concurrency")
    if full_context and (not served or served < full_context):
        return False
    return isinstance(held, int) and held >= COMFORT_REQUESTS


def memory_gib(p: dict, profile: dict) -> float:
    """GPU memory a plan's deployment occupies: its GPUs times the memory each reports."""
    return p.get("gpus", 1) * fit.gpu_memory(profile).total_gib


# -- the hardware a variant opens on -------------------------------------------------------------


def opening_hardware(
    tree: VariantTree, recipe: dict, profiles: dict, plans: plan.RecipePlans
) -> str | None:
    """The profile `tree` opens on by the module's rule, None for rule 4 (the reference's)."""
    offered = [res.hardware for res in tree.by_hardware]
    wanted = mapping(recipe.get("meta")).get("default_hardware")
    if wanted in offered:
        return str(wanted)
    full = fit.model_facts(recipe, tree.variant).context_length
    order = list(profiles)
    comfy, fitting = [], []
    for res in tree.by_hardware:
        r = res.recommended
        if r.variant != tree.variant or res.hardware not in profiles:
            continue
        profile = mapping(profiles[res.hardware])
        p = plan.rendering_plan(plans, r, profile)
        brand = BRAND_ORDER.get(str(profile.get("brand")), len(BRAND_ORDER))
        key = (brand, memory_gib(p, profile), p.get("gpus", 1), order.index(res.hardware))
        if comfortable(p, full):
            comfy.append((key, res.hardware))
        elif fits(p):
            fitting.append((key, res.hardware))
    best = min(comfy or fitting, default=None)
    return best[1] if best else None


def with_opening_hardware(
    rendered: RecipeRenderings, recipe: dict, profiles: dict
) -> RecipeRenderings:
    """`rendered` with each tree's `default_hardware` chosen by `opening_hardware` (its results
    reordered so the default comes first, as synthesis leaves them)."""
    plans = plan.RecipePlans(recipe)
    trees = []
    for tree in rendered.trees:
        chosen = opening_hardware(tree, recipe, profiles, plans)
        if chosen is None or chosen == tree.default_hardware:
            trees.append(tree)
            continue
        first = [res for res in tree.by_hardware if res.hardware == chosen]
        rest = [res for res in tree.by_hardware if res.hardware != chosen]
        trees.append(replace(tree, default_hardware=chosen, by_hardware=tuple(first + rest)))
    return replace(rendered, trees=tuple(trees))


# -- the smallest layout per profile ---------------------------------------------------------------


class Layout(NamedTuple):
    """The smallest layout that fits on one profile: a published rendering, or one of its GPU
    counts (gpu_counts.py, the rendering's `gpus` member) when that takes fewer GPUs."""

    hardware: str
    variant: str  # the variant served (a key of the recipe's `variants`)
    strategy: str
    node_count: int
    recommended: bool  # the recommended rendering of its variant there (no strategy to pick)
    plan: dict  # the rendering's published default plan, or what a GPU count's layout says
    comfortable: bool | None  # None: a GPU count's layout that serves the full context, its
    # headroom unpublished
    gpus_choice: int | None = None  # the picker's GPU count showing this layout (None: as rendered)


def _count_layout(r: dict, full: int | None) -> tuple[int, dict, bool | None] | None:
    """(count, plan-like figures, comfortable) of the smallest GPU count of a rendering's `gpus`
    member that fits (gpu_counts.py `layout_json`: its TP and the --max-model-len it sets when the
    full context does not fit), None without one."""
    counts = (r.get("gpus") or {}).get("counts") or {}
    for n in sorted(counts, key=int):
        c = counts[n]
        if c.get("fits") and c.get("tensor_parallel_size"):
            tp, cut = c["tensor_parallel_size"], c.get("max_model_len")
            p = {"gpus": tp, "tp": tp, "verdict": plan.FITS, "context_length": cut or full}
            return int(n), p, (False if cut and full and cut < full else None)
    return None


def smallest_on(
    hw_doc: dict, variant_order: list[str], full_context: dict[str, int | None]
) -> Layout | None:
    """The smallest layout of a hardware document that fits (module docstring): of its renderings,
    and of each rendering's GPU counts (gpu_counts.py) where one takes fewer GPUs; else None.
    `variant_order` lists the recipe's variant keys (earlier = preferred on a tie) and
    `full_context` each variant's full context length (fit.model_facts)."""
    rank = {k: i for i, k in enumerate(variant_order)}
    recommended = {
        (c["variant"], c["strategy"], c["node_count"]) for c in hw_doc["recommended"].values()
    }
    best, best_key = None, None
    for r in hw_doc["renderings"]:
        if r["variant"] not in rank:
            continue
        full = full_context.get(r["variant"])
        is_rec = (r["variant"], r["strategy"], r["node_count"]) in recommended
        found: list[tuple[dict, bool | None, int | None]] = []
        p = r["plan"]["default"]
        if fits(p):
            found.append((p, comfortable(p, full), None))
        if (count := _count_layout(r, full)) is not None:
            found.append((count[1], count[2], count[0]))
        for p, comfy, n in found:
            # fewest GPUs, nodes; the recipe's first variant; its recommended strategy; as rendered
            key = (p["gpus"], p.get("nodes", 1), rank[r["variant"]], not is_rec, n is not None)
            if best_key is None or key < best_key:
                best_key = key
                best = Layout(
                    hw_doc["hardware"],
                    r["variant"],
                    r["strategy"],
                    r["node_count"],
                    is_rec,
                    p,
                    comfy,
                    n,
                )
    return best


def smallest_layouts(hw_docs: dict[str, dict], recipe: dict) -> dict[str, Layout | None]:
    """Per profile of `hw_docs` (profile id -> its hardware document, in taxonomy order): the
    smallest layout that fits there, None where none does."""
    keys = list(mapping(recipe.get("variants")))
    full = {k: fit.model_facts(recipe, k).context_length for k in keys}
    return {h: smallest_on(doc, keys, full) for h, doc in hw_docs.items()}


def smallest_fit(layouts: dict[str, Layout | None], profiles: dict) -> Layout | None:
    """Of the profiles' smallest layouts, the one on the least GPU memory, preferring a comfortable
    fit (the rule a page opens by, over every variant): the home page's "Runs on"."""
    order = list(profiles)

    def key(x: Layout) -> tuple:
        profile = mapping(profiles.get(x.hardware))
        index = order.index(x.hardware) if x.hardware in profiles else len(order)
        return (not x.comfortable, memory_gib(x.plan, profile), x.plan["gpus"], index)

    found = [x for x in layouts.values() if x is not None]
    return min(found, key=key) if found else None
