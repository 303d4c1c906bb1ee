"""`recipes-site fit`: the memory fit and plan of the rendering `recipes-site command` prints
for one choice, and their text form.

Above synthesis and plan.py: it renders the choice (synthesis.render_choice) and plans the command
shown; the memory arithmetic it reports is fit.py's.
"""

from __future__ import annotations

from dataclasses import replace

from recipes_site import fit, gpu_counts, kv_cache, plan, sizing, speed, speed_layouts
from recipes_site.fit import (
    FitResult,
    fit_deployment,
    hf_config_of,
    memory_process,
    shape_from_argv,
)
from recipes_site.synthesis import render_choice
from recipes_site.synthesis.choices import feature_choices


def _strip_hf_config(recipe: dict) -> dict:
    out = dict(recipe)
    out["model"] = {k: v for k, v in (recipe.get("model") or {}).items() if k != "hf_config"}
    return out


def fit_choice(
    ctx,
    recipe: dict,
    variant_key: str = "default",
    hw_id: str | None = None,
    strategy_id: str | None = None,
    nodes: int | None = None,
    *,
    tp: int | None = None,
    max_model_len: int | None = None,
    concurrency: int | None = None,
    kv_cache_dtype: str | None = None,
    gpu_memory_utilization: float | None = None,
    with_plan: bool = True,
    gpus: int | None = None,
) -> FitResult:
    """Fit of the rendering `recipes-site command` would print for this choice (raises
    synthesis.ChoiceError for a choice the recipe does not offer).

    The recipe's own command (before the engine's adjustments) decides TP, PP, DP, the KV dtype and
    the memory utilization; `tp`, `kv_cache_dtype` and `gpu_memory_utilization` override them.
    `gpus`: the layout of the command on that many GPUs (gpu_counts.py), whose argv decides all."""
    # the recipe's own command decides the shape; the engine's rendering, the TP (and the default
    # node count of a multi-node strategy) it really uses
    cfg = hf_config_of(recipe)
    engine_rendering = (
        render_choice(ctx, recipe, variant_key, hw_id, strategy_id, nodes)
        if cfg is not None
        else None
    )
    if (
        nodes is None
        and engine_rendering is not None
        and engine_rendering.deploy_type == "multi_node"
    ):
        nodes = engine_rendering.node_count
    rendering = render_choice(ctx, _strip_hf_config(recipe), variant_key, hw_id, strategy_id, nodes)
    proc = memory_process(rendering)
    shape = shape_from_argv(proc.argv if proc else ())
    notes = []
    layout = None
    if gpus is not None:
        layout, member = gpu_layout(ctx, recipe, engine_rendering or rendering, gpus)
        shape = shape_from_argv(layout.argv)
        notes.append(
            f"--gpus {gpus}: {layout.replicas} cop{'y' if layout.replicas == 1 else 'ies'} "
            f"of the command at TP {layout.tp}"
        )
    elif tp is not None:
        shape = replace(shape, tp=tp)
    elif cfg is not None:
        engine = memory_process(engine_rendering)
        rendered_tp = shape_from_argv(engine.argv if engine else ()).tp
        if rendered_tp != shape.tp:
            notes.append(
                f"{kv_cache.tp_problem(cfg, shape.tp)}: the engine renders TP {rendered_tp}"
            )
            shape = replace(shape, tp=rendered_tp)
        # the engine's own --max-model-len and --gpu-memory-utilization (fit.engine_sizing) are
        # the length and budget the command serves with
        engine_argv = tuple(engine.argv) if engine else ()
        engine_shape = shape_from_argv(engine_argv)
        if "--gpu-memory-utilization" in engine_argv:
            shape = replace(shape, gpu_memory_utilization=engine_shape.gpu_memory_utilization)
        engine_len = engine_shape.max_model_len
        if shape.max_model_len is None and engine_len is not None:
            shape = replace(shape, max_model_len=engine_len)
            if (
                not shape.speculative
                and fit.recipe_speculatives(recipe)
                and "--gpu-memory-utilization" not in engine_argv
            ):
                notes.append(
                    f"the engine renders --max-model-len {engine_len}: room for the KV cache of "
                    "the recipe's speculative-decoding draft, which the page can switch on"
                )
    if kv_cache_dtype is not None:
        shape = replace(shape, kv_cache_dtype=kv_cache_dtype)
    if gpu_memory_utilization is not None:
        shape = replace(shape, gpu_memory_utilization=gpu_memory_utilization)
    profile = ctx.profiles.get(rendering.hardware) or {}
    result = fit_deployment(
        recipe,
        rendering.variant,
        rendering.hardware,
        profile,
        shape,
        evaluate_len=max_model_len,
        concurrency=concurrency,
    )
    result.notes = notes + result.notes
    result.strategy, result.nodes = rendering.strategy, rendering.node_count
    if result.kv_bytes_per_token is None:
        computed, declared = sizing.variant_weights_gb(
            recipe, (recipe.get("variants") or {}).get(rendering.variant) or {}
        )
        basis = declared or computed
        weights = sizing.fit(basis, rendering.hardware, profile) if basis else None
        result.weights_only = weights.as_dict() if weights else None
    if with_plan and layout is not None:
        shown = engine_rendering or rendering
        result.plan = layout.plan
        result.plan_reason = layout.reason
        result.replicas = layout_replicas(shown, layout, member, profile)
    elif with_plan:
        shown = engine_rendering or rendering
        proc = memory_process(shown)
        overrides = [
            *(["--tensor-parallel-size", str(tp)] if tp is not None else []),
            *(["--kv-cache-dtype", kv_cache_dtype] if kv_cache_dtype is not None else []),
            *(
                ["--gpu-memory-utilization", f"{gpu_memory_utilization:g}"]
                if gpu_memory_utilization is not None
                else []
            ),
        ]
        argv = list(proc.argv) + overrides if proc is not None and overrides else None
        plans = speed_layouts.SpeedPlans(recipe)
        result.plan = plan.rendering_plan(plans, shown, profile, argv)
        result.speed = speed_layouts.rendering_speed(plans, shown.variant, profile, result.plan)
        if shown.single is not None and proc is not None:
            result.layouts = speed_layouts.node_layouts(
                plans, shown.variant, profile, argv or proc.argv
            )
        result.plan_reason = plan.expand(
            result.plan,
            sizing.gpu_label(profile, shown.hardware),
            round(sizing.per_gpu_gib(profile), 1),
        )["reason"]
        parts = plan.replica_parts(shown, result.plan, profile) if not overrides else None
        if parts and shown.single is not None:
            result.replicas = [
                {**rep, "command": plan.replica_command(shown.single.command, parts, rep)}
                for rep in parts["replicas"]
            ]
    return result


