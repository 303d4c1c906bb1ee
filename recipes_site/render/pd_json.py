"""The `pd_topology` member of a PD rendering in the hardware documents: every pool layout the
model page's Prefill/Decode controls offer (pd_topology.py), as pieces the page joins.

Per role, each option (a node count and a mode) carries its plan.py verdict; an option that
starts carries every node's command as indices into the member's `texts` (distinct lines and
`export` blocks), the router's lines for its endpoints and the numbers the page adds up (GPUs,
nodes, local DP size); a decode option carries the plan the memory panel shows (the decode pool's,
as `plan.rendering_plan` takes it) and the card header's layout words. The page (static/pd.js)
only joins, in this order, what it is given:

    node 1 of a pool = procs[0]: [exports, docker head, serve lines, at, n]; node k > 1 =
             procs[k-1]: node 1's three lists with their [position, line] changes, its at, n
    serve lines of a first node = the role's `lead` + its own list; every string, by its
             index into the document's `pd_texts` (the member's `texts`, from the CLI)
    serve command of node i = texts[serve[0]] + SEP + texts[serve[1..]] joined by SEP
    plan shown = the rendering's plan.default, then the decode option's `plan` (its differences;
             null: a figure left out), with the GPUs and nodes below; a feature state's plan
             (the rendering's plan.keys name the state) = that, then the entry's
             `states[state]`, then the option's `by[state]`
    docker command of node i = texts[docker...] + the serve command's lines after its first
    router = head + prefill option's ends + decode option's ends + tail, "{intra}" filled with
             the recipe's `intra` or the larger `dp_local` of the two options (at least 1)
    GPUs = prefill gpus + decode gpus; nodes = ceil(prefill used + decode used)

`tests/test_pd_topology.py` holds the join to what synthesis renders for each topology.
"""

from __future__ import annotations

import functools
import json
import math
from typing import NamedTuple

from recipes_site import plan, sizing
from recipes_site.distinct import DistinctTable
from recipes_site.jsish import mapping
from recipes_site.pd_topology import PoolOption, pool_layouts, pool_options
from recipes_site.render import picker
from recipes_site.render.inputs import RecipeInput, hw_doc_path, rendering_key
from recipes_site.render.rendering_json import user_variables
from recipes_site.synthesis import Context
from recipes_site.synthesis.choices import feature_choices
from recipes_site.synthesis.deployments import (
    pd_node_counts,
    pd_pool_gpus,
    pd_router_parts,
    pool_endpoints,
    pool_modes,
)
from recipes_site.synthesis.recording import Recording
from recipes_site.synthesis.shell import SEP, expanded_variables, quote
from recipes_site.synthesis.types import Process, Rendering


class Table(DistinctTable):
    """Distinct strings, or lists known by their JSON text; entries refer to them by index."""

    def __call__(self, value) -> int:
        key = value if isinstance(value, str) else json.dumps(value)
        return self.index_by(key, lambda: value)


class Tables(NamedTuple):
    texts: Table  # lines, variable names, reasons: the hardware document's `pd_texts`
    heads: Table  # [export lines, docker head lines] of one node: the member's `heads`


def _process(tables: Tables, p: Process, names: dict | None = None) -> tuple[int, list, int, int]:
    """(head, serve lines, at, n) of one node: its [export lines, docker head lines] as an index
    into `heads`, its serve lines as indices into `texts`, and where its feature block sits among
    its argument lines (`at`, `n`, as the picker's parts say it)."""
    texts = tables.texts
    serve = p.command.split(SEP)
    docker = p.docker_command.split(SEP)
    head = docker[: len(docker) - (len(serve) - 1)]
    split = picker._split(p) or {"at": 0, "n": 0}
    export_lines = picker.exports(p.env).splitlines()
    if names is not None:  # the variables it expands, in user_variables' order (see _variables)
        for line in (*export_lines, *serve, *head):
            names.update(dict.fromkeys(_line_variables(line)))
    exports = [texts(line) for line in export_lines]
    return (
        tables.heads([exports, [texts(line) for line in head]]),
        [texts(line) for line in serve],
        split["at"],
        split["n"],
    )


