"""One problem report type shared by every stage, so the CLI only has to format it.

Stages never print and never raise on bad *input*: they return diagnostics, which lets one
build report every problem of every file at once.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Level(str, Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True)
class Diagnostic:
    path: str            # file path as shown to the user (relative to the cwd when possible)
    line: int            # 1-based; 0 when unknown
    col: int             # 1-based; 0 when unknown
    level: Level
    key_path: str        # dotted key path inside the document, e.g. "variants.default.precision"; "" for the whole file
    message: str
    hint: str = ""       # e.g. "did you mean `tool_calling`?"

    def format(self) -> str:
        where = self.key_path or "<document>"
        text = f"{self.path}:{self.line}:{self.col}: {self.level.value}: {where}: {self.message}"
        if self.hint:
            text += f" ({self.hint})"
        return text


def errors(diags: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diags if d.level is Level.ERROR]


def warnings(diags: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diags if d.level is Level.WARNING]


def summary(diags: list[Diagnostic], files: int) -> str:
    e, w = len(errors(diags)), len(warnings(diags))
    plural = lambda n, word: f"{n} {word}{'' if n == 1 else 's'}"
    return f"{plural(files, 'file')} checked: {plural(e, 'error')}, {plural(w, 'warning')}"