def gpu_layout(ctx, recipe: dict, rendering, gpus: int):
    """(`gpu_counts.Layout`, the rendering's `gpus` member for that count) of a rendering on the
    `gpus` GPUs a person asked for; raises ChoiceError saying why not (gpu_counts.choose)."""
    profile = ctx.profiles.get(rendering.hardware) or {}
    plans = plan.RecipePlans(recipe)
    choices = feature_choices(
        recipe, ctx.hardware(rendering.hardware), rendering.variant, rendering.feature_strategy
    )
    return gpu_counts.choose(plans, rendering, profile, gpus, gpu_counts.drafts_of(plans, choices))


def layout_replicas(
    rendering, layout, member: dict, profile: dict, docker: bool = False, exports: str = ""
) -> list[dict] | None:
    """The replica commands of a layout that runs more than one copy (None for one copy): each
    copy's GPUs, port and command, joined as the page joins them (plan.replica_command); `member`
    is the rendering's `gpus` member for the layout's count, `exports` the serve form's env lines."""
    proc = rendering.single
    parts = plan.replica_parts(rendering, layout.plan, profile, available=layout.gpus)
    if not parts or proc is None:
        return None
    command = gpu_counts.layout_command(proc.command, member, layout.gpus)
    out = []
    for rep in parts["replicas"]:
        if docker:
            args = "".join(plan.SEP + line for line in command.split(plan.SEP)[1:])
            text = _filled(parts["docker_head"], rep) + args + _filled(parts["suffix"], rep)
        else:
            text = plan.replica_command(exports + command, parts, rep)
        out.append({**rep, "command": text})
    return out


def _filled(text: str, replica: dict) -> str:
    return text.replace("{gpus}", replica["gpus"]).replace("{port}", str(replica["port"]))


# -- text form ------------------------------------------------------------------------------------------


# the plan's verdict in words: every verdict but "fits" is a command that cannot start
VERDICT_WORDS = {
    plan.FITS: "fits",
    plan.OVER: "cannot start",
    plan.NO_KV: "cannot start",
    plan.SHORT: "cannot start",
    plan.REFUSED: "cannot start",
}


