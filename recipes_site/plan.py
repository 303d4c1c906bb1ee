"""One plan per rendering: what the command shown really asks of the machine.

Every figure the model page (header, memory panel, throughput plan), the API hardware documents
and `recipes-site fit` print about a command comes from `rendering_plan`, computed from that
command's own argv (TP, PP, DP, EP, `--kv-cache-dtype`, `--max-model-len`,
`--gpu-memory-utilization`, `--speculative-config`) and the checkpoint it serves. Nothing else
decides a number shown beside a command, so the figures cannot contradict it.

A plan is a few numbers, all memory in GiB (as vLLM logs it); what is 1, false or unknown is
left out of the published form and `expand` puts it back, with the reason in words:

    gpus, nodes           GPUs and nodes every process of the deployment occupies
    tp, pp, dp, ep        the parallel layout of the process the memory figures describe
                          (the decode pool of a disaggregated deployment, else the main process)
    budget_gib_per_gpu    VRAM x --gpu-memory-utilization
    weights_gib           the whole checkpoint (plus a draft model's, estimated)
    weights_gib_per_gpu   what one GPU holds of it
    overhead_gib_per_gpu  fit.overhead; the KV cache is what budget - weights - overhead leaves:
    kv_cache_bytes_per_gpu
    max_tokens, context_length, concurrency
                          tokens the KV cache holds, the longest request the command serves (its
                          own --max-model-len, else the recipe's context) and how many such fit
    kv_bytes_per_token_per_gpu, block_size, kv_bytes_per_block_per_gpu, null_block_bytes,
    windows_per_gpu, prefill_chunk
                          the inputs of the page formulas (fit.panel_entry) for other lengths
    verdict               "fits", or why the command cannot start: "over" (the weights exceed the
                          budget), "no_kv" (no room left for a KV cache), "short" (one request of
                          the served length does not fit; vLLM refuses to start), "refused" (vLLM
                          refuses the TP size at startup, `kv_cache.tp_problem`; `refusal` says why)

Feature toggles that change memory (a draft model, a KV dtype, a context length) get their own
plan: `rendering_plans` enumerates those states, keyed the way the page names a feature set, so
the page only looks a plan up. Replica commands of the throughput plan are the shown command
pinned to its own GPUs and port (`replica_parts`): no re-rendering, so the cost stays linear in
the renderings.

The plans of one recipe share a `RecipePlans` (render/api.py makes one per recipe and drops it with
the recipe): the recipe, and what every plan of it reads alike.
"""

from __future__ import annotations

import itertools
import json
import math
import shlex
from decimal import ROUND_HALF_UP, Decimal
from typing import NamedTuple

from recipes_site import fit, sizing
from recipes_site.synthesis.shell import SEP  # between the lines of a rendered command

GIB = fit.GIB
FITS, OVER, NO_KV, SHORT, REFUSED = "fits", "over", "no_kv", "short", "refused"
MAX_FEATURE_STATES = 32

# flags whose value changes what a GPU holds; a feature setting one gets its own plan
MEMORY_FLAGS = (
    frozenset(fit.SHAPE_FLAGS)
    | frozenset(fit.SHAPE_SWITCHES)
    | {
        "--speculative-config",
        "--language-model-only",
        "--limit-mm-per-prompt",
        "--cpu-offload-gb",
        "--quantization",
        "-q",
        "--kv-offloading-size",
    }
)

# EAGLE / EAGLE-3 drafts that load their own checkpoint (`"model"` in --speculative-config)
DRAFT_METHODS = frozenset({"eagle", "eagle3"})


class Reading(NamedTuple):
    """What a plan reads of an argv: its shape, its --speculative-config (`speculative_config`) and
    the draft checkpoint that loads (`_draft`)."""

    shape: fit.Shape
    spec: dict | None
    draft: tuple | None