def _changes(first: list, other: list) -> list:
    """`other` as changes of `first`: [[position, value], ...] (a position past the end appends)."""
    assert len(other) >= len(first)  # a pool's other nodes add lines, never drop them
    return [[i, x] for i, x in enumerate(other) if i >= len(first) or first[i] != x]


class States(NamedTuple):
    """What a decode option's feature-state plans need: the rendering's published plans (`shown`:
    `default`, and `by` per feature state whose plan differs), its feature choices, the plans of
    the recipe, the variant and the profile."""

    shown: dict
    choices: tuple
    plans: plan.RecipePlans
    variant: str
    profile: dict
    changes: dict  # `state_changes` of `shown`


def _diff(base: dict, mine: dict) -> dict:
    """`mine` as changes of `base` (GPUs and nodes left out: the page adds the two pools'); null
    for a figure `base` has and `mine` leaves out."""
    base = {k: v for k, v in base.items() if k not in ("gpus", "nodes")}
    mine = {k: v for k, v in mine.items() if k not in ("gpus", "nodes")}
    out = {k: v for k, v in mine.items() if base.get(k) != v}
    out.update({k: None for k in base if k not in mine})
    return out


def _state_plans(states: States, pool, p: dict) -> dict:
    """The plans of a decode option's feature states, as changes of its plan `p`, for the states
    the rendering's `plan.by` has (the page looks a state up there, plan.rendering_plans): those
    whose plan differs from `p`."""
    wanted = states.shown.get("by") or {}
    found = plan.feature_states(states.plans, pool.process, states.choices) if wanted else None
    out = {}
    for key, argv in found[1] if found else ():
        if key in wanted:
            mine = plan.plan_of(
                states.plans,
                states.variant,
                states.profile,
                argv,
                gpus=p["gpus"],
                nodes=p.get("nodes", 1),
            )
            if mine != p:  # as changes of the option's plan with the state's `state_changes`
                near = {**p, **states.changes[key]}
                out[key] = _diff({k: v for k, v in near.items() if v is not None}, mine)
    return out


def state_changes(shown: dict) -> dict:
    """Per feature state of a rendering's published plans, what its plan changes of `default`
    (the figures a state moves alike in most layouts: the KV bytes per token of a draft, ...)."""
    return {k: _diff(shown["default"], p) for k, p in (shown.get("by") or {}).items()}


def _option(
    tables: Tables,
    option: PoolOption,
    summary: tuple | None,
    precision: str | None,
    states: States | None = None,
) -> dict:
    texts = tables.texts
    pool = option.pool
    out: dict = {}
    if option.default:
        out["default"] = True
    if option.declared:
        out["declared"] = True
    if not option.fits or pool is None:
        out["why"] = texts(option.reason)
        return out
    assert option.plan is not None  # planned: it fits
    names: dict[str, None] = {}
    head, serve, at, n = _process(tables, pool.process, names)
    nodes = [[head, serve, at, n]]
    for w in pool.workers:
        w_head, w_serve, w_at, w_n = _process(tables, w, names)
        nodes.append([w_head, _changes(serve, w_serve), w_at, w_n])
    out.update(
        procs=nodes,
        ends=[texts(line) for line in pool_endpoints(option.role, pool)],
        vars=[texts(v) for v in names],
    )
    if pool.dp_local:
        out["dp_local"] = pool.dp_local
    if summary is None:  # a prefill option: the KV tokens its pool holds
        if option.plan.get("max_tokens") is not None:
            out["tokens"] = option.plan["max_tokens"]
        return out
    # a decode option: the plan the memory panel shows and the header's words
    name, per_node = summary
    p = option.plan
    nodes_of = p.get("nodes", 1)
    full = picker._plan_summary(
        name,
        per_node,
        p["gpus"],
        nodes_of,
        p["tp"],
        p.get("pp", 1),
        p.get("dp", 1),
        p.get("ep"),
        precision,
    )
    out["layout"] = texts(full[len(picker._gpus_text(name, per_node, p["gpus"], nodes_of)) :])
    # what differs from the rendering's own plan (its `plan.default`); per feature state whose
    # plan differs from this one's, what differs from this one's
    out["plan"] = _diff((states.shown.get("default") or {}) if states else {}, p)
    by = _state_plans(states, pool, p) if states else {}
    if by:
        out["by"] = by
    return out


