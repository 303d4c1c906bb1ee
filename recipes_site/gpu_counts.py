"""Any GPU count: the layout of a single-node command on the N GPUs a reader has.

A reader with N GPUs of a profile (1, 2, 4, 8 ... up to what one node holds: `gpu_counts`) runs
the rendered command at the smallest tensor-parallel size that fits (`fit.py`'s budget, through
`plan.py`, the sizes the attention heads allow: `kv_cache.tp_problem`), and fills the rest with
replicas of it (`plan.replica_parts`): N // TP copies, each on its own GPUs and port.

A layout is the rendered command with two edits, so the page and the API carry only them:

- its `--tensor-parallel-size` line names the layout's size;
- the lines the engine's KV-cache sizing appended (`fit.engine_sizing`: a `--max-model-len`,
  maybe `--gpu-memory-utilization 0.95`) are replaced by the sizing of the layout's own TP.

Only single-node commands of one tensor-parallel process (no PP, DP, EP or kv-store) have
layouts: the other strategies lay out the whole node on purpose. The rendering itself, as the
recipe recommends it, stays what the page shows until the reader picks a count.
"""

from __future__ import annotations

from typing import NamedTuple

from recipes_site import fit, plan, sizing
from recipes_site.errors import ChoiceError
from recipes_site.kv_cache import tp_problem
from recipes_site.synthesis.shell import SEP

TP_FLAG = "--tensor-parallel-size"
TP_LINE = TP_FLAG + " {tp}"  # the page fills {tp} from a layout's tensor_parallel_size


def gpu_counts(profile: dict) -> list[int]:
    """The GPU counts a reader may pick on a profile: 1, 2, 4 ... below its node's GPUs, and the
    node's GPUs; none for a one-GPU profile (nothing to choose)."""
    per_node = int(profile.get("gpu_count") or 1)
    if per_node <= 1:
        return []
    out, count = [], 1
    while count < per_node:
        out.append(count)
        count *= 2
    return out + [per_node]


def tp_sizes(cfg: dict | None, gpus: int) -> list[int]:
    """Tensor-parallel sizes a layout on `gpus` GPUs tries, smallest first: the powers of two up to
    `gpus` and `gpus` itself, those the model's heads allow (vLLM refuses the others at startup)."""
    sizes, size = [], 1
    while size <= gpus:
        sizes.append(size)
        size *= 2
    if sizes[-1] != gpus:
        sizes.append(gpus)
    return [t for t in sizes if tp_problem(cfg, t) is None]


class Base(NamedTuple):
    """What every layout of a rendering starts from: its argv without the engine's sizing lines
    (`argv`), where its TP line sits among the argument lines the page assembles (`tp_at`: from
    the start, or negative from the end), how many lines the engine appended (`tail`), and the
    `--speculative-config` values a reader can switch on (the engine sizes for them too)."""

    argv: tuple
    tp_at: int
    tail: int
    drafts: tuple


def drafts_of(plans: plan.RecipePlans, choices) -> tuple:
    """The `--speculative-config` values of the feature choices of a rendering (every mode): the
    drafts the engine sizes a command for (deployments.speculative_options, from the same lines)."""
    found = []
    for c in choices:
        for lines in [m.lines for m in c.modes] if c.modes else [c.lines or ()]:
            for line in lines:
                try:
                    tokens = plans.tokens(line)
                except ValueError:
                    continue
                found += [
                    tokens[i + 1] for i, t in enumerate(tokens[:-1]) if t == "--speculative-config"
                ]
    return tuple(found)


def layout_base(rendering, drafts: tuple = ()) -> Base | None:
    """The `Base` of a rendering, None when it has no GPU-count layouts: not one tensor-parallel
    process on one node, or its TP flag is not a line of its own outside the feature block."""
    proc = rendering.single
    if proc is None or rendering.node_count != 1 or rendering.kv is not None:
        return None
    argv = tuple(proc.argv)
    shape = fit.shape_from_argv(argv)
    if shape.pp != 1 or shape.dp != 1 or shape.expert_parallel or argv.count(TP_FLAG) != 1:
        return None
    # the engine's lines (fit.engine_sizing) close the command, one note each ("--flag value: ...")
    tail = sum(1 for note in proc.notes if note.startswith("--"))
    flags = [note.split(" ", 1)[0] for note in proc.notes if note.startswith("--")]
    if tail and (
        len(proc.lines_after) < tail
        or [line.split(" ", 1)[0] for line in proc.lines_after[-tail:]] != flags
    ):
        return None
    line = f"{TP_FLAG} {argv[argv.index(TP_FLAG) + 1]}"
    if line in proc.lines_before:
        tp_at = proc.lines_before.index(line)
    elif line in proc.lines_after[: len(proc.lines_after) - tail]:
        tp_at = proc.lines_after.index(line) - len(proc.lines_after)
    else:
        return None
    return Base(argv[: len(argv) - 2 * tail], tp_at, tail, drafts)


