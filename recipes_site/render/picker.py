"""What the model page's picker needs beyond the API renderings: for each rendering, where its
feature lines sit inside each command (so the page can swap them), the feature choices, the
`export` lines and the extra tabs (router, Mooncake).

These `parts` ride inside the API hardware documents (`api/v1/models/<org>/<repo>/hw/<hw>.json`,
one member per rendering plus document-level `feature_sets` and `extra_sets` tables that parts
refer to by index), so the page and CI read the same file. The page script only slices and joins:

    body      = rendering[path].split(" \\\n  ")            # path from parts.processes[i].path
    lines     = body[1:1+at] + <selected feature lines> + body[1+at+n:]
    serve     = body[0] + (lines ? " \\\n  " + lines.join(" \\\n  ") : "")
    docker    = docker_lines[:docker_at].join(" \\\n  ") + (lines ? " \\\n  " + lines.join(...) : "")

where docker_lines = rendering[docker_path].split(" \\\n  "). `features_locked` marks renderings
where toggling could not be done by joining (a toggleable flag also appears elsewhere); the
page then shows the command as rendered with the toggles fixed at their defaults.
"""

from __future__ import annotations

import functools
import json

from recipes_site import fit, gpu_counts, sizing
from recipes_site.distinct import DistinctTable
from recipes_site.jsish import mapping
from recipes_site.render.inputs import RecipeInput, hw_doc_path
from recipes_site.render.rendering_json import rendering_json
from recipes_site.site_root import url
from recipes_site.synthesis import Context
from recipes_site.synthesis.choices import (
    FeatureChoice,
    feature_choices,
    fixed_lines_free_of,
    toggle_flags,
)
from recipes_site.synthesis.recording import Recording
from recipes_site.synthesis.shell import SEP, export_lines, heredoc
from recipes_site.synthesis.types import Process, Rendering


def exports(env: dict) -> str:
    """The `export` lines of an environment (`shell.export_lines`)."""
    # Memo: a handful of environments recur across every rendering of a recipe (12,536 calls on
    # the compat corpus). The key holds each value's type, as `_unit_line` does, because a
    # Placeholder prints bare where an equal string is quoted (and 1, 1.0 and True are equal).
    if not env:
        return ""  # no lines (a quarter of the compat corpus's families): no key to build
    try:
        return _export_lines(tuple(env.items()), tuple(map(type, env.values())))
    except TypeError:  # an unhashable value (not from a validated recipe): no memo
        return export_lines(env)


@functools.lru_cache(maxsize=4096)
def _export_lines(items: tuple, _types: tuple) -> str:
    return export_lines(dict(items))


def _pool_text(pool) -> str:
    where = (
        "shares the node"
        if pool.nodes == 0
        else f"{pool.nodes} node{'s' if pool.nodes > 1 else ''}"
    )
    return f"{pool.parallelism.upper()}, {pool.pool_gpus} GPUs, {where}"


_MAIN_PATH: list[str | int] = ["command"]  # shared by every document, never changed
_MAIN_DOCKER_PATH: list[str | int] = ["docker_command"]


Path = list[str | int]  # keys into a rendering's JSON


def _processes(r: Rendering) -> list[tuple[str, str, Path, Path, Process]]:
    """(id, label, path of the command, path of the docker command, process) in tab order."""
    if r.single:
        return [("main", "vllm serve", _MAIN_PATH, _MAIN_DOCKER_PATH, r.single)]
    if r.head:
        head: list[tuple[str, str, Path, Path, Process]] = [
            ("head", "Head node (rank 0)", ["head_command"], ["head_docker_command"], r.head)
        ]
        return head + [
            (
                f"worker-{i}",
                f"Worker node (rank {i})",
                ["worker_commands", i - 1],
                ["worker_docker_commands", i - 1],
                w,
            )
            for i, w in enumerate(r.workers, 1)
        ]
    if r.prefill:
        assert r.decode is not None  # a disaggregated deployment has both pools
        pools: list[tuple[str, str, Path, Path, Process]] = []
        for role, pool in (("prefill", r.prefill), ("decode", r.decode)):
            name = role.capitalize()
            pools.append(
                (
                    role,
                    f"{name} pool ({_pool_text(pool)})",
                    [role, "command"],
                    [role, "docker_command"],
                    pool.process,
                )
            )
            pools += [  # the pool's other nodes (rendering_json `pool_workers`)
                (
                    f"{role}-{i}",
                    f"{name} node {i}",
                    ["pool_workers", role, i - 2, "command"],
                    ["pool_workers", role, i - 2, "docker_command"],
                    w,
                )
                for i, w in enumerate(pool.workers, 2)
            ]
        return pools
    assert r.kv is not None  # the one deployment type left
    out: list[tuple[str, str, Path, Path, Process]] = [
        (
            "instance",
            f"vLLM instance (x{r.kv.instances})",
            ["vllm_command"],
            ["vllm_docker_command"],
            r.kv.head,
        )
    ]
    return out + [
        (
            f"instance-worker-{i}",
            f"Instance worker node (rank {i})",
            ["vllm_worker_commands", i - 1],
            ["vllm_worker_docker_commands", i - 1],
            w,
        )
        for i, w in enumerate(r.kv.workers, 1)
    ]