class RecipePlans:
    """What the plans of one recipe's renderings share: the recipe, the facts a fit reads of each
    variant whatever the hardware and the command (`fit.model_facts`), and what the plans read of
    the commands, which recur on every hardware the recipe renders for."""

    def __init__(self, recipe: dict):
        self.recipe = recipe
        self._facts: dict[str, fit.ModelFacts] = {}
        self._tokens: dict[str, tuple] = {}
        self._readings: dict[tuple, Reading] = {}
        self._states: dict[tuple, tuple | None] = {}

    def facts(self, variant_key: str) -> fit.ModelFacts:
        """`fit.model_facts` of a variant of the recipe."""
        # Memo (pays over 2% of a compat build): every plan of the variant reads them.
        found = self._facts.get(variant_key)
        if found is None:
            found = self._facts[variant_key] = fit.model_facts(self.recipe, variant_key)
        return found

    def tokens(self, line: str) -> tuple:
        """The argv tokens of one command line, shell-quoted as synthesis writes it (raises
        ValueError for a line that is not shell-quoted text)."""
        # Memo (pays over 2% of a compat build): the lines of a recipe's commands and feature
        # blocks recur in every rendering and feature state of it, and shlex reads them character
        # by character.
        found = self._tokens.get(line)
        if found is None:
            found = self._tokens[line] = tuple(shlex.split(line))
        return found

    def reading(self, argv: tuple) -> Reading:
        """The `Reading` of an argv."""
        # Memo (pays over 2% of a compat build): a rendering's argv and those of its feature states
        # recur on every hardware of the recipe, and reading one goes through each of its tokens.
        found = self._readings.get(argv)
        if found is None:
            spec = speculative_config(argv)
            found = self._readings[argv] = Reading(fit.shape_from_argv(argv), spec, _draft(spec))
        return found

    def states(self, proc, choices: tuple) -> tuple | None:
        """`feature_states` of a process and feature choices."""
        # Memo (pays over 2% of a compat build): a rendering re-labelled for other hardware has the
        # same process and, on most profiles, the same choices.
        key = (proc.argv, proc.command, proc.lines_before, proc.lines_after, choices)
        if key not in self._states:
            self._states[key] = feature_states(self, proc, choices)
        return self._states[key]


# -- the draft model of --speculative-config -----------------------------------------------------


speculative_config = fit.speculative_config