def _variables(procs: tuple) -> list[str]:
    """The shell variables processes expand, in first-use order (as user_variables, which reads
    each process's exports, command and docker command in turn): line by line, since no variable
    of a serve or docker command spans lines (`_process` reads a node's the same way)."""
    found: dict[str, None] = {}
    for p in procs:
        for text in (picker.exports(p.env), p.command, p.docker_command):
            for line in text.split("\n"):
                found.update(dict.fromkeys(_line_variables(line)))
    return list(found)


# Memo (pays over 2% of a compat build, which scanned 65,000 pool texts whole): the lines of a
# recipe's pool commands recur in every layout and on every hardware.
@functools.lru_cache(maxsize=8192)
def _line_variables(line: str) -> tuple[str, ...]:
    return expanded_variables(line)


def rendering_topology(
    ctx: Context,
    recipe: dict,
    r: Rendering,
    plans: plan.RecipePlans,
    tables: Tables,
    shown: dict | None,
    layouts: dict | None = None,
) -> dict | None:
    """The entry of PD rendering `r` in the `pd_topology` part (None for any other rendering):
    its lines go into `tables`; `shown` is the rendering's published `plan` (`default`, and `by`
    feature state), which a decode option's plans are written against; `layouts` its pools'
    (`pool_layouts`), when the caller has them."""
    if r.prefill is None or r.decode is None or r.router is None:
        return None
    hw = ctx.hardware(r.hardware)
    profile = ctx.profiles.get(r.hardware) or {}
    name, per_node = sizing.gpu_label(profile, r.hardware), profile.get("gpu_count") or 1
    precision = mapping(mapping(recipe.get("variants")).get(r.variant)).get("precision")
    states = States(
        shown or {},
        feature_choices(recipe, hw, r.variant, r.feature_strategy)
        if (shown or {}).get("by")
        else (),
        plans,
        r.variant,
        profile,
        state_changes(shown or {}),
    )
    modes = pool_modes(ctx, recipe)
    options = pool_options(ctx, recipe, r.variant, hw, plans, layouts=layouts)
    roles: dict[str, dict] = {
        role: {
            "nodes": (counts := pd_node_counts(recipe, hw, role)),
            # per node count: the pool's GPUs, and the nodes it takes (half of one: 0.5)
            "gpus": [pd_pool_gpus(hw, n) for n in counts],
            "used": [n or 0.5 for n in counts],
            "modes": modes,
            "options": [
                _option(
                    tables, o, (name, per_node) if role == "decode" else None, precision, states
                )
                for o in found
            ],
        }
        for role, found in options.items()
    }
    for role in roles.values():  # the serve lines every first node of the role starts with
        found: list[dict] = role["options"]
        lead = _common_start([o["procs"][0][1] for o in found if "procs" in o])
        role["lead"] = lead
        for o in found:
            if "procs" in o:
                o["procs"][0][1] = o["procs"][0][1][len(lead) :]
    parts = pd_router_parts({"router": r.router_config or {}}, recipe)
    texts = tables.texts
    return {
        **roles,
        "router": {
            "head": [texts(line) for line in parts.head],
            "tail": [texts(line) for line in parts.tail],
            "intra": parts.intra,
            "prefix": texts((r.router.install or "") + "\n"),
            "fixed": [texts(v) for v in _fixed_variables(r)],
        },
        # per feature state with a plan of its own, what it changes of the rendering's plan
        **({"states": states.changes} if states.changes else {}),
        # the card's header: the GPUs of one node, or "{gpus}" on "{nodes}" nodes
        "summary": [texts(f"{per_node}× {name}"), texts("{gpus}× " + name + " on {nodes} nodes")],
    }