def _kept(memo: dict, key, compute, limit: int):
    """`memo[key]`, from `compute()` when missing; a memo past `limit` entries starts afresh
    (bounded for a long `serve` session, whose vocabulary edits add entries)."""
    value = memo.get(key)
    if value is None:
        if len(memo) > limit:
            memo.clear()
        value = memo[key] = compute()
    return value


_HEREDOCS: dict[tuple, str] = {}


def _heredoc(path_var: str, config, note) -> str:
    """`shell.heredoc`, once per distinct config."""
    # Memo: every kv-store rendering writes one of a few vocabulary configs (4,428 heredocs on the
    # compat corpus), each an indent=2 dump in pure Python. Correct because the compact dump in the
    # key is the same walk of the config with other separators: equal keys, equal heredocs.
    key = (path_var, json.dumps(config), note or "")  # heredoc reads `note or ""`
    return _kept(_HEREDOCS, key, lambda: heredoc(path_var, config, note), 1024)


def _extras_key(r: Rendering) -> tuple:
    """All that `_extras` reads of a rendering, as JSON texts: equal keys, equal extra tabs."""
    if r.prefill:
        assert r.router is not None  # a disaggregated deployment has its router
        return ("pd", json.dumps(r.router.install))
    kv = r.kv
    if not kv:
        return ()
    return ("kv", kv.router is not None) + tuple(
        map(
            _dumped,
            (
                kv.install,
                kv.config,
                kv.config_note,
                kv.master,
                kv.store,
                kv.router and kv.router.install,
            ),
        )
    )


_DUMPED: dict[int, tuple[object, str]] = {}


def _dumped(value) -> str:
    """`json.dumps(value)`, once per object while one recipe is documented."""
    # Memo: the kv-store fields `_extras_key` reads are the vocabulary's own objects (from
    # ctx.strategies), the same ones in every kv-store rendering of a recipe (2,952 on the compat
    # corpus), and dumping the Mooncake configs for each key cost more than all other parts.
    # Keyed by identity: the entry holds the object, so no other object can take its id while
    # the entry lives; emptied after each recipe (clear_memos), so at most a few entries, and a
    # dict changed between two recipes (a `serve` reload builds new ones anyway) is dumped again.
    hit = _DUMPED.get(id(value))
    if hit is None or hit[0] is not value:
        hit = _DUMPED[id(value)] = (value, json.dumps(value))
    return hit[1]


_EXTRAS: dict[tuple, tuple[str, list]] = {}
_NO_EXTRAS: tuple[str, list] = (
    "[]",
    [],
)  # `_extras_entry` of a deployment without pools or kv-store: no tab


def _extras_entry(r: Rendering) -> tuple[str, list]:
    """(`_CANONICAL` text of `_extras(r)`, `_extras(r)`), once per distinct input; the tabs are
    shared by every document that lists them and never changed."""
    # Memo: every rendering's extra tabs are looked up in its document's table by their canonical
    # text, and a kv-store rendering's hold two heredocs (~2 KB) to encode; a few distinct inputs
    # recur across the catalog. Correct because `_extras_key` holds everything `_extras` reads.
    if not (r.prefill or r.kv):
        return _NO_EXTRAS  # `_extras` is [] (its text "[]"): no key to build and look up

    def compute():
        tabs = _extras(r)
        return _CANONICAL(tabs), tabs

    return _kept(_EXTRAS, _extras_key(r), compute, 1024)