def _s(count) -> str:
    return "" if count == 1 else "s"


def _n(value) -> str:
    return "?" if value is None else f"{value:,}"


def fit_text(r: FitResult) -> str:
    s = r.shape
    parallel = (
        f"TP {s.tp}"
        + (f" x PP {s.pp}" if s.pp > 1 else "")
        + (f" x DP {s.dp}" if s.dp > 1 else "")
        + (" + EP" if s.expert_parallel else "")
        + (f", DCP {s.dcp}" if s.dcp > 1 else "")
    )
    lines = [
        f"{r.model} · {r.variant} ({r.precision}) · {r.hardware} · {r.strategy} · {r.nodes} node"
        f"{'s' if r.nodes > 1 else ''} · {parallel}"
    ]
    if r.kv_bytes_per_token is not None:
        dtype = "fp8" if r.kv_dtype_bytes == 1 else "16-bit"
        window = (
            f" + {r.kv_bytes_per_sequence_window:,} B per sequence in windowed layers"
            if r.kv_bytes_per_sequence_window
            else ""
        )
        lines.append(
            f"  KV cache per token     {r.kv_bytes_per_token:,} B ({(r.attention or '?').upper()}, {dtype} KV){window}; "
            f"{r.kv_bytes_per_token_per_gpu:,.0f} B per GPU"
        )
    w = "?" if r.weights_gib_per_gpu is None else f"{r.weights_gib_per_gpu:.1f}"
    kv = "?" if r.kv_cache_gib_per_gpu is None else f"{r.kv_cache_gib_per_gpu:.1f}"
    total = r.memory_total_gib or r.vram_per_gpu_gib
    seen = (
        f"{total:.2f} GiB reported ({r.vram_per_gpu_gib:g} GiB nominal)"
        if abs(total - r.vram_per_gpu_gib) > 0.005
        else f"{r.vram_per_gpu_gib:g} GiB"
    )
    lines.append(
        f"  memory per GPU         {seen} x {s.gpu_memory_utilization:g} = "
        f"{r.budget_gib_per_gpu:.1f} GiB: weights {w} + overhead {r.overhead.total_gib:.1f} + KV cache {kv} GiB"
    )
    o = r.overhead
    parts = [
        *([f"weight padding {o.weights_padding_gib:.1f}"] if o.weights_padding_gib else []),
        *([f"MoE workspace {o.moe_workspace_gib:.1f}"] if o.moe_workspace_gib else []),
        f"peak activations {o.peak_gib:.1f} (forward {o.max_num_batched_tokens:,} tokens "
        f"{o.activations_gib:.1f}, sampler {min(o.max_num_batched_tokens, o.max_num_seqs):,} rows "
        f"{o.sampler_gib:.1f})",
        f"CUDA graphs {o.cuda_graphs_gib:.1f}",
        f"non-torch {o.non_torch_gib:.2f}",
    ]
    lines.append("  overhead               " + " + ".join(parts) + " GiB")
    if r.kv_bytes_per_token is not None and r.kv_cache_gib_per_gpu is not None:
        where = " per DP rank" if s.dp > 1 else ""
        lines.append(f"  KV cache holds         {_n(r.max_tokens)} tokens{where}")
        fits = "fits" if r.context_fits else "does NOT fit one request"
        if r.plan and r.plan.get("verdict") == plan.REFUSED:
            fits = f"cannot start: {r.plan.get('refusal')} (the KV cache alone would hold it)"
        lines.append(f"  recipe context         {_n(r.context_length)} tokens: {fits}")
        lines.append(
            f"  longest request        {_n(r.max_model_len)} tokens (safe --max-model-len {_n(r.safe_max_model_len)})"
        )
        if r.evaluated_len:
            lines.append(
                f"  concurrency            {_n(r.max_concurrency)} request{_s(r.max_concurrency)} of "
                f"{r.evaluated_len:,} tokens at once"
            )
        if r.concurrency:
            lines.append(
                f"  {r.concurrency} concurrent requests   up to {_n(r.max_model_len_at_concurrency)} tokens each"
            )
    if r.missing_facts:
        lines.append("  missing facts          " + "; ".join(r.missing_facts))
    if r.weights_only:
        wo = r.weights_only
        lines.append(
            f"  weights-only sizing    {wo['weights_gb']} GB: {wo['min_gpus']} GPU{_s(wo['min_gpus'])}, smallest TP "
            f"{wo['tensor_parallel']}, {wo['replicas_per_node']} replica{_s(wo['replicas_per_node'])} per node"
        )
    for note in r.notes:
        lines.append(f"  note: {note}")
    if r.plan:
        p, nodes = r.plan, r.plan.get("nodes", 1)
        layout = (
            f"TP {p['tp']}"
            + (f" x PP {p['pp']}" if p.get("pp", 1) > 1 else "")
            + (f" x DP {p['dp']}" if p.get("dp", 1) > 1 else "")
        )
        lines.append(
            f"plan: {p['gpus']} GPU{_s(p['gpus'])} on {nodes} node{_s(nodes)}, {layout}: "
            f"{VERDICT_WORDS.get(p.get('verdict') or '', 'unknown')}. {r.plan_reason}"
        )
        for i, c in enumerate(r.replicas or [], 1):
            lines.append(f"# copy {i}: {c['label']}, port {c['port']}")
            lines.append(c["command"])
    lines += speed_text(r.speed, r.layouts)
    return "\n".join(lines)


