"""Contributor checks: the rules a recipe pull request must pass beyond the schema and the
cross-file references, so that `recipes-site validate --strict` is the one check a contributor
runs: a scaffold full of TODOs, a misspelt flag or a guide without references is no "0 errors".

One function per rule, each ``(LintSubject) -> list[Diagnostic]``; ``LINT_RULES`` lists them and
``lint_recipe`` runs them on one recipe. The rules:

* ``check_vllm_flags`` / ``check_vllm_env``: every flag of every argument list is a `vllm serve`
  option and every ``VLLM_*`` variable one vLLM reads (``recipes_site/data/vllm_flags.json``,
  generated from a vLLM release by ``scripts/vllm_flags.py``), with a did-you-mean;
* ``check_guide``: the seven ``## `` sections in order, a ``vllm bench serve`` run, memory in
  Troubleshooting, links under References, every variant's checkpoint named;
* ``check_verified_source``: ``verified`` hardware needs a comment right above ``meta.hardware``
  naming who ran it;
* ``check_placeholders``: no ``TODO`` / ``FIXME`` left (values and comments: `recipes-site new`
  writes TODOs in both);
* ``check_missing_facts``: ``vram_minimum_gb: 0``, no ``architecture``, ``context_length`` or
  ``parameter_count`` (sizing and the page need them).

Severity is the caller's: ``lint_level(root, strict)`` makes them errors under ``--strict`` on a
*project root* and warnings everywhere else. A project root is a recipes root that holds the
marker file ``.recipes-site-project`` (this repository does), or this repository's own root;
any other root (the public compat corpus, a folder of someone else's recipes) is *foreign*: its
authors did not sign up for our house rules, so it still validates with 0 errors and builds.
"""

from __future__ import annotations

import bisect
import os
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from recipes_site import sizing
from recipes_site.catalog.diagnostics import Diagnostic, Level, excerpt, format_key_path
from recipes_site.catalog.documents import PROJECT_ROOT, RecipeDoc
from recipes_site.catalog.shell_rules import ARG_KEYS, ENV_KEYS
from recipes_site.data import base_flag, vllm_flags
from recipes_site.suggest import closest

PROJECT_MARKER = ".recipes-site-project"

# The guide's shape (CONTRIBUTING section 1): a reader finds the same things in the same place on
# every model page.
GUIDE_SECTIONS = (
    "Overview",
    "Prerequisites",
    "Launch",
    "Client usage",
    "Benchmarking",
    "Troubleshooting",
    "References",
)
_MEMORY = re.compile(r"memory|KV cache|OOM|--max-model-len|--gpu-memory-utilization", re.I)
_HEADING = re.compile(r"^## +(.+?)\s*$", re.M)
_LINK = re.compile(r"https://")
_PLACEHOLDER = re.compile(r"\b(TODO|FIXME)\b")
# YAML's line breaks (str.splitlines also splits at \f, \u2028, ...)
_LINE_BREAK = re.compile(r"\r\n?|\n")
# Keys whose lists are `vllm serve` arguments, and keys whose maps are environments (types.py: Args,
# EnvMap): shell_rules.ARG_KEYS / ENV_KEYS. `omni` tasks run vllm-omni, whose options are not in the vLLM list.
_SKIP_SUBTREES = frozenset({"omni"})
# did-you-mean lookups per rule and recipe: each costs a difflib pass over a few hundred names,
# so a hostile recipe with thousands of made-up flags stays linear with a small constant
_SUGGESTIONS = 50


# ---- project vs foreign roots ---------------------------------------------------------------------


def is_project_root(root) -> bool:
    """True for a recipes root that follows this project's contributor rules: it holds the
    ``.recipes-site-project`` marker file, or it is this repository's own root."""
    root = Path(root)
    if (root / PROJECT_MARKER).is_file():
        return True
    try:
        return os.path.samefile(root, PROJECT_ROOT)
    except OSError:
        return False


def lint_level(root, strict: bool) -> Level:
    """Errors under ``--strict`` on a project root; warnings otherwise (so `build` never fails on
    them, and foreign roots such as the compat corpus keep 0 errors)."""
    return Level.ERROR if strict and is_project_root(root) else Level.WARNING