LABELS = {  # the process tabs: a pool's first node (picker._pool_text's words), its other nodes
    "pool": "{role} pool ({mode}, {gpus} GPUs, {where})",
    "shared": "shares the node",
    "node": "1 node",
    "nodes": "{nodes} nodes",
    "worker": "{role} node {i}",
    "prefill": "Prefill",
    "decode": "Decode",
    # the Kubernetes, Monitoring, Bench and Tune panels hold the default pools only (deploy.json's
    # other parts are written per rendering): for another topology they say so, and give the CLI
    # line that prints theirs (`cli` + POOL_FLAGS + the panel's flag)
    "elsewhere": "This shows the default pools ({default}), not the ones chosen above.",
    "print": "Print it for the chosen pools with:",
    "pools": " --prefill-nodes {prefill_nodes} --prefill-mode {prefill_mode}"
    " --decode-nodes {decode_nodes} --decode-mode {decode_mode}",
    "flags": {"kubernetes": "--k8s", "monitoring": "--monitoring", "bench": "--bench"},
    "half": "½ node",
}


def _cli_line(hf_id: str, r: Rendering) -> str:
    """`recipes-site command` of rendering `r` up to its pool flags, every word shell-quoted."""
    words = ["recipes-site", "command", hf_id, "--hardware", r.hardware, "--variant", r.variant]
    return " ".join(quote(w) for w in words + ["--strategy", "pd_cluster"])


def pd_topology_doc(rec: RecipeInput, ctx: Context, docs: dict) -> dict | None:
    """The `pd_topology` part of the model's deploy.json: every PD rendering's entry by its
    rendering key, over the model's shared `texts` and `heads`; None without a PD rendering.
    `docs` holds the recipe's hardware documents (the plans the options are written against)."""
    tables = Tables(Table(), Table())
    plans = plan.RecipePlans(rec.data)
    layouts = SharedLayouts(ctx, rec.data)
    renderings: dict[str, dict] = {}
    for tree in rec.rendered.trees:
        for res in tree.by_hardware:
            for r in (res.recommended, *res.alternatives):
                key = rendering_key(res.hardware, r)
                if r.prefill is None or key in renderings:
                    continue
                shown = _published_plan(docs.get(hw_doc_path(rec.hf_id, res.hardware)), r)
                found = layouts.of(r.variant, res.hardware)
                entry = rendering_topology(ctx, rec.data, r, plans, tables, shown, found)
                if entry is not None:
                    # the CLI line that prints another topology's panels (LABELS "elsewhere")
                    entry["cli"] = tables.texts(_cli_line(rec.hf_id, r))
                    renderings[key] = entry
    if not renderings:
        return None
    return {
        "texts": tables.texts.items,
        "heads": tables.heads.items,
        "labels": LABELS,
        "renderings": renderings,
    }


class SharedLayouts:
    """`pool_layouts` of one recipe's PD renderings, laid out once for the profiles that answer
    every question the layouts ask of their hardware alike (synthesis/recording.py, as
    picker.AcrossHardware shares feature choices): a profile takes the layouts made on an earlier
    one whose record it agrees with. Right by construction, as a re-labelled rendering is."""

    def __init__(self, ctx: Context, recipe: dict):
        self._ctx, self._recipe = ctx, recipe
        self._recordings: dict[str, Recording] = {}
        self._made: dict[str, list[tuple[Recording, dict]]] = {}

    def of(self, variant: str, hw_id: str) -> dict:
        recording = self._recordings.get(hw_id)
        if recording is None:
            recording = self._recordings[hw_id] = Recording(self._ctx.hardware(hw_id))
        made = self._made.setdefault(variant, [])
        for earlier, found in reversed(made):
            if earlier.agrees(recording):
                return found
        # a Recording answers as the Hardware it wraps (synthesis/recording.py)
        found = pool_layouts(self._ctx, self._recipe, variant, recording)  # type: ignore[arg-type]
        made.append((recording, found))
        return found


def _published_plan(doc: dict | None, r: Rendering) -> dict | None:
    for entry in (doc or {}).get("renderings", ()):
        if (entry["variant"], entry["strategy"], entry["node_count"]) == r.key:
            return entry["plan"]
    return None