# -- the speed estimate --------------------------------------------------------------------------


def _num(value: float) -> str:
    """Three significant digits, thousands separated: 1,230 not 1.23e+03."""
    return f"{round(value):,}" if value >= 100 else f"{value:.3g}"


def _range(values: list, i: int, unit: str = "") -> str:
    return f"{_num(values[2 * i])}-{_num(values[2 * i + 1])}{unit}"


def speed_text(estimate: dict | None, layouts: dict | None) -> list[str]:
    """The speed lines of `fit`: the command's estimate over concurrency, then one big instance or
    many small replicas on one node (speed_layouts)."""
    if estimate is None and layouts is None:
        return []
    cal = speed.CALIBRATION
    lines = [
        f"speed (estimate: a roofline calibrated on {cal.points} public measurements, median error "
        f"{cal.median_error:.0%}, worst {cal.worst_error:.0%}; requests of "
        f"{speed.PROMPT_TOKENS:,} + {speed.OUTPUT_TOKENS:,} tokens)"
    ]
    if estimate is not None:
        levels = estimate["c"]
        head = [f"{c:,}" for c in levels[: len(speed.LEVELS)]]
        if len(levels) > len(speed.LEVELS):
            head.append(f"{levels[-1]:,} (most the KV cache holds)")
        lines.append("  concurrency            " + " | ".join(head))
        lines.append(
            "  tokens/s per request   "
            + " | ".join(_range(estimate["user"], i) for i in range(len(levels)))
        )
        lines.append(
            "  tokens/s in total      "
            + " | ".join(_range(estimate["total"], i) for i in range(len(levels)))
        )
        lines.append(
            "  time to first token    "
            + ", ".join(
                f"{p:,}-token prompt {_range(estimate['ttft_ms'], i, ' ms')}"
                for i, p in enumerate(speed.TTFT_PROMPTS)
            )
        )
    if layouts is not None and len(layouts["layouts"]) > 1:
        found = layouts["layouts"]
        per_node = found[0]["tp"] * found[0]["replicas"]
        lines.append(
            f"one instance or replicas: the smallest layout that starts is {layouts['min_gpus']} GPU"
            f"{_s(layouts['min_gpus'])}, {layouts['replicas_per_node']} replica"
            f"{_s(layouts['replicas_per_node'])} fill a node of {per_node}"
        )
        at = [speed.LEVELS.index(c) for c in (1, 128)]
        lines.append("  layout           per request at 1 | at 128   in total at 128   TTFT 1k")
        for lay in found:
            name = f"{lay['replicas']} x TP {lay['tp']}"
            lines.append(
                f"  {name:<16} {_range(lay['user'], at[0]):>16} | {_range(lay['user'], at[1]):<9}"
                f"  {_range(lay['total'], at[1]):>15}   {_range(lay['ttft_ms'], 0, ' ms')}"
            )
        latency = speed_layouts.best_at(found, "user")
        throughput = speed_layouts.best_at(found, "total")
        lines.append(
            "  fastest per request at concurrency "
            + ", ".join(f"{c}: TP {tp}" for c, tp in zip(speed.LEVELS, latency, strict=True))
            + "; most in total: "
            + ", ".join(f"{c}: TP {tp}" for c, tp in zip(speed.LEVELS, throughput, strict=True))
        )
    return lines