class Layout(NamedTuple):
    """One GPU count's layout: `tp` and `replicas` (None and 0 when no TP fits), the plan of one
    replica, the lines that replace the engine's (`lines`), the argv of one replica (`argv`) and
    why it fits or not."""

    gpus: int
    tp: int | None
    replicas: int
    plan: dict | None
    lines: tuple
    reason: str
    argv: tuple = ()
    needs: int | None = None  # a layout that does not fit: the smallest count that does

    @property
    def fits(self) -> bool:
        return self.tp is not None

    @property
    def max_model_len(self) -> int | None:
        found = fit.shape_from_argv(tuple(" ".join(self.lines).split())).max_model_len
        return found


class Trial(NamedTuple):
    tp: int
    plan: dict
    lines: tuple
    argv: tuple


def _trial(plans: plan.RecipePlans, rendering, profile: dict, base: Base, tp: int) -> Trial:
    """The command of `base` at TP `tp`, sized by the engine as synthesis sizes every command, and
    its plan on `tp` GPUs."""
    argv = list(base.argv)
    argv[argv.index(TP_FLAG) + 1] = str(tp)
    bare = plan.plan_of(plans, rendering.variant, profile, argv, gpus=tp, nodes=1)
    # a TP vLLM refuses is not sized (the engine's sizing may raise --gpu-memory-utilization to
    # make weights fit, but never changes the TP)
    if bare.get("verdict") == plan.REFUSED or fit.hf_config_of(plans.recipe) is None:
        return Trial(tp, bare, (), tuple(argv))
    sized = fit.engine_sizing(
        plans.recipe, rendering.variant, rendering.hardware, profile, argv[3:], base.drafts
    )
    if not sized.args:
        return Trial(tp, bare, (), tuple(argv))
    full = tuple(argv) + tuple(sized.args)
    lines = tuple(f"{a} {b}" for a, b in zip(sized.args[::2], sized.args[1::2]))
    return Trial(
        tp, plan.plan_of(plans, rendering.variant, profile, full, gpus=tp, nodes=1), lines, full
    )


def layouts(
    plans: plan.RecipePlans, rendering, profile: dict, base: Base, counts: list[int]
) -> dict[int, Layout]:
    """The layout of `rendering` for each GPU count of `counts` (each at most a node's GPUs)."""
    cfg = plans.facts(rendering.variant).cfg
    per_node = int(profile.get("gpu_count") or 1)
    trials: dict[int, Trial] = {}

    def trial(tp: int) -> Trial:
        if tp not in trials:
            trials[tp] = _trial(plans, rendering, profile, base, tp)
        return trials[tp]

    def fitting(gpus: int) -> Trial | None:
        return next((t for t in map(trial, tp_sizes(cfg, gpus)) if plan.holds(t.plan)), None)

    name = sizing.gpu_label(profile, rendering.hardware)
    vram = round(sizing.per_gpu_gib(profile), 1)
    out = {}
    for gpus in counts:
        found = fitting(gpus)
        if found is not None:
            reason = plan.expand(found.plan, name, vram)["reason"]
            out[gpus] = Layout(
                gpus, found.tp, gpus // found.tp, found.plan, found.lines, reason, found.argv
            )
            continue
        sizes = tp_sizes(cfg, gpus)
        tried = trial(sizes[-1]) if sizes else None
        why = (
            _short_reason(tried.plan, name) if tried else "no tensor-parallel size the heads allow"
        )
        # the smallest count that holds it: the smallest larger TP of the node's sizes that fits
        more = next(
            (t for t in tp_sizes(cfg, per_node) if t > gpus and plan.holds(trial(t).plan)), None
        )
        head = f"needs {more} GPUs" if more else f"does not fit one {per_node}-GPU node"
        out[gpus] = Layout(
            gpus, None, 0, tried.plan if tried else None, (), f"{head}: {why}", needs=more
        )
    return out


def _short_reason(p: dict, name: str) -> str:
    """Why a plan cannot start, in a few words: "weights 140.0 GiB > 2 x 72.0 GiB"."""
    verdict, tp = p.get("verdict"), p["tp"]
    budget = f"{tp} x {p['budget_gib_per_gpu']:.1f} GiB"
    if verdict == plan.REFUSED:
        return str(p.get("refusal"))
    if verdict == plan.OVER:
        return f"weights {p['weights_gib']:.1f} GiB > {budget} of {name} budget"
    if verdict == plan.NO_KV:
        return f"weights and overhead leave no KV cache in {budget} of {name} budget"
    return (
        f"not one {p.get('context_length') or 1024:,}-token request fits the KV cache of {budget}"
    )