def _extras(r: Rendering) -> list[dict]:
    """Extra tabs: text computed here, or a `path` into the rendering plus a `prefix`."""
    if r.prefill:
        assert r.router is not None  # a disaggregated deployment has its router
        return [
            {
                "id": "router",
                "label": "Router",
                "prefix": (r.router.install or "") + "\n",
                "path": ["router", "command"],
            }
        ]
    if not r.kv:
        return []
    kv = r.kv
    out: list[dict] = []
    if kv.install:
        out.append({"id": "install", "label": "Install", "text": kv.install})
    if kv.config:
        out.append(
            {
                "id": "mooncake-config",
                "label": "Mooncake config",
                "text": _heredoc("$MOONCAKE_CONFIG_PATH", kv.config, kv.config_note),
            }
        )
    if kv.master:
        out.append(
            {
                "id": "mooncake-master",
                "label": "Mooncake master",
                "prefix": "",
                "path": ["master", "command"],
            }
        )
    if kv.store:
        store = mapping(kv.store)
        prefix = (
            _heredoc("$MOONCAKE_STORE_CONFIG_PATH", store["config"], store.get("note")) + "\n"
            if store.get("config")
            else ""
        )
        out.append(
            {
                "id": "mooncake-store",
                "label": "Mooncake store",
                "prefix": prefix,
                "path": ["store", "command"],
            }
        )
    if kv.router:
        out.append(
            {
                "id": "router",
                "label": "Router",
                "prefix": (kv.router.install or "") + "\n",
                "path": ["router", "command"],
            }
        )
    return out


def _flag_value(argv: tuple, flag: str) -> str | None:
    for i, tok in enumerate(argv[:-1]):
        if tok == flag:
            return argv[i + 1]
    return None


def summary_line(
    r: Rendering,
    profile: dict,
    precision: str | None,
    plan: dict | None = None,
    name: str | None = None,
) -> str:
    """The card's header: the GPUs and nodes the deployment occupies and its layout, from the
    rendering's plan (plan.py) so it says what the command runs on, not what the profile has.
    `name`: the profile's `sizing.gpu_label`, when the caller has it."""
    if name is None:
        name = sizing.gpu_label(profile, r.hardware)
    per_node = profile.get("gpu_count") or 1
    if plan is not None:
        return _plan_summary(
            name,
            per_node,
            plan["gpus"],
            plan.get("nodes", 1),
            plan["tp"],
            plan.get("pp", 1),
            plan.get("dp", 1),
            plan.get("ep"),
            precision,
        )
    parts = [_gpus_text(name, per_node, per_node, r.node_count)]
    if (main := r.main_process) is not None:
        for flag, short in (
            ("--tensor-parallel-size", "TP"),
            ("--pipeline-parallel-size", "PP"),
            ("--data-parallel-size", "DP"),
        ):
            value = _flag_value(main.argv, flag)
            if value:
                parts.append(f"{short}={value}")
    return _joined(parts, precision)


# Memo: every card header of the hardware documents has a plan (8,997 on the compat corpus), and
# their layouts recur across renderings, recipes and hardware (897 distinct headers). The key is
# every value the header reads; typed, as 2 and 2.0 (or True and 1) are equal keys that print
# differently. Process-wide, bounded by maxsize.
@functools.lru_cache(maxsize=4096, typed=True)
def _plan_summary(name: str, per_node, gpus, nodes, tp, pp, dp, ep, precision) -> str:
    """`summary_line` of a plan: its GPUs and nodes, its layout (TP, PP and DP above 1, EP)."""
    parts = [_gpus_text(name, per_node, gpus, nodes), f"TP={tp}"]
    if pp > 1:
        parts.append(f"PP={pp}")
    if dp > 1:
        parts.append(f"DP={dp}")
    if ep:
        parts.append("EP")
    return _joined(parts, precision)


def _gpus_text(name: str, per_node, gpus, nodes) -> str:
    """The header's first part: the GPUs, and the nodes or the share of one node they occupy."""
    where = f" on {nodes} nodes" if nodes > 1 else (f" of {per_node}" if gpus < per_node else "")
    return f"{gpus}× {name}{where}"


