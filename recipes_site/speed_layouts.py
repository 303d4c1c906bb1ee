"""The speed of a rendering's command and of the layouts one node could run it in.

Between plan.py and the views (render/api.py, fit_report.py): it reads a rendering's plan (the TP,
replicas and KV cache the command really gets) into `speed.estimate`'s inputs, and answers "one
big instance or many small replicas?" the way the issue's method asks: find the smallest TP whose
replica starts (`plan`'s verdict "fits"), fill the node with replicas of it, then every larger TP
up to the node (fewer, wider replicas), each at every concurrency level, so the reader grows GPUs
per replica only where the latency needs it.

The published forms are compact: ranges as flat [low, high, low, high, ...] lists, three
significant digits (`published`).
"""

from __future__ import annotations

from dataclasses import replace

from recipes_site import kv_cache, plan, speed

SIGNIFICANT = 3


def _round(x: float) -> float:
    return float(f"{x:.{SIGNIFICANT}g}")


class SpeedPlans(plan.RecipePlans):
    """A recipe's `plan.RecipePlans` that also keeps each variant's `speed.ModelShape`."""

    def __init__(self, recipe: dict):
        super().__init__(recipe)
        self._shapes: dict[str, speed.ModelShape | None] = {}

    def shape(self, variant_key: str) -> speed.ModelShape | None:
        # Memo (pays over 2% of a build): every rendering and layout of a variant reads it.
        if variant_key not in self._shapes:
            facts = self.facts(variant_key)
            self._shapes[variant_key] = speed.model_shape(facts.cfg, facts.precision)
        return self._shapes[variant_key]


def model_inputs(
    plans: plan.RecipePlans, variant_key: str, profile: dict
) -> tuple[speed.ModelShape, speed.GpuSpeed] | None:
    """(ModelShape, GpuSpeed) of a recipe's variant on a profile, None without the facts."""
    facts = plans.facts(variant_key)
    if isinstance(plans, SpeedPlans):
        shape = plans.shape(variant_key)
    else:
        shape = speed.model_shape(facts.cfg, facts.precision)
    gpu = speed.gpu_speed(profile, facts.precision)
    if shape is None or gpu is None:
        return None
    return shape, gpu


def plan_layout(p: dict, profile: dict, replicas: int = 1) -> speed.Layout | None:
    """The `speed.Layout` of a (compact) plan that starts on one node: its TP, its DP ranks (and
    `replicas` copies) as replicas, the tokens each rank's KV cache holds. None for a plan that
    cannot start, spans nodes or pipelines."""
    if not plan.holds(p) or p.get("nodes", 1) != 1 or p.get("pp", 1) != 1 or "tp" not in p:
        return None
    dp = p.get("dp", 1)
    return speed.Layout(
        tp=p["tp"],
        replicas=dp * replicas,
        kv_tokens=p.get("max_tokens"),
        kv_bytes_per_token_per_gpu=float(p.get("kv_bytes_per_token_per_gpu") or 0.0),
        max_num_seqs=speed.max_num_seqs(profile),
    )


def published(est: speed.Estimate) -> dict:
    """The compact form of an estimate: concurrency levels, tokens/s per request and in total as
    [low, high] pairs per level, TTFT in ms as [low, high] per prompt of speed.TTFT_PROMPTS."""

    def pairs(ranges) -> list[float]:
        return [_round(v) for pair in ranges for v in pair]

    n = len(est.levels)
    return {
        "c": list(est.levels),
        "user": pairs(est.per_user_range(i) for i in range(n)),
        "total": pairs(est.total_range(i) for i in range(n)),
        "ttft_ms": pairs(
            tuple(t * 1000 for t in est.ttft_range(i)) for i in range(len(speed.TTFT_PROMPTS))
        ),
    }


def rendering_speed(
    plans: plan.RecipePlans, variant_key: str, profile: dict, p: dict
) -> dict | None:
    """The published estimate of a rendering whose plan is `p` (None when the facts or the layout
    give none)."""
    inputs = model_inputs(plans, variant_key, profile)
    layout = plan_layout(p, profile)
    if inputs is None or layout is None:
        return None
    shape, gpu = inputs
    return published(speed.estimate(shape, gpu, layout))


def tp_plan(plans: plan.RecipePlans, variant_key: str, profile: dict, argv, tp: int) -> dict:
    """The plan of the command `argv` run with tensor-parallel size `tp` on one node (DP 1)."""
    read = plans.reading(tuple(argv))
    shape = replace(read.shape, tp=tp, dp=1, pp=1)
    return plan._plan(
        plans, variant_key, profile, plan.Reading(shape, read.spec, read.draft), tp, 1
    )


def layout_estimate(
    plans: plan.RecipePlans, variant_key: str, profile: dict, argv, tp: int, replicas: int = 1
) -> speed.Estimate | None:
    """The estimate of `replicas` copies of the command `argv` at tensor-parallel size `tp`, each
    with the KV cache its own plan gives (None when that plan cannot start or the facts lack)."""
    inputs = model_inputs(plans, variant_key, profile)
    layout = plan_layout(tp_plan(plans, variant_key, profile, argv, tp), profile, replicas)
    if inputs is None or layout is None:
        return None
    shape, gpu = inputs
    return speed.estimate(shape, gpu, layout)


def tp_ladder(cfg: dict | None, per_node: int) -> list[int]:
    """The tensor-parallel sizes one node offers a replica: powers of two up to the node that the
    model's heads accept."""
    sizes, tp = [], 1
    while tp <= per_node:
        if not kv_cache.tp_problem(cfg, tp):
            sizes.append(tp)
        tp *= 2
    return sizes


def node_layouts(plans: plan.RecipePlans, variant_key: str, profile: dict, argv) -> dict | None:
    """One big instance or many small replicas, on one node of `profile`, for the command `argv`:

        {"min_gpus": smallest TP that starts, "replicas_per_node": node // min_gpus,
         "layouts": [{"tp", "replicas", **published estimate}, ...]}   smallest TP first

    every TP from the smallest that starts to the node's GPUs, each filling the node with
    replicas; None when no TP of one node starts the command or the facts give no estimate."""
    per_node = int(profile.get("gpu_count") or 1)
    inputs = model_inputs(plans, variant_key, profile)
    if inputs is None:
        return None
    out: list[dict] = []
    for tp in tp_ladder(plans.facts(variant_key).cfg, per_node):
        replicas = per_node // tp
        layout = plan_layout(tp_plan(plans, variant_key, profile, argv, tp), profile, replicas)
        if layout is None:
            continue  # this TP does not start the command; a wider one may
        out.append({"tp": tp, "replicas": replicas, **published(speed.estimate(*inputs, layout))})
    if not out:
        return None
    return {
        "min_gpus": out[0]["tp"],
        "replicas_per_node": out[0]["replicas"],
        "layouts": out,
    }


def best_at(layouts: list[dict], key: str) -> list[int]:
    """Per concurrency level of the first layout, the TP of the layout with the highest `key`
    ("user" or "total") range midpoint: where latency or throughput wants more GPUs per replica."""
    out = []
    for i, _ in enumerate(layouts[0]["c"][: len(speed.LEVELS)]):
        best = max(layouts, key=lambda lay: lay[key][2 * i] + lay[key][2 * i + 1])
        out.append(best["tp"])
    return out