# ---- the vLLM vocabulary ----------------------------------------------------------------------------


@dataclass(frozen=True)
class VllmVocabulary:
    """Flag and environment names of one vLLM release, indexed once per process."""

    version: str
    flags: frozenset
    env: frozenset
    flag_list: tuple  # sorted, for did-you-mean
    env_list: tuple

    def unknown_flag(self, token: str) -> str | None:
        """The option ``token`` names when `vllm serve` does not know it; None for known options
        and for values."""
        flag = base_flag(token)
        return flag if flag is not None and flag not in self.flags else None

    def unknown_env(self, name: Any) -> bool:
        return isinstance(name, str) and name.startswith("VLLM_") and name not in self.env

    def flag_hint(self, flag: str, *, suggest: bool = True) -> str:
        match = _closest(flag, self.flag_list, 0.75) if suggest else None
        return (
            f"did you mean '{match}'?"
            if match
            else f"see `vllm serve --help` (vLLM {self.version}); recipes_site/data/vllm_flags.json lists them"
        )

    def env_hint(self, name: str, *, suggest: bool = True) -> str:
        match = _closest(name, self.env_list, 0.75) if suggest else None
        return (
            f"did you mean '{match}'?"
            if match
            else f"vllm/envs.py of vLLM {self.version} lists the variables it reads; remove this one"
        )


@lru_cache(maxsize=1024)
def _closest(word: str, choices: tuple, cutoff: float) -> str | None:
    """suggest.closest, once per distinct question: the same stale variable or flag recurs in
    every variant of every recipe, and each answer is a difflib pass over hundreds of names."""
    return closest(word, choices, cutoff)


@lru_cache(maxsize=1)
def vocabulary() -> VllmVocabulary:
    data = vllm_flags()
    return VllmVocabulary(
        str(data.get("vllm_version", "?")),
        frozenset(data["flags"]),
        frozenset(data["env"]),
        tuple(sorted(data["flags"])),
        tuple(sorted(data["env"])),
    )


# ---- what a rule sees -------------------------------------------------------------------------------


class VllmBlocks(NamedTuple):
    """The argument lists and environment maps of a recipe, as (key path, value) in document order."""

    args: list
    env: list


@dataclass(frozen=True)
class LintSubject:
    """One recipe, its source lines (comments matter to two rules) and the level to report at."""

    doc: RecipeDoc
    text: str
    lines: tuple
    level: Level

    @cached_property
    def vllm_blocks(self) -> VllmBlocks:
        """What check_vllm_flags and check_vllm_env read, found in one walk of the recipe."""
        return _vllm_blocks(self.doc.data)

    def at(
        self,
        path: tuple,
        message: str,
        hint: str = "",
        *,
        at_key: bool = False,
        line: int = 0,
        col: int = 0,
    ) -> Diagnostic:
        """A diagnostic at ``path`` (its source position, unless ``line`` is given)."""
        if not line:
            line, col = self.doc.position(tuple(path), at_key=at_key)
        return Diagnostic(
            self.doc.display_path,
            line,
            col,
            self.level,
            format_key_path(tuple(path)),
            message,
            hint,
        )


def subject(doc: RecipeDoc, level: Level = Level.ERROR, text: str | None = None) -> LintSubject:
    if text is None:
        try:
            text = doc.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = ""
    # the regex splits at \r too; without one, str.split gives the same lines faster
    lines = text.split("\n") if "\r" not in text else _LINE_BREAK.split(text)
    return LintSubject(doc, text, tuple(lines), level)