def _joined(parts: list, precision: str | None) -> str:
    if precision:
        parts.append(precision.upper())
    return " · ".join(parts)


def feature_set_json(choices: tuple[FeatureChoice, ...]) -> list[dict]:
    return [
        {
            "name": c.name,
            "label": c.label,
            "description": c.description,
            "default": c.default,
            "modes": None
            if c.modes is None
            else [
                {
                    "name": m.name,
                    "label": m.label,
                    "description": m.description,
                    "lines": list(m.lines),
                }
                for m in c.modes
            ],
            "lines": None if c.lines is None else list(c.lines),
        }
        for c in choices
    ]


_CANONICAL = json.JSONEncoder(sort_keys=True).encode  # json.dumps(_, sort_keys=True), one encoder


class SharedParts:
    """Per hardware document of `rec` (all its renderings on hardware `hw`): distinct feature sets
    and extra-tab sets, a cache of choices, and what every card header of the document shares.

    Choices depend on the strategy only through features' `strategies` lists, and on the kv-store
    only through companions; the cache key leaves those out when no feature of the recipe has them."""

    def __init__(
        self, rec: RecipeInput, ctx: Context, hw: str, across: AcrossHardware | None = None
    ):
        # document-level lists of distinct values, known by their `_CANONICAL` texts
        self.feature_sets = DistinctTable()
        self.extra_sets = DistinctTable()
        self._choices: dict[tuple, tuple] = {}
        self._across = AcrossHardware(ctx) if across is None else across
        self._by_strategy, self._by_kv, self.precisions = self._across.recipe_reads(rec.data)
        self.profile = ctx.profiles.get(hw, {})
        self.gpu_name = sizing.gpu_label(self.profile, hw)

    def choices(self, rec: RecipeInput, ctx: Context, r: Rendering) -> tuple[tuple, int, str]:
        """The feature choices of a rendering of `rec`, their index in `feature_sets` and their
        feature set's `_CANONICAL` text (a complete key of the choices: every field is in it)."""
        strategy = r.feature_strategy
        key = (
            r.hardware,
            r.variant,
            strategy if self._by_strategy else "",
            r.kv is not None and self._by_kv,
        )
        hit = self._choices.get(key)
        if hit is None:
            choices, text, feature_set = self._across.choices(
                rec.data, r.hardware, r.variant, strategy, r.kv is not None
            )
            hit = self._choices[key] = (
                choices,
                self.feature_sets.index_by(text, lambda: feature_set),
                text,
            )
        return hit

    def parts(
        self,
        r: Rendering,
        plan: dict | None,
        processes: list,
        extras: tuple,
        feature_set: int,
        locked: bool,
    ) -> dict:
        """The picker's parts of `r` in this document (`processes`: its `_process_parts`, `extras`:
        its `_extras_entry`, whose tabs get their index in `extra_sets`)."""
        text, tabs = extras
        return {
            "summary": summary_line(
                r, self.profile, self.precisions.get(r.variant), plan, self.gpu_name
            ),
            "processes": processes,
            "extras": self.extra_sets.index_by(text, lambda: tabs),
            "features": feature_set,
            "features_locked": locked,
        }

    def shown(self, r: Rendering) -> Shown:
        """What `r`'s entry shares with its re-labelled copies on other hardware (`Shown`), made
        once per family (`Rendering.family`, a token the copies share) for all the documents of one
        recipe (`AcrossHardware`)."""
        key = r.family
        families = self._across.families
        found = families.get(key)
        if found is None:
            found = families[key] = Shown(r)
        return found

    def entry(
        self, r: Rendering, shown: Shown, plan: dict | None, locked: bool, feature_set: int
    ) -> dict:
        """The entry of a rendering of this document but its `plan` (`rendering_json` and
        `rendering_parts`, what they take from the rendering alone from its family's `shown`)."""
        doc = shown.json.copy()
        doc["hardware"] = r.hardware  # first of the fields, as in rendering_json
        doc["parts"] = self.parts(r, plan, shown.processes_parts, shown.extras, feature_set, locked)
        return doc


