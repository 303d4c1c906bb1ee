"""Turning argument units into the copy-pasteable multi-line shell strings."""
from __future__ import annotations

import re

_SAFE = re.compile(r"^[A-Za-z0-9_./=:@,+%-]+$")
_VAR = re.compile(r"^\$[A-Z_][A-Z0-9_]*$")

Unit = tuple  # ("flag", value) | ("flag",) | (positional,)


def quote(value: str) -> str:
    if _VAR.fullmatch(value) or _SAFE.fullmatch(value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def units_of(tokens: list[str]) -> list[Unit]:
    """Group tokens as vLLM reads them: a flag takes the next token unless that is a flag too."""
    units: list[Unit] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.startswith("-"):
            if i + 1 < len(tokens) and not tokens[i + 1].startswith("-"):
                units.append((tok, tokens[i + 1]))
                i += 2
                continue
            units.append((tok,))
        else:
            units.append((tok,))
        i += 1
    return units


def unit_line(unit: Unit) -> str:
    if len(unit) == 2:
        return f"{unit[0]} {quote(unit[1])}"
    return unit[0]


def continued(lines: list[str], indent: str = "  ") -> str:
    """First line as is, the rest indented, joined with ` \\` continuations."""
    return (" \\\n" + indent).join(lines)


def serve_command(model: str, units: list[Unit]) -> str:
    if not units:
        return f"vllm serve {model}"
    return f"vllm serve {model} \\\n  " + continued([unit_line(u) for u in units])