def _map(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _excerpt(text: str) -> str:
    return excerpt(text.strip())


# ---- the rules ---------------------------------------------------------------------------------------


def runs_vllm_omni(data: dict) -> bool:
    """Recipes of the `omni` task run vLLM-Omni, whose options and ``VLLM_OMNI_*`` variables the
    vLLM list does not hold (e.g. `--usp`, `--vae-patch-parallel-size` in the public corpus)."""
    tasks = _map(data.get("meta")).get("tasks")
    return isinstance(tasks, list) and "omni" in tasks


def _vllm_blocks(data: dict) -> VllmBlocks:
    """Every argument list (ARG_KEYS) and environment map (ENV_KEYS) of a recipe vLLM itself
    serves, at any depth outside the skipped subtrees; none for a vLLM-Omni recipe."""
    blocks = VllmBlocks([], [])
    if runs_vllm_omni(data):
        return blocks

    def walk(node: Any, path: tuple) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if not path and key in _SKIP_SUBTREES:
                    continue
                at = path + (key,)
                if key in ARG_KEYS and isinstance(value, list):
                    blocks.args.append((at, value))
                if key in ENV_KEYS and isinstance(value, dict):
                    blocks.env.append((at, value))
                if isinstance(value, (dict, list)):
                    walk(value, at)
        else:
            for i, value in enumerate(node):
                if isinstance(value, (dict, list)):
                    walk(value, path + (i,))

    walk(data, ())
    return blocks


def check_vllm_flags(s: LintSubject) -> list[Diagnostic]:
    """Every option token of every argument list is a `vllm serve` option of the recorded release
    (a misspelt flag makes vLLM refuse to start, after the user has downloaded the weights)."""
    vocab = vocabulary()
    out: list[Diagnostic] = []
    for path, value in s.vllm_blocks.args:
        for i, item in enumerate(value):
            if not isinstance(item, str) or not item.strip():
                continue
            # "--flag value" written as one item: the flag is the first word
            token = item.split()[0]
            flag = vocab.unknown_flag(token)
            if flag:
                out.append(
                    s.at(
                        path + (i,),
                        f"'{_excerpt(flag)}' is not a `vllm serve` option "
                        f"(vLLM {vocab.version}); expected a flag from recipes_site/data/vllm_flags.json",
                        vocab.flag_hint(flag, suggest=len(out) < _SUGGESTIONS),
                    )
                )
    return out


def check_vllm_env(s: LintSubject) -> list[Diagnostic]:
    """Every ``VLLM_*`` variable an environment block sets is one vLLM reads (setting any other
    does nothing, silently)."""
    vocab = vocabulary()
    out: list[Diagnostic] = []
    for path, value in s.vllm_blocks.env:
        for name in value:
            if vocab.unknown_env(name):
                out.append(
                    s.at(
                        path + (name,),
                        f"'{_excerpt(name)}' is not an environment variable vLLM "
                        f"{vocab.version} reads; expected a name from recipes_site/data/vllm_flags.json",
                        vocab.env_hint(name, suggest=len(out) < _SUGGESTIONS),
                        at_key=True,
                    )
                )
    return out


def heading_matches(guide: str) -> list[re.Match]:
    """``list(_HEADING.finditer(guide))``, trying the pattern only where a line starts with
    ``## ``: a match can only start there, and never runs over the next such line (past a line
    break it takes only whitespace). Why: the guides are most of a recipe's text, and a regex
    scan from every character of them is a noticeable part of a validate."""
    starts = [0] if guide.startswith("## ") else []
    at = guide.find("\n## ")
    while at != -1:
        starts.append(at + 1)
        at = guide.find("\n## ", at + 1)
    return [match for start in starts if (match := _HEADING.match(guide, start))]


def guide_sections(guide: str, matches: list[re.Match] | None = None) -> dict[str, str]:
    """``## `` heading -> its text (up to the next ``## ``); a repeated heading keeps the last.
    (``matches``: the guide's heading_matches, if known.)"""
    if matches is None:
        matches = heading_matches(guide)
    ends = [m.start() for m in matches[1:]] + [len(guide)]
    return {m.group(1): guide[m.end() : end] for m, end in zip(matches, ends)}


_SOURCE_HEADING = re.compile(r"^\s*## +(.+?)\s*$")


def _heading_lines(s: LintSubject) -> dict[str, int]:
    """Source line of each ``## `` heading from the guide key on (its first occurrence), in one
    pass over the file; a guide written as a quoted string has none (its key's line is used)."""
    start = s.doc.position(("guide",), at_key=True)[0]
    lines: dict[str, int] = {}
    for number in range(max(start, 1), len(s.lines) + 1):
        line = s.lines[number - 1]
        match = _SOURCE_HEADING.match(line) if "## " in line else None  # a heading holds "## "
        if match:
            lines.setdefault(match.group(1), number)
    return lines


def check_guide(s: LintSubject) -> list[Diagnostic]:
    """The guide has the catalog's shape (GUIDE_SECTIONS, in order), benchmarks with `vllm bench
    serve`, covers memory in Troubleshooting, links its sources and names every checkpoint."""
    data = s.doc.data
    guide = data.get("guide")
    wanted = ", ".join(GUIDE_SECTIONS)
    if not isinstance(guide, str) or not guide.strip():
        return [
            s.at(
                ("guide",) if "guide" in data else (),
                "the recipe has no guide",
                f"write `guide: |` with the `## ` sections {wanted} (CONTRIBUTING section 1)",
                at_key=True,
            )
        ]
    out = []
    heading_lines = _heading_lines(s)

    def at_heading(name: str, message: str, hint: str) -> None:
        line = heading_lines.get(name, 0)
        out.append(
            s.at(("guide",), message, hint, at_key=not line, line=line, col=1 if line else 0)
        )

    matches = heading_matches(guide)
    found = [m.group(1) for m in matches]
    counts = Counter(found)
    for name, count in counts.items():
        if count > 1:
            at_heading(
                name,
                f"guide section '## {_excerpt(name)}' appears {count} times",
                "merge them into one",
            )
    for name in dict.fromkeys(found):
        if name not in GUIDE_SECTIONS:
            close = _closest(name, GUIDE_SECTIONS, 0.6) if len(out) < _SUGGESTIONS else None
            at_heading(
                name,
                f"guide section '## {_excerpt(name)}' is not one of the catalog's sections",
                f"did you mean '## {close}'?" if close else f"the sections are, in order: {wanted}",
            )
    missing = [name for name in GUIDE_SECTIONS if name not in found]
    if missing:
        out.append(
            s.at(
                ("guide",),
                "the guide has no "
                + ", ".join(f"'## {n}'" for n in missing)
                + (" section" if len(missing) == 1 else " sections"),
                f"the sections are, in order: {wanted}",
                at_key=True,
            )
        )
    ours = [n for n in dict.fromkeys(found) if n in GUIDE_SECTIONS]
    if ours != [n for n in GUIDE_SECTIONS if n in ours]:
        out.append(
            s.at(
                ("guide",),
                f"guide sections out of order: {', '.join(ours)}",
                f"expected {wanted}",
                at_key=True,
            )
        )

    sections = guide_sections(guide, matches)
    if "Benchmarking" in sections and "vllm bench serve" not in sections["Benchmarking"]:
        at_heading(
            "Benchmarking",
            "Benchmarking has no `vllm bench serve` command",
            "show a `vllm bench serve` run with input and output lengths like real traffic",
        )
    if "Troubleshooting" in sections and not _MEMORY.search(sections["Troubleshooting"]):
        at_heading(
            "Troubleshooting",
            "Troubleshooting says nothing about memory",
            "cover the memory fixes first: KV cache, --max-model-len, --gpu-memory-utilization",
        )
    if "References" in sections and not _LINK.search(sections["References"]):
        at_heading(
            "References",
            "References has no https:// link",
            "link the model card and every source the recipe relies on",
        )
    for key, variant in _map(data.get("variants")).items():
        repo = _map(variant).get("model_id")
        if isinstance(repo, str) and repo and repo not in guide:
            out.append(
                s.at(
                    ("variants", key, "model_id"),
                    f"variant '{key}' downloads {_excerpt(repo)}, which the guide does not name",
                    f"link https://huggingface.co/{_excerpt(repo)} under ## References",
                )
            )
    return out


def check_verified_source(s: LintSubject) -> list[Diagnostic]:
    """`verified` in meta.hardware claims someone ran the recipe there: a comment right above
    `hardware:` must name who (you, or a source linked under References)."""
    hardware = _map(_map(s.doc.data.get("meta")).get("hardware"))
    claims = [hw for hw, status in hardware.items() if status == "verified"]
    if not claims:
        return []
    line, _ = s.doc.position(("meta", "hardware"), at_key=True)
    above = s.lines[line - 2].strip() if 1 < line <= len(s.lines) + 1 else ""
    if above.startswith("#"):
        return []
    return [
        s.at(
            ("meta", "hardware"),
            f"verified on {', '.join(map(str, claims))} without a source: "
            "expected a comment right above `hardware:` naming who ran it",
            "e.g. `# Runs reported by the vLLM project's recipe (linked under References).`; "
            "otherwise write `supported`",
            at_key=True,
        )
    ]


def _key_index(doc: RecipeDoc) -> tuple[list, list]:
    """Key positions sorted by (line, col), and their paths: the key a source position belongs to."""
    items = sorted((pos, path) for path, pos in doc.key_positions.items() if pos[0] > 0)
    return [pos for pos, _ in items], [path for _, path in items]


def check_placeholders(s: LintSubject) -> list[Diagnostic]:
    """No TODO/FIXME left, in values or comments (`recipes-site new` marks what to fill with them;
    each names what is missing)."""
    out: list[Diagnostic] = []
    if "TODO" not in s.text and "FIXME" not in s.text:  # most files: no regex over every line
        return out
    positions, paths = _key_index(s.doc)
    for number, line in enumerate(s.lines, 1):
        match = _PLACEHOLDER.search(line)
        if not match:
            continue
        i = bisect.bisect_right(positions, (number, match.start() + 1)) - 1
        path = paths[i] if i >= 0 else ()
        out.append(
            s.at(
                path,
                f"placeholder left: {_excerpt(line[match.start() :].rstrip(chr(34) + chr(39)))!r}",
                "replace it with the real value or text, then delete the marker",
                line=number,
                col=match.start() + 1,
            )
        )
    return out


_FACT_HINTS = {
    "architecture": "write dense or moe: moe when config.json lists routed experts "
    "(num_experts, num_local_experts or n_routed_experts)",
    "context_length": "the longest request in tokens, config.json's max_position_embeddings; "
    "`recipes-site new --config config.json` fills it",
    "parameter_count": 'total parameters incl. every expert, as a string like "7B" or "671B"',
}


def check_missing_facts(s: LintSubject) -> list[Diagnostic]:
    """The facts sizing and the page are computed from: without them the site renders nonsense
    (a `vram_minimum_gb: 0` scaffold of a 7B model rendered TP 8)."""
    data = s.doc.data
    model = data.get("model")
    out = []
    if isinstance(model, dict):
        for key, hint in _FACT_HINTS.items():
            if model.get(key) is None:
                out.append(s.at(("model", key), f"model.{key} is missing", hint, at_key=True))
    for key, variant in _map(data.get("variants")).items():
        variant = _map(variant)
        if variant.get("vram_minimum_gb") == 0:
            computed, _ = sizing.variant_weights_gb(data, variant)
            formula = (
                "ceil(parameters in billions x bytes per parameter x 1.2), CONTRIBUTING section 3"
            )
            out.append(
                s.at(
                    ("variants", key, "vram_minimum_gb"),
                    "vram_minimum_gb is 0: expected the GB the weights need; the hardware and TP size "
                    "are chosen from it",
                    f"set it to {computed}: {formula}" if computed else f"set it to {formula}",
                )
            )
    return out


LintRule = Callable[[LintSubject], "list[Diagnostic]"]
LINT_RULES: tuple = (
    check_vllm_flags,
    check_vllm_env,
    check_guide,
    check_verified_source,
    check_placeholders,
    check_missing_facts,
)


def lint_recipe(doc: RecipeDoc, level: Level, text: str | None = None) -> list[Diagnostic]:
    """Every rule of LINT_RULES on one recipe, at ``level`` (a rule that crashes becomes an error
    of the recipe, so that loading never raises)."""
    s = subject(doc, level, text)
    out: list[Diagnostic] = []
    for rule in LINT_RULES:
        try:
            out.extend(rule(s))
        except Exception as exc:  # noqa: BLE001 - report, never raise out of the catalog
            out.append(
                Diagnostic(
                    doc.display_path,
                    0,
                    0,
                    Level.ERROR,
                    "",
                    f"internal error in check {rule.__name__}: {type(exc).__name__}: {exc}",
                    "this is a bug in recipes-site; please report it",
                )
            )
    return out