class AcrossHardware:
    """What the hardware documents of one recipe share (render/api.py makes one per recipe, so
    nothing outlives it): `Shown` per family of re-labelled renderings, and feature choices per
    variant, strategy and kv-store use, reused across the profiles that answer alike."""

    def __init__(self, ctx: Context):
        self._ctx = ctx
        self.families: dict[object, Shown] = {}  # Rendering.family -> Shown
        self._recordings: dict[str, Recording] = {}
        self._made: dict[tuple, list] = {}
        self._recipe_reads: tuple | None = None

    def recipe_reads(self, recipe: dict) -> tuple[bool, bool, dict]:
        """What every `SharedParts` of `recipe` reads of the recipe alone, worked out once for its
        hardware documents (8 per recipe on the compat corpus): whether some feature has a
        `strategies` list, whether some feature has a companion command, and each variant's
        precision. Kept with the recipe it was read from (the entry holds it)."""
        found = self._recipe_reads
        if found is None or found[0] is not recipe:
            features = [f for f in mapping(recipe.get("features")).values() if isinstance(f, dict)]
            found = self._recipe_reads = (
                recipe,
                any(f.get("strategies") for f in features),
                any(mapping(f.get("companion")).get("command") for f in features),
                {
                    key: mapping(v).get("precision")
                    for key, v in mapping(recipe.get("variants")).items()
                },
            )
        return found[1:]

    def choices(
        self, recipe: dict, hw: str, variant: str, strategy: str, with_kv_store: bool
    ) -> tuple[tuple, str, list]:
        """`_interned(feature_choices(...))` on the profile `hw`. Choices are asked on every
        hardware of a variant (1,563 times on the compat corpus, 90 distinct values), and most
        profiles answer every question they ask of the hardware alike: as synthesis does
        (synthesis/recording.py), each profile is asked through one Recording for the whole
        recipe, and a profile takes the choices made on an earlier one when it answers every
        question noted there the same way. The record of a profile covers the per-recipe memos
        the choices read (synthesis/memo.py, keyed by its label): they were made under it."""
        recording = self._recordings.get(hw)
        if recording is None:
            recording = self._recordings[hw] = Recording(self._ctx.hardware(hw))
        made = self._made.setdefault((variant, strategy, with_kv_store), [])
        for earlier, found in reversed(made):
            if earlier.agrees(recording):
                return found
        found = _interned(
            # a Recording answers as the Hardware it wraps (synthesis/recording.py)
            feature_choices(recipe, recording, variant, strategy, with_kv_store=with_kv_store)  # type: ignore[arg-type]
        )
        made.append((recording, found))
        return found


class Shown:
    """What an entry of the hardware documents takes from its rendering alone, not from the
    profile: a rendering re-labelled for other hardware (synthesis/recording.py; ~half of the compat
    corpus's 8,997 entries) shares it with the first of its family. Its `rendering_json` but the
    `hardware`, its processes and their `_split`s, the `processes` and extra tabs of its parts, and
    `features_locked` per feature set (which reads the choices, whole in their text, and the
    processes' lines). Its dicts and lists are shared by the documents and never changed. `plans`:
    the family's memo of what its plans read of the rendering alone (plan.rendering_plans)."""

    __slots__ = (
        "rendering",
        "processes",
        "splits",
        "json",
        "processes_parts",
        "extras",
        "_locks",
        "plans",
    )

    def __init__(self, r: Rendering):
        self.rendering = r
        procs = self.processes = r.processes
        splits = self.splits = [_split(p) for p in procs]
        self.json = rendering_json(r)
        self.processes_parts = _process_parts(r, splits)
        self.extras = _extras_entry(r)
        self._locks: dict[str, bool] = {}
        self.plans: dict = {}

    def locked(self, choices: tuple, text: str) -> bool:
        """`features_locked` of the rendering's `choices` (`text`: their feature-set text)."""
        found = self._locks.get(text)
        if found is None:
            found = self._locks[text] = _locked(choices, text, self.processes, self.splits)
        return found


_CHOICES: dict[tuple, tuple[tuple, str, list]] = {}


def _interned(choices: tuple) -> tuple[tuple, str, list]:
    """The one copy of equal feature choices, the `_CANONICAL` text of their feature set and the
    feature set (shared by the documents that list it, never changed)."""

    # Memo: equal choices recur on every hardware of a recipe; one copy makes the memos keyed on
    # choices (plan._memory_states) compare them by identity, not field by field.
    # Correct because choices are frozen values: equal ones are interchangeable.
    def intern():
        feature_set = feature_set_json(choices)
        return choices, _CANONICAL(feature_set), feature_set

    return _kept(_CHOICES, choices, intern, 4096)


