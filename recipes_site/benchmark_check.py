"""How a benchmark result's command differs from the rendering it claims to measure.

A result names a recipe, hardware, variant and strategy; the site renders a `vllm serve` command
for that choice. When the command that was run differs (another flag, another value, another
checkpoint), the numbers measure something else, so every difference is listed next to the
result (validate warns, the API and the page show them) instead of being hidden.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from recipes_site.catalog.benchmarks import BenchmarkDoc
from recipes_site.errors import ChoiceError
from recipes_site.synthesis import Context, render_choice


@dataclass(frozen=True)
class Comparison:
    """A result checked against the rendering of its choice."""

    rendered: str  # our `vllm serve` command for the result's choice ("" when none renders)
    differences: tuple[str, ...]  # one sentence per difference, in argument order


def serve_arguments(argv: list[str]) -> tuple[str, dict[str, tuple[str, ...]]] | None:
    """(model, flag -> values) of a `vllm serve MODEL --flag value ...` argument list; None when it
    is not one. `--flag=value` and `--flag value` read the same; a repeated flag keeps every value."""
    try:
        at = next(i for i in range(len(argv) - 1) if argv[i] == "serve")
    except StopIteration:
        return None
    words = argv[at + 1 :]
    if not words or words[0].startswith("-"):
        return None
    flags: dict[str, tuple[str, ...]] = {}
    flag: str | None = None
    for word in words[1:]:
        if word.startswith("--"):
            flag, _, value = word.partition("=")
            flags[flag] = flags.get(flag, ()) + ((value,) if value else ())
        elif flag is not None:
            flags[flag] = flags[flag] + (word,)
    return words[0], flags


def _show(flag: str, values: tuple[str, ...]) -> str:
    return " ".join((flag, *values))


def differences(ours: list[str], theirs: list[str]) -> tuple[str, ...]:
    """What the result's command does differently from ours, flag by flag."""
    mine, other = serve_arguments(ours), serve_arguments(theirs)
    if other is None:
        return ("the result's command is not a `vllm serve MODEL ...` command",)
    if mine is None:
        return ()
    out = []
    if mine[0] != other[0]:
        out.append(f"serves {other[0]}, the rendering serves {mine[0]}")
    for flag, values in other[1].items():
        if flag not in mine[1]:
            out.append(f"adds {_show(flag, values)}")
        elif mine[1][flag] != values:
            out.append(f"sets {_show(flag, values)}, the rendering {_show(flag, mine[1][flag])}")
    out += [f"omits {_show(f, v)}" for f, v in mine[1].items() if f not in other[1]]
    return tuple(out)


def compare(ctx: Context, recipe: dict, doc: BenchmarkDoc) -> Comparison | None:
    """The result against its rendering with no optional feature on (features change what a
    server answers, the speed comparison is of the serving flags); None when the source prints
    no command."""
    if doc.spec is None or doc.spec.provenance.command is None:
        return None
    prov = doc.spec.provenance
    try:
        rendering = render_choice(
            ctx, recipe, prov.variant, doc.hardware, prov.strategy, features={}
        )
    except ChoiceError as exc:
        return Comparison("", (f"the site renders no command for this choice: {exc}",))
    process = rendering.single or rendering.head
    if process is None:
        return Comparison("", ("the rendering is a multi-process layout; compare it by hand",))
    try:
        theirs = shlex.split(prov.command)
    except ValueError as exc:
        return Comparison(process.command, (f"the result's command does not parse: {exc}",))
    return Comparison(process.command, differences(list(process.argv), theirs))


def command_warnings(ctx: Context, recipes: dict, docs: list[BenchmarkDoc]) -> list:
    """A validate warning per result whose command differs from its rendering in a way its file
    does not record (`provenance.differences`), or no longer differs the way it records: the
    numbers stay, and the reader learns what they measured. Recorded differences are what the
    result always measured; a new one means the recipe moved since."""
    out = []
    for doc in docs:
        recipe = recipes.get(doc.hf_id)
        found = compare(ctx, recipe, doc) if isinstance(recipe, dict) else None
        if found is None or doc.spec is None:
            continue
        recorded = doc.spec.provenance.differences
        new = [d for d in found.differences if d not in recorded]
        gone = [d for d in recorded if d not in found.differences]
        report = doc.report()
        if new:
            report.warning(
                ("provenance", "command"),
                "the command differs from the site's rendering of this choice: " + "; ".join(new),
                "the result is shown with these differences; add them to provenance.differences "
                "once reviewed, or re-run the rendered command to measure the recipe itself",
            )
        if gone:
            report.warning(
                ("provenance", "differences"),
                "recorded differences the rendering no longer has: " + "; ".join(gone),
                "the recipe changed since the result was recorded: drop them from "
                "provenance.differences, or re-run the benchmark",
            )
        out += report.items
    return out
