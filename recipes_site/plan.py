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
    kv_bytes_per_token_per_gpu, windows_per_gpu, prefill_chunk
                          the inputs of the page formulas (fit.panel_entry) for other lengths
    verdict               "fits", or why the command cannot start: "over" (the weights exceed the
                          budget), "no_kv" (no room left for a KV cache), "short" (one request of
                          the served length does not fit; vLLM refuses to start)

Feature toggles that change memory (a draft model, a KV dtype, a context length) get their own
plan: `rendering_plans` enumerates those states, keyed the way the page names a feature set, so
the page only looks a plan up. Replica commands of the throughput plan are the shown command
pinned to its own GPUs and port (`replica_parts`): no re-rendering, so the cost stays linear in
the renderings.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import re
import shlex
from decimal import ROUND_HALF_UP, Decimal

from recipes_site import fit, sizing
from recipes_site.data import vllm_spelling

GIB = fit.GIB
FITS, OVER, NO_KV, SHORT = "fits", "over", "no_kv", "short"
MAX_FEATURE_STATES = 32

# flags whose value changes what a GPU holds; a feature setting one gets its own plan
MEMORY_FLAGS = (
    frozenset(fit._FLAGS)
    | frozenset(fit._SWITCHES)
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


# -- the draft model of --speculative-config -----------------------------------------------------


def speculative_config(argv) -> dict | None:
    """The JSON of `--speculative-config` (None when absent or not JSON)."""
    found = _speculative_json(tuple(argv))
    return None if found is None else json.loads(found[0])


# Memo: each rendering's argv is scanned ~5 times (its plan and the memory keys of its feature
# states); correct because the result depends on the tokens alone, and it holds text, not a dict,
# so every caller parses its own copy.
@functools.lru_cache(maxsize=65536)
def _speculative_json(argv: tuple) -> tuple[str, str] | None:
    """`--speculative-config`'s text and its canonical form (sort_keys), None when absent or not a
    JSON object."""
    try:
        text = " ".join(argv)  # argvs are text; no list of str() copies for the usual case
    except TypeError:  # a caller's argv with numbers: read as their str()
        argv = tuple(map(str, argv))
        text = " ".join(argv)
    if "--speculative-config" not in text:  # one scan in C: most commands have none
        return None
    tokens = argv
    for i, tok in enumerate(tokens):
        flag, eq, inline = tok.partition("=")
        if flag == "--speculative-config":
            return _spec_text(inline if eq else (tokens[i + 1] if i + 1 < len(tokens) else ""))
    return None


# Memo: a feature's --speculative-config recurs in every command of a recipe that turns it on
# (4,333 argvs read on the compat corpus, a few texts per recipe); correct because the result
# depends on the text alone and holds text.
@functools.lru_cache(maxsize=4096)
def _spec_text(text: str) -> tuple[str, str] | None:
    """`_speculative_json` of one --speculative-config text."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return (text, json.dumps(value, sort_keys=True)) if isinstance(value, dict) else None


# Memo: as `_spec_text`'s (`_draft` of each text parsed once).
@functools.lru_cache(maxsize=4096)
def _text_draft(text: str) -> tuple | None:
    """`_draft` of the --speculative-config `text` (a JSON object)."""
    return _draft(json.loads(text))


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


# -- the plan of one process ----------------------------------------------------------------------


def plan_of(
    recipe: dict,
    variant_key: str,
    hw_id: str,
    profile: dict,
    argv,
    *,
    gpus: int,
    nodes: int,
    memo: dict | None = None,
) -> dict:
    """The plan of a deployment whose memory-deciding process runs `argv`, occupying `gpus` GPUs
    on `nodes` nodes of `profile`. `memo`: a dict the caller keeps for one recipe and one set of
    profiles (`rendering_plans`), so that a plan's figures are computed once per distinct input."""
    argv = tuple(argv)
    shape, shape_values, draft, _ = _plan_inputs(argv)
    on = _variant_on(recipe, variant_key, hw_id, profile, memo)
    return _plan(on, argv, shape, shape_values, draft, gpus, nodes, memo)


def _plan(
    on: tuple,
    argv: tuple,
    shape: fit.Shape,
    shape_values: tuple,
    draft: tuple | None,
    gpus: int,
    nodes: int,
    memo: dict | None,
) -> dict:
    """`plan_of` with the argv's `_plan_inputs` and the `_variant_on` of its variant and hardware
    already read."""
    facts, vram, _ = on
    # Memo: besides the footprint, a plan reads the variant's weights, one GPU's memory, the shape
    # and (with hf_config, which sizes an EAGLE head) the draft; the rest of `facts` is the recipe's,
    # fixed for one memo. 13,241 plans on the compat corpus have 5,061 distinct figures. Kept: the
    # figures (numbers and strings, not the fit) and the plans made of them per footprint, which
    # several renderings then share (plans are never changed once made).
    key = (facts.weights_bytes, vram, shape_values, draft if facts.cfg else None)
    found = None if memo is None else memo.get(key)
    if found is None:
        split = fit.memory_split(facts, vram, shape)
        found = (
            _figures(
                facts.cfg, split, shape, speculative_config(argv) if draft is not None else None
            ),
            {},
        )
        if memo is not None:
            memo[key] = found
    figures, plans = found
    plan = plans.get((gpus, nodes))
    if plan is None:
        # compact: what is 1, false or unknown is left out (`expand` puts it back)
        plan = plans[gpus, nodes] = {
            "gpus": gpus,
            **({"nodes": nodes} if nodes != 1 else {}),
            **figures,
        }
    return plan


def _variant_on(
    recipe: dict, variant_key: str, hw_id: str, profile: dict, memo: dict | None
) -> tuple[fit.ModelFacts, float, int]:
    """`fit.model_facts` of the variant, the memory of one GPU of `profile` (`hw_id`'s) and its GPUs
    per node, kept in `memo` (one recipe's, whose profiles are one per hardware): the same for every
    command there."""
    if memo is None:
        return fit.model_facts(recipe, variant_key), sizing.per_gpu_gib(profile), _per_node(profile)
    key = ("variant on", variant_key, hw_id)  # beside `_plan`'s 4-tuples
    found = memo.get(key)
    if found is None:
        facts = memo.get(("facts", variant_key))
        if facts is None:
            facts = memo[("facts", variant_key)] = fit.model_facts(recipe, variant_key)
        found = memo[key] = facts, sizing.per_gpu_gib(profile), _per_node(profile)
    return found


def _per_node(profile: dict) -> int:
    return int(profile.get("gpu_count") or 1)


def _draft(spec: dict | None) -> tuple | None:
    """What a plan reads of a --speculative-config (`draft_weights_bytes`, the published `draft`):
    the method and model of a draft that loads its own checkpoint, else None. The model is keyed by
    its JSON text, so that values equal in Python but published differently (1, 1.0, true) differ."""
    if not spec or spec.get("method") not in DRAFT_METHODS or not spec.get("model"):
        return None
    return spec["method"], json.dumps(spec["model"])


# Memo: a rendering's argv is read for its plan and again for each process of the recipe that shares
# it; correct because the result depends on the tokens alone (a Shape is frozen, a draft a tuple).
@functools.lru_cache(maxsize=65536)
def _plan_inputs(argv: tuple) -> tuple[fit.Shape, tuple, tuple | None, int]:
    """What a plan reads of an argv: its shape (with `fit.shape_values` of it, for memo keys), its
    draft (`_draft`) and its GPUs (`Shape.gpus`, for the footprint)."""
    found = _speculative_json(argv)
    shape = fit.parse_shape(argv)  # (not fit's memo: this one keeps the answer)
    return (
        shape,
        fit.shape_values(shape),
        None if found is None else _text_draft(found[0]),
        shape.gpus,
    )


def _figures(cfg: dict | None, r: fit.MemorySplit, shape: fit.Shape, spec: dict | None) -> dict:
    """The figures of a plan after its footprint, in the published order, from the memory split `r`
    of its `shape` (see `plan_of`) and the recipe's hf_config `cfg`; never changed once made, as
    `plan_of` may hand one to several plans."""
    draft = draft_weights_bytes(cfg, spec)
    weights = None if r.weights_gb is None else r.weights_gb * 1e9 + draft
    per_gpu = r.weights_gib_per_gpu
    kv = r.kv_cache_gib_per_gpu
    if per_gpu is not None and draft:
        per_gpu += draft / max(1, shape.tp) / GIB  # the draft runs with the target's TP
        kv -= draft / max(1, shape.tp) / GIB
    served = shape.max_model_len or r.context_length
    tokens = longest = concurrency = None
    per_token = (
        None if r.kv_bytes_per_token_per_gpu is None else round(r.kv_bytes_per_token_per_gpu, 3)
    )
    kv_bytes = None if kv is None else max(0, math.floor(kv * GIB))
    windows = (
        [{"window": w, "bytes_per_token": b} for w, _, _, b in r.windows_per_gpu]
        if r.windows_per_gpu
        else []
    )
    if per_token is not None and kv is not None:
        entry = {
            "kv_cache_bytes_per_gpu": kv_bytes,
            "kv_bytes_per_token_per_gpu": per_token,
            "dp": shape.dp,
            "windows_per_gpu": windows,
            "prefill_chunk": r.prefill_chunk,
            "state_bytes_per_sequence_per_gpu": r.state_bytes_per_sequence_per_gpu,
            "context_length": served,
        }
        tokens = int(kv_bytes // per_token) if per_token else None
        if served:
            figures = fit.panel_figures(entry, served, 1)
            concurrency, longest = figures["requests"], figures["longest"]
    budget = r.budget_gib_per_gpu
    if per_gpu is None:
        verdict = None
    elif per_gpu > budget:
        verdict = OVER
    elif kv is not None and kv <= 0:
        verdict = NO_KV
    elif longest is not None and served and longest < served:
        verdict = SHORT
    else:
        verdict = FITS
    out = {"tp": shape.tp}
    if shape.pp != 1:
        out["pp"] = shape.pp
    if shape.dp != 1:
        out["dp"] = shape.dp
    if shape.expert_parallel:
        out["ep"] = True
    out["budget_gib_per_gpu"] = _round2(budget)
    if per_gpu is not None:
        out["weights_gib"], out["weights_gib_per_gpu"] = _round2(weights / GIB), _round2(per_gpu)
    out["overhead_gib_per_gpu"] = _round2(r.overhead.total_gib)
    if kv_bytes is not None:
        out["kv_cache_bytes_per_gpu"] = kv_bytes
    if per_token is not None:
        out.update(kv_bytes_per_token_per_gpu=per_token, max_tokens=tokens)
        if concurrency is not None:
            out["concurrency"] = concurrency
    if served:
        out["context_length"] = served
    if windows:
        out["windows_per_gpu"] = windows
        out["prefill_chunk"] = r.prefill_chunk
    if (
        r.state_bytes_per_sequence_per_gpu
    ):  # linear-attention / Mamba state, per request (kv_cache.py)
        out["state_bytes_per_sequence_per_gpu"] = r.state_bytes_per_sequence_per_gpu
    if spec and draft:
        out["draft"] = spec.get("model")
    if verdict is not None:
        out["verdict"] = verdict
    return out


_ROUNDED: dict[float, float] = {}


def _round2(x):
    """`round(x, 2)`: a plan's GiB figures, as published."""
    # Memo: round() of a float to 2 digits is correctly rounded through a decimal conversion,
    # ~2,500 instructions a call, and the same few values recur in every plan of a recipe and
    # across recipes (budgets, overheads, a variant's weights per TP): 20,244 calls on the compat
    # corpus, 1,334 distinct per recipe. Kept for positive floats only: equal positive floats are
    # the same number, while 0.0 and -0.0 (equal keys) round to values that print differently, and
    # an int or a float subclass rounds to its own type. Process-wide, emptied past 4,096 values.
    if type(x) is float and x > 0.0:
        found = _ROUNDED.get(x)
        if found is None:
            if len(_ROUNDED) >= 4096:
                _ROUNDED.clear()
            found = _ROUNDED[x] = round(x, 2)
        return found
    return round(x, 2)


def _g(x) -> str:
    """One decimal, ties up (as the page's toFixed(1))."""
    return str(Decimal(x).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def reason(p: dict, name: str, vram: float) -> str:
    """Why a plan's verdict is what it is, in one sentence (site.js `planReason` writes the same).
    `p` is an expanded plan, `name` the GPU's display name, `vram` its memory in GiB."""
    v, w, budget = p["verdict"], p["weights_gib_per_gpu"], p["budget_gib_per_gpu"]
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

# The process whose GPUs the memory figures describe: the decode pool of a PD deployment, else the
# main process (the one fit.py sizes; an alias, not a wrapper: it is asked once per rendering).
memory_process = fit._fit_process


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
        nodes = sum(p.nodes for p in pools) or max(1, math.ceil(gpus / per_node))
        return gpus, nodes
    if rendering.kv is None:
        return shape_gpus, max(rendering.node_count, math.ceil(shape_gpus / per_node))
    instances = rendering.kv.instances
    return shape_gpus * instances, max(1, instances * math.ceil(shape_gpus / per_node))


def rendering_plan(
    recipe: dict, rendering, profile: dict, argv=None, memo: dict | None = None
) -> dict:
    """The plan of a rendering as shown (`argv`: its memory process with other feature lines;
    `memo`: see `plan_of`)."""
    on = _variant_on(recipe, rendering.variant, rendering.hardware, profile, memo)
    return _rendering_plan(rendering, profile, on, memory_process(rendering), argv, memo)


def _rendering_plan(rendering, profile: dict, on: tuple, proc, argv, memo: dict | None) -> dict:
    """`rendering_plan` given the rendering's `_variant_on` and `memory_process`: the argv is read
    once, for both the plan and the footprint whenever the main process is the memory process."""
    tokens = tuple(argv) if argv is not None else (proc.argv if proc else ())
    return _tokens_plan(rendering, profile, on, tokens, _plan_inputs(tokens), argv is None, memo)


def _tokens_plan(
    rendering,
    profile: dict,
    on: tuple,
    tokens: tuple,
    inputs: tuple,
    as_rendered: bool,
    memo: dict | None,
) -> dict:
    """`_rendering_plan` given the argv's tokens and their `_plan_inputs` (`as_rendered`: the
    tokens are the memory process's own, not a feature state's)."""
    shape, shape_values, draft, shape_gpus = inputs
    if as_rendered and rendering.decode is not None:  # else the main process is `proc`
        gpus, nodes = footprint(rendering, profile)
    else:
        gpus, nodes = _footprint(rendering, on[2], shape_gpus)
    return _plan(on, tokens, shape, shape_values, draft, gpus, nodes, memo)


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


@functools.lru_cache(maxsize=65536)
def _tokens(line: str) -> tuple:
    """The argv tokens of one command line (shell-quoted as synthesis writes them)."""
    if _PLAIN.fullmatch(
        line
    ):  # no quote, backslash or whitespace but spaces: shlex splits at spaces
        return tuple(line.split())
    if _SINGLE_QUOTED.fullmatch(line):  # how synthesis quotes a JSON value: '{"model": ...}'
        return tuple([word.replace("'", "") for word in _WORD.findall(line)])
    return tuple(shlex.split(line))


# printable ASCII but the space, ' " and \ (the only characters shlex.split treats specially, besides
# whitespace), as the inside of a character class; one pattern for the three below
_UNQUOTED = r"!#-&(-\[\]-~"
_QUOTED_RUN = r"'[ -&(-~]*'"  # a single-quoted run of printable ASCII but "'"
# those characters and spaces: a line shlex.split splits at its spaces
_PLAIN = re.compile(f"[ {_UNQUOTED}]*")
# _PLAIN's characters and whole '...' runs of printable ASCII but "'": in a single-quoted run shlex.split
# (POSIX mode) takes every character as it is, so a token is a run of both between spaces with its
# quotes removed (the one path of shlex's own that ~100 lines of the compat corpus took, ~1/30 of
# plan_json's cost); anything else (double quotes, backslashes outside '...', other whitespace, an
# unclosed quote) still goes to shlex
_SINGLE_QUOTED = re.compile(f"(?:[ {_UNQUOTED}]|{_QUOTED_RUN})*")
_WORD = re.compile(f"(?:[{_UNQUOTED}]|{_QUOTED_RUN})+")


def _feature_lines(choices, state) -> tuple:
    """The lines of the feature block with `state`'s features on (in the choices' order)."""
    chosen = {c.name: (c, m) for c, m in state}
    lines = []
    for c in choices:
        if c.name in chosen:
            _, m = chosen[c.name]
            lines += list(m.lines if m is not None else c.lines)
    return tuple(lines)


def _block_tokens(choices, state) -> tuple | None:
    """The argv tokens of the feature block with `state`'s features on (None when a line is not
    shell-quoted text)."""
    try:
        return tuple(t for line in _feature_lines(choices, state) for t in _tokens(line))
    except ValueError:
        return None


def _line_tokens(lines: tuple) -> tuple:
    """The argv tokens of command lines (raises ValueError for a line that is not shell-quoted text)."""
    return tuple(itertools.chain.from_iterable(map(_tokens, lines)))


def _reads(tokens: tuple) -> tuple:
    """The tokens of a run of argv tokens that `_plan_inputs` reads: the first, every token it acts on
    (a flag or switch of fit's shape as vLLM spells it, a token with '=', --speculative-config)
    and the token after each (a flag's value).

    An argv made of runs, and the same runs' reads joined in the same order, have the same
    `_plan_inputs` (`_lines_states` keys feature states on the reads of their lines): both parsers
    act only at such tokens, in order, each reading the token and the one after it; after a token
    inside a run comes the kept next token, after a run's last the first token of the next
    non-empty run, kept as well. Nothing read is left out or put next to another token."""
    keep = {0} if tokens else set()
    for i, tok in enumerate(tokens):
        if "=" in tok or tok == "--speculative-config" or vllm_spelling(tok) in fit._NAMES:
            keep.update((i, i + 1))
    return tuple(tokens[i] for i in sorted(keep) if i < len(tokens))


# Memo: a process's lines recur in every process of a recipe that writes them (as `_tokens`);
# correct because the result depends on the line alone.
@functools.lru_cache(maxsize=65536)
def _line_reads(line: str) -> tuple:
    """`_reads` of one command line (raises ValueError for a line that is not shell-quoted text)."""
    return _reads(_tokens(line))


def _memory_key(argv) -> tuple:
    """What decides a plan of one argv, as `_plan` keys its figures: its shape (`fit.shape_values`,
    equal exactly when the Shapes are) and its draft (`_draft`). A --speculative-config that loads
    no draft checkpoint (MTP, n-gram) or differs only beside the draft's method and model changes
    nothing a plan shows, so such a feature state shares the rendered command's plan without one
    being made for it (on the compat corpus every state did)."""
    _, shape_values, draft, _ = _plan_inputs(tuple(argv))
    return shape_values, draft


def _same_draft_config(a: tuple, b: tuple) -> bool:
    """Whether two argvs' --speculative-config are equal JSON values (`speculative_config(a) ==
    speculative_config(b)`, parsing only when both have one)."""
    x, y = _speculative_json(a), _speculative_json(b)
    if x is None or y is None:
        return x is y
    return json.loads(x[0]) == json.loads(y[0])


# Memo: the feature states depend on the choices alone, which recur on every process of a recipe
# (1,857 processes, 90 distinct choices on the compat corpus); correct because choices are frozen
# dataclasses (hashable values) and nothing else is read. `_process_states` keeps the answer
# beside the choices in its per-recipe memo (by identity), so this one hashes them field by field
# once per recipe and choices, not once per process.
@functools.lru_cache(maxsize=4096)
def _choice_states(choices: tuple) -> tuple | None:
    """The memory feature states of `choices`: (names of the memory features, the tokens of the
    defaults' feature block, ((state key, tokens of its feature block), ...), the `_reads` of each
    of those blocks in the same order), a block (and its reads) None when it cannot be tokenised;
    None when there are no states or too many."""
    features = memory_features(choices)
    states = _states(features) if features else []
    if not features or len(states) > MAX_FEATURE_STATES:
        return None
    defaults = _default_state(choices)
    others = [s for s in defaults if s[0] not in features]
    blocks = tuple((state_key(state), _block_tokens(choices, others + state)) for state in states)
    return (
        tuple(c.name for c in features),
        _block_tokens(choices, defaults),
        blocks,
        tuple(None if block is None else _reads(block) for _, block in blocks),
    )


# Kept per recipe by `_process_states` (one call per distinct process and choices: 1,857 on the
# compat corpus), the only caller; a second memo here would never be hit.
def _memory_states(
    argv: tuple, command: str, before: tuple, after: tuple, choices: tuple
) -> tuple | None:
    """The feature states of a process whose memory may differ from the rendered one: (names of
    the memory features, one argv per memory key other than the rendered command's, and
    ((state key, index of its argv or -1 for the rendered command's key), ...)); None when there
    are none, too many, or the command cannot be rebuilt from its lines."""
    return _lines_states(_choice_states(choices), argv, command, before, after)


def _lines_states(
    found: tuple | None, argv: tuple, command: str, before: tuple, after: tuple
) -> tuple | None:
    """`_memory_states` given the `_choice_states` of its choices (`found`)."""
    if found is None:
        return None
    names, default_block, states, block_reads = found
    try:  # the process's own lines, each side of the feature block, and what a plan reads of them
        head_line = command.split(" \\\n  ", 1)[0]
        head = _tokens(head_line)
        reads_before = _line_reads(head_line) + tuple(
            itertools.chain.from_iterable(map(_line_reads, before))
        )
        reads_after = tuple(itertools.chain.from_iterable(map(_line_reads, after)))
        before, after = _line_tokens(before), _line_tokens(after)
    except ValueError:
        return None
    if head[:2] != ("vllm", "serve") or default_block is None:
        return None
    rebuilt = head + before + default_block + after
    same = (
        rebuilt == tuple(argv) and _speculative_json(rebuilt) is None
    )  # the usual case, no parse compared
    if not same and (
        fit.shape_from_argv(rebuilt) != fit.shape_from_argv(argv)
        or not _same_draft_config(rebuilt, tuple(argv))
    ):
        return None
    index = {_memory_key(argv): -1}
    argvs, out = [], []
    for (key_name, block), reads in zip(states, block_reads):
        if block is not None:
            # the key of the state's own argv, head + before + block + after, from the reads of its
            # runs (`_reads`): a short argv, often one an earlier process of the recipe had
            key = _memory_key(reads_before + reads + reads_after)
            if key not in index:
                index[key] = len(argvs)
                argvs.append(head + before + block + after)
            out.append((key_name, index[key]))
    return names, tuple(argvs), tuple(out)


def _process_states(proc, choices: tuple, memo: dict | None) -> tuple | None:
    """`_memory_states` of a process, kept in `memo` (one recipe's) when given. There the choices
    are told apart by identity, not hashed field by field for every rendering: picker interns equal
    choices, and the memo holds the choices it keys (with their `_choice_states`), so their id is
    not reused while it lives."""
    lines = (proc.argv, proc.command, proc.lines_before, proc.lines_after)
    if memo is None:
        return _memory_states(*lines, choices)
    key = ("feature states", id(choices))  # beside `_plan`'s 4-tuples
    kept = memo.get(key)
    if kept is None or kept[0] is not choices:
        kept = memo[key] = (choices, {}, _choice_states(choices))
    by_process = kept[1]
    found = by_process.get(lines, by_process)  # (the dict itself: no answer yet; None is one)
    if found is by_process:
        found = by_process[lines] = _lines_states(kept[2], *lines)
    return found


def clear_memos() -> None:
    """Forget the memos keyed on one recipe's commands (render/api.py, after each recipe)."""
    for memo in (
        _speculative_json,
        _spec_text,
        _text_draft,
        _plan_inputs,
        _tokens,
        _line_reads,
        _choice_states,
        _replicas,
    ):
        memo.cache_clear()


def rendering_plans(
    recipe: dict,
    rendering,
    profile: dict,
    choices,
    locked: bool,
    memo: dict | None = None,
    family: dict | None = None,
) -> dict:
    """The plan of the rendering as rendered (`default`), and of every other feature state that
    changes memory: `{"default": plan, "keys": [feature names], "by": {state key: plan}}`. The page
    names the selected state of the `keys` features (site.js `featureKey`) and shows `by[key]`,
    else `default`; `by` holds only states whose plan differs (and is left out with `keys` when
    none does), so most renderings carry one plan.

    `memo` (optional): one dict for all renderings of `recipe` whose `profile` is always the one
    of their hardware, so that plans of the same inputs are computed once (`plan_of`). `family`
    (optional, with `memo`): one dict for `rendering` and its re-labelled copies on other hardware
    (picker.Shown), which keeps what the plans read of the rendering alone (`_family_reads`)."""
    proc, tokens, inputs = _family_reads(rendering, family)
    on = _variant_on(recipe, rendering.variant, rendering.hardware, profile, memo)
    default = _tokens_plan(rendering, profile, on, tokens, inputs, True, memo)
    out = {"default": default}
    if locked or proc is None:
        return out
    found = _family_states(proc, tuple(choices), memo, family)
    if found is None:
        return out
    names, argvs, states = found
    # (a loop, not a comprehension: one would make cells of the five names it read on every call)
    plans = []
    for argv in argvs:
        plans.append(_rendering_plan(rendering, profile, on, proc, argv, memo))
    by = {}
    for name, i in states:
        p = default if i < 0 else plans[i]
        if p is not default and p != default:
            by[name] = p
    if by:
        out["keys"], out["by"] = list(names), by
    return out  # "keys" and "by" only when some state differs


def _family_reads(rendering, family: dict | None) -> tuple:
    """The rendering's `memory_process`, its argv and their `_plan_inputs`: the same for every
    re-labelled copy of it (they share every field but `hardware`), so kept in `family` when given
    (8,997 renderings of the compat corpus, 3,384 families) instead of looking the argv up again."""
    found = None if family is None else family.get("reads")
    if found is None:
        proc = memory_process(rendering)
        tokens = proc.argv if proc else ()
        found = (proc, tokens, _plan_inputs(tokens))
        if family is not None:
            family["reads"] = found
    return found


def _family_states(proc, choices: tuple, memo: dict | None, family: dict | None) -> tuple | None:
    """`_process_states` of the family's memory process, kept in `family` per choices (told apart by
    identity: the entry holds them, and picker interns equal choices)."""
    if family is None:
        return _process_states(proc, choices, memo)
    key = ("states", id(choices))
    kept = family.get(key)
    if kept is None or kept[0] is not choices:
        kept = family[key] = (choices, _process_states(proc, choices, memo))
    return kept[1]


def plan_json(
    recipe: dict,
    rendering,
    profile: dict,
    choices,
    locked: bool,
    memo: dict | None = None,
    family: dict | None = None,
) -> dict:
    """What a hardware document publishes of a rendering: its plans and, for a command that uses
    part of one node, the parts of the replica commands that fill the node (`memo`, `family`: see
    `rendering_plans`)."""
    plans = rendering_plans(recipe, rendering, profile, choices, locked, memo, family)
    parts = replica_parts(rendering, plans["default"], profile, memo=memo)
    return {**plans, "replicas": parts} if parts else plans


# -- the throughput plan: replicas of the command shown ---------------------------------------------


def replica_parts(
    rendering, plan: dict, profile: dict, first_port: int = 8000, memo: dict | None = None
) -> dict | None:
    """How many copies of a single-node command fill one node, each on its own GPUs and port.

    The page builds replica i's command from the command shown: `serve_prefix` (the GPUs it
    sees) + the command + `suffix` (its port); in docker form `docker_head` replaces the
    `docker run` lines before the model's arguments. `{gpus}` and `{port}` are filled from
    `replicas[i]`. None when the deployment is not one process on part of one node. `memo`: see
    `rendering_plans` (equal parts are made once and shared, never changed)."""
    per_node = _per_node(profile)
    if rendering.single is None or rendering.node_count != 1 or not holds(plan):
        return None
    used = plan["gpus"]
    if used < 1 or used > per_node:
        return None
    count = per_node // used
    if count < 2:
        return None
    proc = rendering.single
    # Memo: the same command recurs on the hardware of a recipe with as many GPUs per node; the
    # parts depend on nothing else (one recipe's memo, emptied with it).
    key = ("replicas", proc.docker_command, proc.command, used, count, first_port)
    found = None if memo is None else memo.get(key)
    if found is None:
        found = _replica_parts(proc, used, count, first_port)
        if memo is not None:
            memo[key] = found
    return found


def _replica_parts(proc, used: int, count: int, first_port: int) -> dict:
    """`replica_parts` of `count` copies of the process `proc`, each on `used` GPUs."""
    port = str(first_port)
    docker = proc.docker_command.split(" \\\n  ")
    n_args = len(proc.command.split(" \\\n  ")) - 1
    head = docker[: len(docker) - n_args]
    head = [line.replace(f"-p {port}:{port}", "-p {port}:{port}") for line in head]
    head.insert(1, "-e CUDA_VISIBLE_DEVICES={gpus}")
    return {
        "replicas": _replicas(used, count, first_port),
        "serve_prefix": "export CUDA_VISIBLE_DEVICES={gpus}\n",
        "docker_head": " \\\n  ".join(head),
        "suffix": " \\\n  --port {port}",
    }


# Memo: the replicas depend on the GPUs of one, their count and the first port alone, a few
# combinations per recipe whatever its commands (445 lists built on the compat corpus, most of them
# equal); typed, so an equal key of another type (1.0 for 1) is worked out afresh, as without it.
# Shared like the parts that hold them (never changed); emptied with the recipe's memos.
@functools.lru_cache(maxsize=256, typed=True)
def _replicas(used: int, count: int, first_port: int) -> list:
    """Replica i of `count`, each on `used` GPUs: its GPUs (CUDA_VISIBLE_DEVICES) and port."""
    return [
        {"gpus": ",".join(str(g) for g in range(i * used, (i + 1) * used)), "port": first_port + i}
        for i in range(count)
    ]


def replica_command(command: str, parts: dict, replica: dict) -> str:
    """Replica `replica` of a serve command (the page's join, in Python for the CLI and tests)."""
    fill = lambda s: s.replace("{gpus}", replica["gpus"]).replace("{port}", str(replica["port"]))
    return fill(parts["serve_prefix"]) + command + fill(parts["suffix"])