def features_locked(choices, r: Rendering, text: str | None = None) -> bool:
    """Whether the feature toggles of a rendering cannot be joined into its commands (`text`: the
    choices' feature-set text, when the caller has it from `SharedParts.choices`)."""
    procs = r.processes
    if text is None:
        text = _CANONICAL(feature_set_json(choices))
    return _locked(choices, text, procs, [_split(p) for p in procs])


_EXACT: dict[tuple, bool] = {}


def _locked(choices: tuple, text: str, procs: tuple, splits: list) -> bool:
    """`features_locked`, given the processes (`Rendering.processes`) and their `_split`s."""
    if any(split is None for split in splits):
        return True
    # Memo: the same choices and argument lines recur on every hardware and strategy that renders
    # them (8,997 renderings on the compat corpus); the key holds all that `toggles_are_exact`
    # reads (the choices, whole in their feature-set text; the processes' fixed lines).
    key = (text, tuple([(p.lines_before, p.lines_after) for p in procs]))
    return not _kept(_EXACT, key, lambda: _exact(choices, text, procs), 16384)


def _exact(choices: tuple, text: str, procs: tuple) -> bool:
    """`toggles_are_exact(choices, procs)`, its choices' half (`toggle_flags`) worked out once per
    feature set (`_toggle_flags`), its processes' half (`fixed_lines_free_of`) per call."""
    flags = _toggle_flags(choices, text)
    return flags is not None and fixed_lines_free_of(procs, flags)


_TOGGLES: dict[str, frozenset | None] = {}


def _toggle_flags(choices: tuple, text: str) -> frozenset | None:
    """`toggle_flags(choices)`, kept by the feature set's text."""
    # Memo: one feature set recurs with many processes (1,397 `_exact` calls and 71 feature sets
    # on the compat corpus); keyed by its text, which holds every line; emptied with the recipe.
    if text not in _TOGGLES:
        _TOGGLES[text] = toggle_flags(choices)
    return _TOGGLES[text]


def clear_memos() -> None:
    """Forget the memos keyed on one recipe's commands and choices (render/api.py, after each
    recipe); those of environments, heredocs and extra tabs recur across recipes and stay."""
    _EXACT.clear()
    _TOGGLES.clear()
    _CHOICES.clear()
    _DUMPED.clear()


def _split(p: Process) -> dict | None:
    """Where the feature block sits in the command and where the docker head ends (callers copy
    the dict, never change it: `Shown` shares it with its parts)."""
    # No memo: `Shown` splits once per family of re-labelled renderings, and an lru keyed on both
    # commands hashed each ~1-3 KB text for the first time (4,358 misses for 577 hits on the
    # compat corpus): splitting again costs less than the keys did.
    return _split_lines(p.command, p.docker_command, p.lines_before, p.lines_after)


def _split_lines(command: str, docker_command: str, before: tuple, after: tuple) -> dict | None:
    # What splitting both commands into lists and comparing them gives (tests/test_picker.py
    # holds it to that plain form), with slices, a count and an end compare instead of lists.
    body = command.split(SEP)
    lines = len(body) - 1  # the argument lines, after the command's first line
    at = len(before)
    n = lines - at - len(after)  # the feature block's lines
    if (
        n < 0
        or (before and tuple(body[1 : 1 + at]) != before)
        or (after and tuple(body[1 + at + n :]) != after)
    ):
        return None
    docker_at = docker_command.count(SEP) + 1 - lines
    if lines and not _ends_in_lines(docker_command, command[len(body[0]) :], docker_at):
        return None
    return {"at": at, "n": n, "docker_at": docker_at}


def _ends_in_lines(docker_command: str, lines: str, docker_at: int) -> bool:
    """Whether the last pieces of `docker_command.split(SEP)`, from `docker_at` on (its count of
    pieces less the argument lines'), are the argument lines of the command (`lines`: the command
    from its first SEP on), without splitting the docker command into lists to compare them."""
    if docker_at <= 0:
        return docker_at == 0 and SEP + docker_command == lines
    if not docker_command.endswith(lines):
        return False
    # The docker command is then `head + lines`; it splits as `head` and then as the command does,
    # unless a SEP straddles the boundary. SEP's only overlap with itself is its first and last
    # space, so that needs `head` to end in SEP's first four characters: split for that rare case.
    if not docker_command.endswith(SEP[:4], 0, len(docker_command) - len(lines)):
        return True
    return docker_command.split(SEP)[docker_at:] == lines[len(SEP) :].split(SEP)


