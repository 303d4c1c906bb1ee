"""What a user may toggle on a rendering: its features and their modes, as command lines.

The site's picker joins these lines between a process's `lines_before` and `lines_after`;
`toggles_are_exact` tells whether that join reproduces what synthesis would render for any
selection (it does whenever no toggleable flag also appears elsewhere in the command).
"""

from __future__ import annotations

from dataclasses import dataclass

from recipes_site.jsish import mapping

from .features import allowed_modes, applicable_features, default_selection, is_modal, option_args
from .hardware import Hardware
from .serve_args import dedupe, variant_of
from .shell import unit_lines


@dataclass(frozen=True)
class ModeChoice:
    name: str
    label: str
    description: str
    lines: tuple


@dataclass(frozen=True)
class FeatureChoice:
    name: str
    label: str
    description: str
    default: object  # mode name, True (on) or False (off)
    modes: tuple | None  # ModeChoice, for features with modes
    lines: tuple | None  # for features without modes


def _label(name: str, spec: dict) -> str:
    return spec.get("label") or name.replace("_", " ").capitalize()


def feature_choices(
    recipe: dict, hw: Hardware, variant_key: str, strategy_id: str, with_kv_store: bool = False
) -> tuple:
    variant = variant_of(recipe, variant_key)
    defaults = default_selection(recipe, hw, variant_key, variant, strategy_id, with_kv_store)
    out = []
    for name, feature in applicable_features(recipe, strategy_id, with_kv_store):
        lines = lambda args: unit_lines(dedupe(args))
        if is_modal(feature):
            allowed = allowed_modes(feature, hw, variant_key)
            if not allowed:
                continue
            modes = tuple(
                ModeChoice(
                    m,
                    _label(m, mapping(feature["modes"][m])),
                    mapping(feature["modes"][m]).get("description") or "",
                    lines(option_args(feature, hw, m)),
                )
                for m in allowed
            )
            out.append(
                FeatureChoice(
                    name,
                    _label(name, feature),
                    feature.get("description") or "",
                    defaults.get(name, False),
                    modes,
                    None,
                )
            )
        else:
            out.append(
                FeatureChoice(
                    name,
                    _label(name, feature),
                    feature.get("description") or "",
                    name in defaults,
                    None,
                    lines(option_args(feature, hw, None)),
                )
            )
    return tuple(out)


def _flag(line: str) -> str | None:
    head = line.split(" ", 1)[0]
    return head if head.startswith("-") else None


def toggles_are_exact(choices: tuple, processes: list) -> bool:
    """True when joining toggled lines between `lines_before` and `lines_after` is what
    synthesis renders for every selection: no toggleable flag appears in the fixed lines or in
    two different features. In two halves, so that the picker (render/picker.py) works out the
    choices' half once per feature set: `toggle_flags`, then `fixed_lines_free_of`."""
    flags = toggle_flags(choices)
    return flags is not None and fixed_lines_free_of(processes, flags)


def toggle_flags(choices: tuple) -> frozenset | None:
    """The flags the toggled lines of `choices` set; None when no fixed lines can make joining
    them exact: a line that is no flag, or a flag in two different features."""
    seen: set = set()
    for choice in choices:
        flags = set()
        for group in [m.lines for m in choice.modes] if choice.modes else [choice.lines]:
            for line in group:
                if line and not line.startswith("-"):
                    return None  # a stray positional would change how neighbours pair up
                flags.add(_flag(line))
        flags.discard(None)
        if flags & seen:
            return None
        seen |= flags
    return frozenset(seen)


def fixed_lines_free_of(processes, flags: frozenset) -> bool:
    """Whether no fixed line (`lines_before`, `lines_after`) of `processes` starts with one of
    `flags` (toggle flags, each starting with '-': a line's first word that is no flag cannot
    equal one, so the first words are compared as they are)."""
    return flags.isdisjoint(
        [line.partition(" ")[0] for p in processes for line in p.lines_before + p.lines_after]
    )
