"""One problem report type shared by every stage, so the CLI only has to format it.

Stages never print and never raise on bad *input*: they return diagnostics, which lets one
build report every problem of every file at once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum

EXCERPT_CHARS = 80  # longest quotation of file content in a message
MAX_TEXT = 600  # longest message or hint, whatever it quotes
CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")  # what a one-line text must not hold


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """A short, single-line quotation of ``value`` for a message.

    Why: messages quote what a file says, and the file may be anything a recipe path or symlink
    leads to (a secret, /etc/passwd, a 1 MB string). One line of at most ``limit`` characters is
    enough to find the spot; the position says where the rest is."""
    text = value if isinstance(value, str) else repr(value)
    flat = CONTROL_CHARS.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), text)
    if len(flat) <= limit:
        return flat
    return flat[:limit] + f"… ({len(text)} characters)"


def _bounded(text: str) -> str:
    """Last line of defence: one line, at most MAX_TEXT characters (a message can never carry a
    whole file, nor forge further diagnostic lines with newlines)."""
    flat = CONTROL_CHARS.sub(" ", text)
    return flat if len(flat) <= MAX_TEXT else flat[:MAX_TEXT] + "…"


class Level(str, Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True)
class Diagnostic:
    path: str  # file path as shown to the user (relative to the cwd when possible)
    line: int  # 1-based; 0 when unknown
    col: int  # 1-based; 0 when unknown
    level: Level
    key_path: str  # dotted key path inside the document, e.g. "variants.default.precision"; "" for the whole file
    message: str
    hint: str = ""  # e.g. "did you mean `tool_calling`?"

    def __post_init__(self) -> None:
        for name in ("message", "hint", "key_path"):
            value = getattr(self, name)
            if isinstance(value, str):
                object.__setattr__(self, name, _bounded(value))

    def format(self) -> str:
        where = self.key_path or "<document>"
        text = f"{self.path}:{self.line}:{self.col}: {self.level.value}: {where}: {self.message}"
        if self.hint:
            text += f" ({self.hint})"
        return text


def format_key_path(path: tuple) -> str:
    """``("model", "base_args", 2)`` -> ``"model.base_args[2]"``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def locate(
    positions: dict, key_positions: dict, path: tuple, *, at_key: bool = False
) -> tuple[int, int]:
    """Source position of ``path`` (the key itself with ``at_key``), else its nearest ancestor's,
    else (0, 0): a problem about a missing key is reported where its parent is."""
    path = tuple(path)
    if at_key and path in key_positions:
        return key_positions[path]
    while True:
        if path in positions:
            return positions[path]
        if path in key_positions:
            return key_positions[path]
        if not path:
            return (0, 0)
        path = path[:-1]


@dataclass
class Report:
    """Collects the diagnostics of one document, each placed at the key path it is about."""

    display: str  # the document's path as shown to the user
    positions: dict  # key path -> (line, col) of the value (yaml.LoadedYaml.positions)
    key_positions: dict  # key path -> (line, col) of the key
    items: list[Diagnostic] = field(default_factory=list)

    def add(
        self, level: Level, path: tuple, message: str, hint: str = "", *, at_key: bool = False
    ) -> None:
        path = tuple(path)
        line, col = locate(self.positions, self.key_positions, path, at_key=at_key)
        self.items.append(
            Diagnostic(self.display, line, col, level, format_key_path(path), message, hint)
        )

    def error(self, path: tuple, message: str, hint: str = "", *, at_key: bool = False) -> None:
        self.add(Level.ERROR, path, message, hint, at_key=at_key)

    def warning(self, path: tuple, message: str, hint: str = "", *, at_key: bool = False) -> None:
        self.add(Level.WARNING, path, message, hint, at_key=at_key)


def errors(diags: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diags if d.level is Level.ERROR]


def warnings(diags: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diags if d.level is Level.WARNING]


def summary(diags: list[Diagnostic], files: int) -> str:
    e, w = len(errors(diags)), len(warnings(diags))
    plural = lambda n, word: f"{n} {word}{'' if n == 1 else 's'}"
    return f"{plural(files, 'file')} checked: {plural(e, 'error')}, {plural(w, 'warning')}"