_NO_SPLIT = {"at": 0, "n": 0, "docker_at": 0}


def rendering_parts(
    r: Rendering,
    shared: SharedParts,
    plan: dict | None,
    locked: bool,
    splits: list,
    feature_set: int,
) -> dict:
    """The picker's parts of a rendering; `locked` is `features_locked` of its choices (which
    already requires every process to `_split`), `splits` its processes' `_split`s (in
    `Rendering.processes` order, which is `_processes`' order), `feature_set` the index of its
    choices (`SharedParts.choices`). The documents build the same parts by `SharedParts.entry`,
    from what a family of re-labelled renderings shares; this plain form is what tests hold
    them to."""
    return shared.parts(r, plan, _process_parts(r, splits), _extras_entry(r), feature_set, locked)


def _process_parts(r: Rendering, splits: list) -> list[dict]:
    """The `processes` of a rendering's parts (`splits`: as `rendering_parts` takes them)."""
    parts = []
    shared_env = r.single or r.head or r.kv  # one environment for all processes, else each pool's
    env_text = exports(r.env) if shared_env else None
    for (pid, label, path, docker_path, p), split in zip(_processes(r), splits):
        parts.append(
            {
                "id": pid,
                "label": label,
                "path": path,
                "docker_path": docker_path,
                "exports": env_text if shared_env else exports(p.env),
                **(split or _NO_SPLIT),
            }
        )
    return parts


# -- the page's embedded summary ----------------------------------------------------------------


def variant_weights_gib(recipe: dict, key: str) -> float | None:
    """A variant's weights in GiB as every plan of it counts them (`fit.model_facts`, the figure
    `plan.py` starts from), None when unknown."""
    weights = fit.model_facts(recipe, key).weights_bytes
    return weights / fit.GIB if weights else None


def variant_labels(recipe: dict) -> dict[str, str]:
    """Every variant's label (pill, hardware and provider pages): its `label`, else its precision,
    then its weights in GiB (`variant_weights_gib`: the unit and figure of every plan;
    `vram_minimum_gb` is decimal GB with the 1.2 runtime factor, which the plans divide out).
    Variants whose label would differ only by size, or not at all, are told apart by their
    checkpoint's name (its full id, or the variant key, where names are shared too)."""
    variants = {k: mapping(v) for k, v in mapping(recipe.get("variants")).items()}
    default_id = mapping(recipe.get("model")).get("model_id") or ""
    heads = {
        k: str(v.get("label") or (v.get("precision") or k).upper()) for k, v in variants.items()
    }
    by_head: dict[str, list[str]] = {}
    for k, h in heads.items():
        by_head.setdefault(h, []).append(k)
    tag: dict[str, str] = {}  # what tells a variant apart from others of its head, once per head
    for alike in by_head.values():
        if len(alike) < 2:
            continue
        ids = {k: str(variants[k].get("model_id") or default_id) for k in alike}
        names = {k: i.rsplit("/", 1)[-1] for k, i in ids.items()}
        for tags in (names, ids):
            if len(set(tags.values())) == len(alike):
                tag.update(tags)
                break
        else:
            tag.update({k: k for k in alike})
    out = {}
    for key, v in variants.items():
        head = heads[key] + (f" · {tag[key]}" if key in tag else "")
        weights = None if v.get("label") else variant_weights_gib(recipe, key)
        out[key] = f"{head} · {weights:.0f} GiB" if weights else head
    return out


