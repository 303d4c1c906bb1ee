"""How a rendering that differs from the reference is explained by docs/compat-deviations.json,
as `shared/tools/compat-parity --strict-deviations` explains it: only where the rules' `rewrite`s
turn the reference's value of every differing field into ours (field names alone explain
nothing: they could hide a real mismatch)."""

from __future__ import annotations

import json
import re
from pathlib import Path

DEVIATIONS_FILE = Path(__file__).resolve().parents[1] / "docs" / "compat-deviations.json"
DEVIATIONS = json.loads(DEVIATIONS_FILE.read_text())


def rewritten(rule: dict, value):
    """The reference's `value` after `rule`'s rewrites (applied to its JSON text, in order)."""
    text = json.dumps(value, ensure_ascii=False)
    for pattern, replacement in rule.get("rewrite") or ():
        text = re.sub(pattern, replacement, text)
    return json.loads(text)


def explaining_rules(expected: dict, mine: dict, rules: list = DEVIATIONS) -> set[str] | None:
    """The ids of the rules whose rewrites reproduce our value of every field where `mine`
    differs from the reference's `expected` (set() when none differs), or None when some
    difference is not reproduced."""
    used: set[str] = set()
    for key, want in expected.items():
        got = mine.get(key, "<absent>")
        if got == want:
            continue
        value = want
        for rule in rules:
            if key in rule["fields"] and rule.get("rewrite"):
                new = rewritten(rule, value)
                if new != value:
                    value = new
                    used.add(rule["id"])
        if value != got:
            return None
    return used