def draft_weights_bytes(cfg: dict | None, spec: dict | None) -> float:
    """Bytes of an EAGLE/EAGLE-3 draft head in bf16, estimated from the target's shapes.

    The head is one Llama decoder layer (attention `h x (2h + 2 x kv_heads x head_dim)`, MLP
    `3 x h x intermediate_size`), EAGLE-3's input projection from three hidden states
    (`3h x h`, vllm/model_executor/models/llama_eagle3.py:221-243) and its own LM head
    (`draft_vocab_size x h`, defaulting to the target vocabulary, llama_eagle3.py:312-331).
    MTP heads and n-gram drafting load nothing beyond the checkpoint: 0."""
    if not spec or spec.get("method") not in DRAFT_METHODS or not spec.get("model") or not cfg:
        return 0.0
    h, vocab = cfg.get("hidden_size"), cfg.get("vocab_size")
    if not isinstance(h, int) or not isinstance(vocab, int):
        return 0.0
    heads = cfg.get("num_attention_heads") or max(1, h // 128)
    head_dim = cfg.get("head_dim") or h // heads
    kv_heads = cfg.get("num_key_value_heads") or heads
    ffn = cfg.get("intermediate_size") or 4 * h
    params = h * (2 * h + 2 * kv_heads * head_dim) + 3 * h * ffn + vocab * h
    if spec.get("method") == "eagle3":
        params += 3 * h * h
    return params * 2.0


def _draft(spec: dict | None) -> tuple | None:
    """What a plan reads of a --speculative-config (`draft_weights_bytes`, the published `draft`):
    the method and model of a draft that loads its own checkpoint, else None. The model is keyed by
    its JSON text, so that values equal in Python but published differently (1, 1.0, true) differ."""
    if not spec or spec.get("method") not in DRAFT_METHODS or not spec.get("model"):
        return None
    return spec["method"], json.dumps(spec["model"])


# -- the plan of one process ----------------------------------------------------------------------


def plan_of(
    plans: RecipePlans, variant_key: str, profile: dict, argv, *, gpus: int, nodes: int
) -> dict:
    """The plan of a deployment of the recipe's variant whose memory-deciding process runs `argv`,
    occupying `gpus` GPUs on `nodes` nodes of `profile`."""
    return _plan(plans, variant_key, profile, plans.reading(tuple(argv)), gpus, nodes)


def _plan(
    plans: RecipePlans, variant_key: str, profile: dict, read: Reading, gpus: int, nodes: int
) -> dict:
    """`plan_of` of an argv read as `read`."""
    facts = plans.facts(variant_key)
    split = fit.memory_split(facts, sizing.per_gpu_gib(profile), read.shape, profile=profile)
    # compact: what is 1, false or unknown is left out (`expand` puts it back)
    return {
        "gpus": gpus,
        **({"nodes": nodes} if nodes != 1 else {}),
        **_figures(facts.cfg, split, read.shape, read.spec),
    }


def _per_node(profile: dict) -> int:
    return int(profile.get("gpu_count") or 1)


def _figures(cfg: dict | None, r: fit.MemorySplit, shape: fit.Shape, spec: dict | None) -> dict:
    """The figures of a plan after its footprint, in the published order, from the memory split `r`
    of its `shape` (see `plan_of`), the recipe's hf_config `cfg` and the command's
    --speculative-config `spec`."""
    draft = draft_weights_bytes(cfg, spec)
    weights = None if r.weights_gb is None else r.weights_gb * 1e9 + draft
    per_gpu = r.weights_gib_per_gpu
    kv = r.kv_cache_gib_per_gpu
    if per_gpu is not None and kv is not None and draft:
        per_gpu += draft / max(1, shape.tp) / GIB  # the draft runs with the target's TP
        kv -= draft / max(1, shape.tp) / GIB
    served = shape.max_model_len or r.context_length
    tokens = longest = concurrency = None
    per_token = (
        None if r.kv_bytes_per_token_per_gpu is None else round(r.kv_bytes_per_token_per_gpu, 3)
    )
    kv_bytes = None if kv is None else max(0, math.floor(kv * GIB))
    windows = [fit.published_window(w) for w in r.windows_per_gpu]
    if per_token is not None and kv_bytes is not None:
        entry = {
            "kv_cache_bytes_per_gpu": kv_bytes,
            "kv_bytes_per_token_per_gpu": per_token,
            "block_size": r.kv_block_size,
            "kv_bytes_per_block_per_gpu": r.kv_bytes_per_block_per_gpu,
            "null_block_bytes": r.kv_groups.block_bytes if r.kv_groups else 0,
            "dp": shape.dp,
            "windows_per_gpu": windows,
            "prefill_chunk": r.prefill_chunk,
            "state_bytes_per_sequence_per_gpu": r.state_bytes_per_sequence_per_gpu,
            "context_length": served,
        }
        tokens = fit.kv_cache_tokens(r, kv_bytes, served)
        if served:
            figures = fit.panel_figures(entry, served, 1)
            concurrency, longest = figures["requests"], figures["longest"]
    budget = r.budget_gib_per_gpu
    refusal = fit.kv_cache.tp_problem(cfg, shape.tp)
    if refusal:
        verdict = REFUSED
    elif per_gpu is None:
        verdict = None
    elif per_gpu > budget:
        verdict = OVER
    elif kv is not None and kv <= 0:
        verdict = NO_KV
    elif longest is not None and served and longest < served:
        verdict = SHORT
    else:
        verdict = FITS
    out: dict = {"tp": shape.tp}
    if shape.pp != 1:
        out["pp"] = shape.pp
    if shape.dp != 1:
        out["dp"] = shape.dp
    if shape.expert_parallel:
        out["ep"] = True
    out["budget_gib_per_gpu"] = round(budget, 2)
    if per_gpu is not None and weights is not None:
        out["weights_gib"], out["weights_gib_per_gpu"] = round(weights / GIB, 2), round(per_gpu, 2)
    out["overhead_gib_per_gpu"] = round(r.overhead.total_gib, 2)
    if kv_bytes is not None:
        out["kv_cache_bytes_per_gpu"] = kv_bytes
    if per_token is not None:
        out.update(kv_bytes_per_token_per_gpu=per_token, max_tokens=tokens)
        if r.kv_block_size != fit.kv_cache.DEFAULT_BLOCK_SIZE:
            out["block_size"] = r.kv_block_size
        out["kv_bytes_per_block_per_gpu"] = r.kv_bytes_per_block_per_gpu
        if r.kv_groups:
            out["null_block_bytes"] = r.kv_groups.block_bytes
        if concurrency is not None:
            out["concurrency"] = concurrency
    if served:
        out["context_length"] = served
    if windows:
        out["windows_per_gpu"] = windows
        out["prefill_chunk"] = r.prefill_chunk
    if r.state_bytes_per_sequence_per_gpu:  # linear-attention / Mamba state, per request
        out["state_bytes_per_sequence_per_gpu"] = r.state_bytes_per_sequence_per_gpu
    if spec and draft:
        out["draft"] = spec.get("model")
    if verdict is not None:
        out["verdict"] = verdict
    if refusal:
        out["refusal"] = refusal
    return out


def _g(x) -> str:
    """One decimal, ties up (as the page's toFixed(1))."""
    return str(Decimal(x).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def reason(p: dict, name: str, vram: float) -> str:
    """Why a plan's verdict is what it is, in one sentence (site.js `planReason` writes the same).
    `p` is an expanded plan, `name` the GPU's display name, `vram` its memory in GiB."""
    v, w, budget = p["verdict"], p["weights_gib_per_gpu"], p["budget_gib_per_gpu"]
    if v == REFUSED:
        return f"{p['refusal']}: vLLM refuses this tensor-parallel size and will not start."
    if v is None:
        return "The variant gives no weight size, so there is no estimate."
    if v == OVER:
        return (
            f"{_g(w)} GiB of weights per GPU exceed the {_g(budget)} GiB budget of each {name}: "
            f"this command cannot load the model."
        )
    if v == NO_KV:
        return (
            f"{_g(w)} GiB of weights and {_g(p['overhead_gib_per_gpu'])} GiB of overhead per GPU leave no room "
            f"for a KV cache in the {_g(budget)} GiB budget of each {name}: vLLM will not start."
        )
    kv = p["kv_cache_gib_per_gpu"]
    if v == SHORT:
        return (
            f"One {p['context_length']:,}-token request needs more than the {_g(kv)} GiB of KV cache per GPU "
            f"left ({p['max_tokens']:,} tokens): vLLM refuses to start; lower --max-model-len."
        )
    gpus = (
        f"{p['gpus']} × {name} ({vram:g} GiB each)"
        if p["gpus"] > 1
        else f"one {name} ({vram:g} GiB)"
    )
    out = f"{_g(p['weights_gib'])} GiB of weights on {gpus}: {_g(w)} GiB per GPU"
    if kv is not None:
        out += f", leaving {_g(kv)} GiB of KV cache per GPU" + (
            f" ({p['max_tokens']:,} tokens)" if p["max_tokens"] else ""
        )
    return out + "."


def expand(p: dict, name: str, vram: float) -> dict:
    """A published plan with what it leaves out put back: defaults, the GPU's memory, the KV cache
    in GiB and the verdict's reason (site.js `expand` does the same)."""
    out = {
        "nodes": 1,
        "pp": 1,
        "dp": 1,
        "ep": False,
        "weights_gib": None,
        "weights_gib_per_gpu": None,
        "kv_cache_bytes_per_gpu": None,
        "kv_bytes_per_token_per_gpu": None,
        "block_size": fit.kv_cache.DEFAULT_BLOCK_SIZE,
        "kv_bytes_per_block_per_gpu": None,
        "null_block_bytes": 0,
        "max_tokens": None,
        "concurrency": None,
        "context_length": None,
        "windows_per_gpu": [],
        "prefill_chunk": 0,
        "verdict": None,
        **p,
        "vram_gib_per_gpu": vram,
    }
    kv = out["kv_cache_bytes_per_gpu"]
    out["kv_cache_gib_per_gpu"] = None if kv is None else kv / GIB
    out["reason"] = reason(out, name, vram)
    return out


def holds(plan: dict) -> bool:
    """Whether the command can start: its weights, overhead and one request fit every GPU."""
    return plan.get("verdict") in (FITS, None)


# -- deployments -----------------------------------------------------------------------------------


def footprint(rendering, profile: dict) -> tuple[int, int]:
    """(GPUs, nodes) every process of the deployment occupies, its main process as rendered."""
    shape = None
    if rendering.prefill is None or rendering.decode is None:
        proc = rendering.main_process
        shape = fit.shape_from_argv(proc.argv if proc else ())
    return _footprint(rendering, _per_node(profile), None if shape is None else shape.gpus)


def _footprint(rendering, per_node: int, shape_gpus: int | None) -> tuple[int, int]:
    """`footprint` given the GPUs per node and those of the main process as shown (`Shape.gpus`;
    not read for a PD deployment, whose pools say what they occupy)."""
    if rendering.prefill is not None and rendering.decode is not None:
        pools = (rendering.prefill, rendering.decode)
        gpus = sum(p.pool_gpus for p in pools)
        # pools on half a node (0 nodes) share one node between them
        nodes = sum(p.nodes for p in pools) + any(p.nodes == 0 for p in pools)
        return gpus, nodes or max(1, math.ceil(gpus / per_node))
    assert shape_gpus is not None  # read for every deployment but a PD one
    if rendering.kv is None:
        return shape_gpus, max(rendering.node_count, math.ceil(shape_gpus / per_node))
    instances = rendering.kv.instances
    return shape_gpus * instances, max(1, instances * math.ceil(shape_gpus / per_node))


def rendering_plan(plans: RecipePlans, rendering, profile: dict, argv=None) -> dict:
    """The plan of a rendering as shown, or with `argv` as its memory process (`fit.memory_process`)
    when given: the command of another feature state."""
    as_rendered = argv is None
    if argv is None:
        proc = fit.memory_process(rendering)
        argv = proc.argv if proc else ()
    return _rendering_plan(plans, rendering, profile, plans.reading(tuple(argv)), as_rendered)


def _rendering_plan(
    plans: RecipePlans, rendering, profile: dict, read: Reading, as_rendered: bool
) -> dict:
    """`rendering_plan` of a memory process read as `read` (`as_rendered`: the rendering's own, not
    a feature state's)."""
    if as_rendered and rendering.decode is not None:
        gpus, nodes = footprint(rendering, profile)
    else:  # the main process is the memory process, or the state's argv decides the GPUs
        gpus, nodes = _footprint(rendering, _per_node(profile), read.shape.gpus)
    return _plan(plans, rendering.variant, profile, read, gpus, nodes)


# -- feature states ---------------------------------------------------------------------------------


def _flags(lines) -> set:
    return {line.split(" ", 1)[0] for line in lines or ()}


def memory_features(choices) -> list:
    """The feature choices whose lines set a flag that changes memory."""
    out = []
    for c in choices:
        groups = [m.lines for m in c.modes] if c.modes else [c.lines]
        if any(_flags(g) & MEMORY_FLAGS for g in groups):
            out.append(c)
    return out


def _states(features) -> list[list[tuple]]:
    """Every combination of the features: each off, or on in one of its modes."""
    options = [[None] + ([(c, m) for m in c.modes] if c.modes else [(c, None)]) for c in features]
    return [[x for x in combo if x is not None] for combo in itertools.product(*options)]


def state_key(state) -> str:
    """The page's name of a feature set (site.js `featureKey`): `name` or `name:mode`, joined by commas."""
    return ",".join(f"{c.name}:{m.name}" if m is not None else c.name for c, m in state)


def _default_state(features) -> list[tuple]:
    out = []
    for c in features:
        if c.modes:
            if c.default not in (False, None):
                mode = next((m for m in c.modes if m.name == c.default), c.modes[0])
                out.append((c, mode))
        elif c.default:
            out.append((c, None))
    return out


def _feature_lines(choices, state) -> tuple:
    """The lines of the feature block with `state`'s features on (in the choices' order)."""
    chosen = {c.name: (c, m) for c, m in state}
    lines = []
    for c in choices:
        if c.name in chosen:
            _, m = chosen[c.name]
            lines += list(m.lines if m is not None else c.lines)
    return tuple(lines)


def _block_tokens(plans: RecipePlans, choices, state) -> tuple | None:
    """The argv tokens of the feature block with `state`'s features on (None when a line is not
    shell-quoted text)."""
    try:
        return _line_tokens(plans, _feature_lines(choices, state))
    except ValueError:
        return None


def _line_tokens(plans: RecipePlans, lines: tuple) -> tuple:
    """The argv tokens of command lines (raises ValueError for a line that is not shell-quoted text)."""
    return tuple(itertools.chain.from_iterable(map(plans.tokens, lines)))


def feature_states(plans: RecipePlans, proc, choices: tuple) -> tuple | None:
    """The feature states of a process whose memory may differ from the rendered one: (names of the
    memory features, ((state key, the state's whole argv), ...)); None when there are none, too
    many, or the command cannot be rebuilt from its lines. A state's argv is the process's own
    lines around the state's feature block, as the page joins them; a state whose block is not
    shell-quoted text is left out."""
    features = memory_features(choices)
    states = _states(features) if features else []
    if not features or len(states) > MAX_FEATURE_STATES:
        return None
    defaults = _default_state(choices)
    default_block = _block_tokens(plans, choices, defaults)
    try:
        head = plans.tokens(proc.command.split(SEP, 1)[0])
        before = _line_tokens(plans, proc.lines_before)
        after = _line_tokens(plans, proc.lines_after)
    except ValueError:
        return None
    if head[:2] != ("vllm", "serve") or default_block is None:
        return None
    argv = tuple(proc.argv)
    rebuilt = head + before + default_block + after
    if rebuilt != argv and (
        fit.shape_from_argv(rebuilt) != fit.shape_from_argv(argv)
        or speculative_config(rebuilt) != speculative_config(argv)
    ):
        return None
    others = [s for s in defaults if s[0] not in features]
    out = []
    for state in states:
        block = _block_tokens(plans, choices, others + state)
        if block is not None:
            out.append((state_key(state), head + before + block + after))
    return tuple(c.name for c in features), tuple(out)


def rendering_plans(plans: RecipePlans, rendering, profile: dict, choices, locked: bool) -> dict:
    """The plan of the rendering as rendered (`default`), and of every other feature state that
    changes memory: `{"default": plan, "keys": [feature names], "by": {state key: plan}}`. The page
    names the selected state of the `keys` features (site.js `featureKey`) and shows `by[key]`,
    else `default`; `by` holds only states whose plan differs (and is left out with `keys` when
    none does), so most renderings carry one plan."""
    proc = fit.memory_process(rendering)
    read = plans.reading(tuple(proc.argv) if proc else ())
    default = _rendering_plan(plans, rendering, profile, read, True)
    out: dict = {"default": default}
    if locked or proc is None:
        return out
    found = plans.states(proc, tuple(choices))
    if found is None:
        return out
    names, states = found
    # A plan reads the shape and the draft (`_draft`) of its argv: a state whose
    # --speculative-config loads no draft checkpoint (MTP, n-gram), or differs only beside the
    # draft's method and model, shows the rendered command's plan.
    by = {}
    for name, state_argv in states:
        state = plans.reading(state_argv)
        if (state.shape, state.draft) != (read.shape, read.draft):
            p = _rendering_plan(plans, rendering, profile, state, False)
            if p != default:
                by[name] = p
    if by:
        out["keys"], out["by"] = list(names), by
    return out


def plan_json(plans: RecipePlans, rendering, profile: dict, choices, locked: bool) -> dict:
    """What a hardware document publishes of a rendering: its plans and, for a command that uses
    part of one node, the parts of the replica commands that fill the node."""
    found = rendering_plans(plans, rendering, profile, choices, locked)
    parts = replica_parts(rendering, found["default"], profile)
    return {**found, "replicas": parts} if parts else found


# -- the throughput plan: replicas of the command shown ---------------------------------------------


def replica_parts(
    rendering, plan: dict, profile: dict, first_port: int = 8000, available: int | None = None
) -> dict | None:
    """How many copies of a single-node command fill one node (or the `available` GPUs of it, a
    reader's GPU count: gpu_counts.py), each on its own GPUs and port.

    The page builds replica i's command from the command shown: `serve_prefix` (the GPUs it
    sees) + the command + `suffix` (its port); in docker form `docker_head` replaces the
    `docker run` lines before the model's arguments. `{gpus}` and `{port}` are filled from
    `replicas[i]`. None when the deployment is not one process on part of those GPUs."""
    per_node = _per_node(profile) if available is None else available
    if rendering.single is None or rendering.node_count != 1 or not holds(plan):
        return None
    used = plan["gpus"]
    if used < 1 or used > per_node:
        return None
    count = per_node // used
    if count < 2:
        return None
    return {
        "replicas": replica_list(used, count, first_port),
        **replica_templates(rendering.single, first_port),
    }


def replica_list(used: int, count: int, first_port: int = 8000) -> list[dict]:
    """`count` replicas of `used` GPUs each, side by side from GPU 0, on ports from `first_port`:
    the values `replica_templates` fill in."""
    return [
        {
            "gpus": ",".join(str(g) for g in range(i * used, (i + 1) * used)),
            "label": gpus_text(i * used, used),
            "port": first_port + i,
        }
        for i in range(count)
    ]


def replica_templates(proc, first_port: int = 8000) -> dict:
    """What turns a process's command into a replica's (`{gpus}`, `{port}` from `replica_list`):
    `serve_prefix` before the serve command, `suffix` after it, and the `docker_head` that replaces
    the `docker run` lines before the model's arguments."""
    port = str(first_port)
    docker = proc.docker_command.split(SEP)
    n_args = len(proc.command.split(SEP)) - 1
    head = docker[: len(docker) - n_args]
    head = [line.replace(f"-p {port}:{port}", "-p {port}:{port}") for line in head]
    head.insert(1, "-e CUDA_VISIBLE_DEVICES={gpus}")
    return {
        "serve_prefix": "export CUDA_VISIBLE_DEVICES={gpus}\n",
        "docker_head": SEP.join(head),
        "suffix": SEP + "--port {port}",
    }


def gpus_text(first: int, count: int) -> str:
    """The GPUs a replica sees, for people: "GPU 0", "GPUs 0-3"."""
    return f"GPU {first}" if count == 1 else f"GPUs {first}-{first + count - 1}"


def replica_command(command: str, parts: dict, replica: dict) -> str:
    """Replica `replica` of a serve command (the page's join, in Python for the CLI and tests)."""

    def fill(text: str) -> str:
        return text.replace("{gpus}", replica["gpus"]).replace("{port}", str(replica["port"]))

    return fill(parts["serve_prefix"]) + command + fill(parts["suffix"])