def layout_json(layout: Layout) -> dict:
    """What the API publishes of a layout (compact: `lines` and `max_model_len` only when it sets
    them; `reason` says why it fits, or why not)."""
    out: dict = {
        "tensor_parallel_size": layout.tp,
        "replicas": layout.replicas,
        "fits": layout.fits,
    }
    if layout.lines:
        out["lines"] = list(layout.lines)
    if layout.max_model_len is not None:
        out["max_model_len"] = layout.max_model_len
    out["reason"] = layout.reason
    return out


def rendering_layouts(
    plans: plan.RecipePlans, rendering, profile: dict, drafts: tuple = (), with_templates=True
) -> dict | None:
    """A hardware document's `gpus` member of a rendering: where the page edits the command (`tp_at`,
    `tail`) and the layout of every count of `gpu_counts(profile)`; with the replica templates
    (`plan.replica_templates`) when some count runs replicas and `with_templates` (the rendering's
    own `plan.replicas` carries the same ones otherwise). None when it has no layouts."""
    counts = gpu_counts(profile)
    base = layout_base(rendering, drafts) if counts else None
    if base is None:
        return None
    found = layouts(plans, rendering, profile, base, counts)
    out: dict = {"tp_at": base.tp_at, "tail": base.tail}
    out["counts"] = {str(n): layout_json(x) for n, x in found.items()}
    if with_templates and any(x.replicas > 1 for x in found.values()):
        out.update(plan.replica_templates(rendering.single))
    return out


def replica_sets(profile: dict) -> dict[str, list[dict]]:
    """Per TP size of the profile's counts, the replicas that fill its node (`plan.replica_list`):
    a layout of R replicas at TP t runs the first R of set t. Once per hardware document."""
    per_node = int(profile.get("gpu_count") or 1)
    return {
        str(t): plan.replica_list(t, per_node // t)
        for t in gpu_counts(profile)
        if per_node // t > 1
    }


# -- the assembly rule (site.js `layoutLines` does the same) ----------------------------------------


def layout_lines(lines: list[str], gpus: dict, count: int) -> list[str]:
    """The argument lines of a command (as the page assembles them) in the layout of `count` GPUs:
    the TP line set to the layout's size, the engine's last `tail` lines swapped for its own."""
    layout = gpus["counts"][str(count)]
    out = list(lines)
    at = gpus["tp_at"] if gpus["tp_at"] >= 0 else len(out) + gpus["tp_at"]
    out[at] = TP_LINE.replace("{tp}", str(layout["tensor_parallel_size"]))
    return out[: len(out) - gpus["tail"]] + list(layout.get("lines", ()))


def layout_command(command: str, gpus: dict, count: int) -> str:
    """A serve command in the layout of `count` GPUs."""
    head, *lines = command.split(SEP)
    return SEP.join([head, *layout_lines(lines, gpus, count)])


def layout_docker_command(docker_command: str, command: str, gpus: dict, count: int) -> str:
    """The docker form of `layout_command`: the docker head before the command's argument lines."""
    n_args = len(command.split(SEP)) - 1
    docker = docker_command.split(SEP)
    head = docker[: len(docker) - n_args]
    return SEP.join(head + layout_lines(docker[len(head) :], gpus, count))


def smallest_fitting(found: dict[int, Layout]) -> int | None:
    """The smallest count whose layout fits."""
    return next((n for n in sorted(found) if found[n].fits), None)


def choose(plans: plan.RecipePlans, rendering, profile: dict, gpus: int, drafts: tuple = ()):
    """The layout of `rendering` on `gpus` GPUs a person asked for (`--gpus`), with the `gpus`
    member of its rendering JSON for that one count; raises ChoiceError saying why not, in words:
    more GPUs than a node holds, a command that is not one tensor-parallel process, or a count
    that cannot hold the model (with the smallest count that can)."""
    per_node = int(profile.get("gpu_count") or 1)
    hw = rendering.hardware
    if gpus > per_node:
        raise ChoiceError(
            f"--gpus {gpus}: one {hw} node holds {per_node} GPU{'s' if per_node > 1 else ''}"
        )
    base = layout_base(rendering, drafts)
    if base is None:
        raise ChoiceError(
            f"--gpus applies to single-node tensor-parallel commands; the {rendering.strategy} "
            f"command on {hw} lays out its GPUs itself (try --strategy single_node_tp)"
        )
    layout = layouts(plans, rendering, profile, base, [gpus])[gpus]
    if not layout.fits:
        hint = f"; try --gpus {layout.needs}" if layout.needs else ""
        raise ChoiceError(f"--gpus {gpus} cannot hold this model on {hw}: {layout.reason}{hint}")
    member = {"tp_at": base.tp_at, "tail": base.tail, "counts": {str(gpus): layout_json(layout)}}
    return layout, member