def standalone(ctx: Context, recipe: dict, r: Rendering) -> dict | None:
    """A one-rendering `pd_topology` part (`pd_topology_doc`'s shape) for `r`, keyed "r"."""
    tables = Tables(Table(), Table())
    plans = plan.RecipePlans(recipe)
    hw = ctx.hardware(r.hardware)
    choices = feature_choices(recipe, hw, r.variant, r.feature_strategy)
    locked = picker.features_locked(choices, r)
    shown = plan.rendering_plans(plans, r, ctx.profiles.get(r.hardware) or {}, choices, locked)
    entry = rendering_topology(ctx, recipe, r, plans, tables, shown)
    if entry is None:
        return None
    return {
        "texts": tables.texts.items,
        "heads": tables.heads.items,
        "labels": LABELS,
        "renderings": {"r": entry},
    }


# -- the page's join, in Python (tests hold static/pd.js's output and synthesis to it) ---------


class Joined(NamedTuple):
    """A topology as the page joins it from the part: per pool, every node's (exports, serve
    command, docker command); the router command; the plan the panel shows; the user variables."""

    prefill: list[tuple[str, str, str]]
    decode: list[tuple[str, str, str]]
    router: str
    plan: dict
    gpus: int
    nodes: int
    user_variables: list[str]


def _apply(base: list, changes: list) -> list:
    out = list(base)
    for i, x in changes:
        if i < len(out):
            out[i] = x
        else:
            out.append(x)
    return out


def joined(part: dict, key: str, prefill: int, decode: int, shown: dict) -> Joined:
    """Options `prefill` and `decode` (indices into each role's `options`) of rendering `key`,
    joined as pd.js joins them (`shown`: the rendering's published `plan`); the plan is the
    rendering's `plan` form: `default`, and `keys` and `by` when a feature state has its own."""
    entry, texts, heads = part["renderings"][key], part["texts"], part["heads"]
    got = {}
    for role, index in (("prefill", prefill), ("decode", decode)):
        o = entry[role]["options"][index]
        first = entry[role]["lead"] + o["procs"][0][1]
        nodes = []
        for k, (head, serve, _at, _n) in enumerate(o["procs"]):
            lines = [texts[i] for i in (first if k == 0 else _apply(first, serve))]
            exports, docker = heads[head]
            nodes.append(
                (
                    "".join(texts[i] + "\n" for i in exports),
                    SEP.join(lines),
                    SEP.join([texts[i] for i in docker] + lines[1:]),
                )
            )
        got[role] = (o, nodes)
    (po, pn), (do, dn) = got["prefill"], got["decode"]
    router = entry["router"]
    intra = router["intra"] or str(max(po.get("dp_local", 0), do.get("dp_local", 0), 1))
    lines = [texts[i] for i in router["head"] + po["ends"] + do["ends"]]
    lines += [texts[i].replace("{intra}", intra) for i in router["tail"]]
    pi, di = prefill // len(entry["prefill"]["modes"]), decode // len(entry["decode"]["modes"])
    gpus = entry["prefill"]["gpus"][pi] + entry["decode"]["gpus"][di]
    nodes = math.ceil(entry["prefill"]["used"][pi] + entry["decode"]["used"][di])

    def cleaned(p: dict) -> dict:
        p = {k: v for k, v in p.items() if v is not None and k not in ("gpus", "nodes")}
        return {"gpus": gpus, **({"nodes": nodes} if nodes != 1 else {}), **p}

    default = cleaned({**shown["default"], **do["plan"]})
    shown_plan: dict = {"default": default}
    if do.get("by"):
        shown_plan["keys"] = shown["keys"]
        shown_plan["by"] = {
            k: cleaned({**default, **entry["states"][k], **d}) for k, d in do["by"].items()
        }
    names = [texts[i] for i in po["vars"] + do["vars"] + router["fixed"]]
    return Joined(
        pn,
        dn,
        SEP.join(lines),
        shown_plan,
        gpus,
        nodes,
        list(dict.fromkeys(names)),
    )


def _common_start(lists: list[list]) -> list:
    """The longest list every one of `lists` starts with."""
    if not lists:
        return []
    out = []
    for column in zip(*lists):
        if any(x != column[0] for x in column):
            break
        out.append(column[0])
    return out


def _fixed_variables(r: Rendering) -> list[str]:
    """The router's own variables ($ROUTER_HOST, ...), which no pool command expands."""
    pools = set(_variables(tuple(r.processes)))
    return [v for v in user_variables(r) if v not in pools]