def picker_summary(rec: RecipeInput, ctx: Context, initial: dict | None) -> dict:
    """Everything the model page embeds: variants, hardware, strategies, sizing, and the API
    hardware document of the default hardware (`initial`), so the first view needs no fetch."""
    variants = mapping(rec.data.get("variants"))
    declared = mapping(mapping(rec.data.get("meta")).get("hardware"))
    labels = variant_labels(rec.data)
    trees = {}
    for tree in rec.rendered.trees:
        v = mapping(variants.get(tree.variant))
        trees[tree.variant] = {
            "label": labels.get(tree.variant, tree.variant),
            # the full window the plans measure a served length against (fit.model_facts)
            "context_length": fit.model_facts(rec.data, tree.variant).context_length,
            "precision": v.get("precision"),
            "vram_gb": v.get("vram_minimum_gb"),
            "model_id": tree.model_id,
            "description": v.get("description") or "",
            "default_hardware": tree.default_hardware,
            "hardware": [res.hardware for res in tree.by_hardware],
        }
    hardware = {
        hw_id: {
            "label": p.get("display_name") or hw_id,
            "gpu": sizing.gpu_label(p, hw_id),
            "brand": p.get("brand"),
            "gpu_count": p.get("gpu_count"),
            # the memory the GPU reports, which every plan's budget is a share of (fit.gpu_memory)
            "vram_per_gpu_gb": round(fit.gpu_memory(p).total_gib, 2),
            "verified": declared.get(hw_id) == "verified",
        }
        for hw_id, p in ctx.profiles.items()
    }
    offered = {
        r.strategy
        for tree in rec.rendered.trees
        for res in tree.by_hardware
        for r in (res.recommended, *res.alternatives)
    }
    strategies = {  # those the recipe renders: the page's strategy pills name no other
        sid: {
            "label": spec.get("display_name") or sid,
            "deploy_type": spec.get("deploy_type"),
            "orientation": spec.get("orientation"),
        }
        for sid, spec in ctx.strategies.items()
        if sid in offered
    }
    first = rec.rendered.trees[0] if rec.rendered.trees else None
    default = {"variant": first.variant, "hardware": first.default_hardware} if first else None
    return {
        "id": rec.hf_id,
        "api_url": url("/" + hw_doc_path(rec.hf_id, "{hw}")),
        "tp_line": gpu_counts.TP_LINE,  # a GPU-count layout's TP line (site.js `layoutLines`)
        "default": default,
        "variants": trees,
        "hardware": hardware,
        "strategies": strategies,
        "initial": initial,
    }


# what the page never reads of a rendering (the API keeps them for CI)
_PAGE_DROPS = frozenset({"argv", "docker_argv"})


def page_document(doc: dict, variant: str) -> dict:
    """The default hardware's document as the model page embeds it (`picker_summary`'s `initial`,
    marked `partial`): the recommended rendering of `variant` whole but for what the page never
    reads; every other rendering a stub (`stub`, and what the strategy and node pills read: its
    variant, strategy, node count and footprint) that the page fetches the whole document for
    when the reader picks it; the feature and extra-tab sets the whole rendering does not use
    null (indices stay valid), and only the replica sets of its GPU counts. Keeps a model page light: the other renderings were ~2/3 of it."""
    want = doc["recommended"].get(variant) or {}
    key = (want.get("variant"), want.get("strategy"), want.get("node_count"))
    renderings, features, extras, replica_sets = [], set(), set(), set()
    for r in doc["renderings"]:
        if (r["variant"], r["strategy"], r["node_count"]) == key:
            renderings.append({k: v for k, v in r.items() if k not in _PAGE_DROPS})
            features.add(r["parts"]["features"])
            extras.add(r["parts"]["extras"])
            counts = (r.get("gpus") or {}).get("counts", {}).values()
            replica_sets |= {str(c["tensor_parallel_size"]) for c in counts if c["replicas"] > 1}
            continue
        footprint = r["plan"]["default"]
        renderings.append(
            {
                "variant": r["variant"],
                "strategy": r["strategy"],
                "node_count": r["node_count"],
                "stub": True,
                "plan": {"default": {k: footprint[k] for k in ("gpus", "nodes") if k in footprint}},
            }
        )
    # host_memory: for CI (render/host_memory_api.py); the page reads picker-options.json's
    out = {k: v for k, v in doc.items() if k not in ("hardware_profile", "host_memory")}
    if "gpu_replicas" in doc:  # the replica sets the shown rendering's GPU counts use
        out["gpu_replicas"] = {t: x for t, x in doc["gpu_replicas"].items() if t in replica_sets}
    out.update(
        partial=True,
        renderings=renderings,
        feature_sets=[x if i in features else None for i, x in enumerate(doc["feature_sets"])],
        extra_sets=[x if i in extras else None for i, x in enumerate(doc["extra_sets"])],
    )
    return out
