"""Safe YAML 1.2 loading with source positions.

libyaml (through PyYAML's C parser) tokenises and parses; the *values* are built here from the
event stream, so that:

* plain scalars follow the YAML 1.2 core schema the way js-yaml 4 reads them (``yes``/``on`` stay
  strings, ``0755`` is the decimal 755, ``0o755`` is 493, ``1_000`` and ``1:30`` are strings,
  ``1e3`` is a number) and timestamps become ``"YYYY-MM-DD"`` strings (UTC date part);
* every mapping key and every value keeps its 1-based (line, col) under its key path;
* duplicate keys, custom tags, merge keys, undefined/recursive aliases, alias bombs, too deep
  nesting, oversized and non-UTF-8 files are reported as diagnostics instead of raising.

Building from events (rather than PyYAML's composer) also keeps deep nesting from recursing in C.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml as _pyyaml

from recipes_site.catalog.diagnostics import Diagnostic, Level, excerpt, format_key_path

_Loader = getattr(_pyyaml, "CSafeLoader", None) or _pyyaml.SafeLoader

MAX_FILE_BYTES = 1 << 20  # 1 MiB: a recipe is a few KiB; anything bigger is a mistake
MAX_ALIAS_NODES = 10_000  # nodes copied through aliases, per file
# Characters of all scalars (keys and values) once aliases are expanded: a document may not grow
# past what the largest allowed file could hold. Counting nodes alone would let a 25 KB file alias
# one 10 KB string 1,000 times (10 MB of data, gigabytes of rendered output).
MAX_EXPANDED_CHARS = MAX_FILE_BYTES
# js-yaml reads integers as JavaScript numbers: past 2**1024 they are Infinity. Python would build
# the exact integer (and refuse to print one of more than 4,300 digits), so we stop where JS does.
_MAX_INT_BITS = 1024
MAX_DEPTH = 64  # nesting of collections

_YAML = "tag:yaml.org,2002:"

# --- YAML 1.2 core schema (+ timestamps), as js-yaml 4 resolves plain scalars -----------------

_NULLS = frozenset(("", "~", "null", "Null", "NULL"))
_TRUES = frozenset(("true", "True", "TRUE"))
_FALSES = frozenset(("false", "False", "FALSE"))
_INT_RE = re.compile(r"[-+]?(?:0b[01]+|0x[0-9a-fA-F]+|0o[0-7]+|[0-9]+)\Z")
_FLOAT_RE = re.compile(
    r"(?:[-+]?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?"
    r"|\.[0-9]+(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)"
    r"|\.(?:nan|NaN|NAN))\Z"
)
_DATE_RE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})\Z")
_TIMESTAMP_RE = re.compile(
    r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
    r"(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})"
    r"(?:\.([0-9]*))?"
    r"(?:[ \t]*(Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?\Z"
)


class _Merge:
    """Marker for a plain ``<<`` key (YAML merge key), which we reject."""


_MERGE = _Merge()


def _int(text: str) -> int | float:
    """The integer, or +-Infinity where JavaScript's number would overflow (the schema then
    rejects it at its line instead of a later stage crashing on a 400-digit integer)."""
    sign = -1 if text[0] == "-" else 1
    body = text[1:] if text[0] in "+-" else text
    base = {"0b": 2, "0x": 16, "0o": 8}.get(body[:2])
    # js-yaml 4: a leading zero is still decimal ("0755" -> 755)
    digits = body[2:] if base else body.lstrip("0")
    # more than 2**1024 in any base; also keeps int() under Python's 4,300-digit limit
    if len(digits) > 400:
        return sign * math.inf
    value = int(digits, base) if base else int(digits or "0", 10)
    return sign * value if value.bit_length() <= _MAX_INT_BITS else sign * math.inf


def _float(text: str) -> float:
    low = text.lower()
    sign = -1.0 if low[0] == "-" else 1.0
    body = low[1:] if low[0] in "+-" else low
    if body == ".inf":
        return sign * math.inf
    if body == ".nan":
        return math.nan
    return sign * float(body)


def _timestamp(text: str) -> str | None:
    """The UTC ``YYYY-MM-DD`` of a YAML timestamp, like js-yaml's Date then ``toISOString()``."""
    hour = minute = second = millis = 0
    delta = 0
    m = _DATE_RE.match(text)
    if m is None:
        m = _TIMESTAMP_RE.match(text)
        if m is None:
            return None
        hour, minute, second = int(m.group(4)), int(m.group(5)), int(m.group(6))
        if m.group(7):
            millis = int((m.group(7)[:3] + "00")[:3])
        if m.group(9):
            delta = int(m.group(10)) * 60 + int(m.group(11) or 0)
            if m.group(9) == "-":
                delta = -delta
    year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if 0 <= year <= 99:  # Date.UTC maps two-digit years to 19xx
        year += 1900
    # Date.UTC lets months and days overflow (2025-02-30 becomes 2025-03-02). We do not: a date
    # that is not in the calendar stays the string it was written as, and the schema reports it
    # at its line instead of publishing another day.
    try:
        _dt.date(year, month, day)
    except ValueError:
        return None
    try:
        moment = _dt.datetime(year, month, 1) + _dt.timedelta(
            days=day - 1, hours=hour, minutes=minute - delta, seconds=second, milliseconds=millis
        )
    except (ValueError, OverflowError):
        return None
    return f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"


def resolve_plain(text: str) -> Any:
    """Value of an untagged plain scalar under the YAML 1.2 core schema + timestamps (js-yaml 4)."""
    if text in _NULLS:
        return None
    if text in _TRUES:
        return True
    if text in _FALSES:
        return False
    first = text[0]
    if first.isdigit() or first in "+-.":
        if _INT_RE.match(text):
            return _int(text)
        if _FLOAT_RE.match(text):
            return _float(text)
        if first.isdigit():
            stamp = _timestamp(text)
            if stamp is not None:
                return stamp
    if text == "<<":
        return _MERGE
    return text


def js_key(value: Any) -> str:
    """A mapping key as JavaScript would stringify it (js-yaml keys are object property names)."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
        return repr(value)
    return str(value)


# --- results ------------------------------------------------------------------------------------


@dataclass
class LoadedYaml:
    """What :func:`load_yaml_file` found. ``data`` is None when there was any error."""

    data: Any = None
    positions: dict = field(default_factory=dict)  # key path -> (line, col) of the value
    key_positions: dict = field(default_factory=dict)  # key path -> (line, col) of the key
    diagnostics: list = field(default_factory=list)
    text: str = ""  # the source as read (lint reads its comments without reading the file again)

    @property
    def ok(self) -> bool:
        return not self.diagnostics


class _Abort(Exception):
    """Stop building the document (the diagnostic has been recorded)."""


def copy_containers(value: Any) -> Any:
    """`value` with every dict and list copied and every other object shared: what an alias
    expands to (each use of an anchor is a value of its own)."""
    if isinstance(value, dict):
        return {k: copy_containers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_containers(v) for v in value]
    return value


@dataclass(slots=True)
class _Frame:
    """A mapping or sequence being built."""

    container: dict | list
    path: tuple  # its key path
    anchor: str | None
    first_mark: int  # index of its own mark in _Builder.marks
    chars_before: int  # characters built before it (what an alias to it copies is the rest)
    key_path: tuple | None = None  # a mapping's key waiting for its value (None: none yet)
    key_lines: dict[str, int] = field(default_factory=dict)  # key -> line it first appears on

    def wants_key(self) -> bool:
        return isinstance(self.container, dict) and self.key_path is None

    def child_path(self) -> tuple:
        """The key path of the next value."""
        if isinstance(self.container, list):
            return self.path + (len(self.container),)
        assert self.key_path is not None
        return self.key_path

    def add(self, value: Any) -> None:
        """Put a finished value in: appended to a list, or under the mapping's pending key
        (dropped when that key was a refused merge key)."""
        if isinstance(self.container, list):
            self.container.append(value)
            return
        assert self.key_path is not None
        key = self.key_path[-1]
        self.key_path = None
        if key is not None:
            self.container[key] = value


class _Builder:
    """Builds plain Python values from a libyaml event stream with an explicit stack."""

    def __init__(self, text: str, display_path: str):
        self.text = text
        self.display = display_path
        self.diags: list[Diagnostic] = []
        self.fatal = False
        # (path, (line, col), is_key) in document order; an anchored node's subtree is a slice
        self.marks: list[tuple[tuple, tuple, bool]] = []
        self.anchors: dict[str, tuple[Any, tuple, int, int]] = {}
        self.open_anchors: set[str] = set()
        self.alias_nodes = 0
        self.chars = 0  # characters of every scalar built so far, aliases expanded
        self.anchor_chars: dict[str, int] = {}

    def grow(self, n: int, line: int, col: int, path: tuple) -> None:
        """Count ``n`` more characters of the built document; abort past MAX_EXPANDED_CHARS."""
        self.chars += n
        if self.chars > MAX_EXPANDED_CHARS:
            self.abort(
                line,
                col,
                path,
                f"the document expands to more than {MAX_EXPANDED_CHARS} characters once its aliases "
                "are expanded (possible alias bomb)",
                "write the repeated value once instead of aliasing a large anchor many times",
            )

    # -- diagnostics
    def error(self, line: int, col: int, key_path: tuple, message: str, hint: str = "") -> None:
        self.diags.append(
            Diagnostic(
                self.display, line, col, Level.ERROR, format_key_path(key_path), message, hint
            )
        )

    def abort(self, line: int, col: int, key_path: tuple, message: str, hint: str = "") -> None:
        self.error(line, col, key_path, message, hint)
        raise _Abort

    # -- scalars
    def scalar(self, ev, path: tuple) -> Any:
        tag, style, text = ev.tag, ev.style, ev.value
        line, col = ev.start_mark.line + 1, ev.start_mark.column + 1
        if tag is None:
            if style:  # quoted or block scalar
                return text
            return resolve_plain(text)
        if tag == "!" or tag == _YAML + "str":
            return text
        wanted = {
            _YAML + "int": int,
            _YAML + "float": float,
            _YAML + "bool": bool,
            _YAML + "null": type(None),
        }.get(tag)
        if wanted is not None:
            value = resolve_plain(text) if text else None
            if wanted is float and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            if isinstance(value, wanted) and not (wanted is int and isinstance(value, bool)):
                return value
            self.error(
                line, col, path, f"value '{excerpt(text)}' does not match its tag {_short_tag(tag)}"
            )
            return text
        self.error(
            line,
            col,
            path,
            f"unsupported YAML tag {_short_tag(tag)}",
            "recipes use plain YAML only: remove the tag",
        )
        return text

    def check_collection_tag(self, ev, path: tuple, kind: str) -> None:
        tag = ev.tag
        if tag is None or tag == "!" or tag == _YAML + kind:
            return
        self.error(
            ev.start_mark.line + 1,
            ev.start_mark.column + 1,
            path,
            f"unsupported YAML tag {_short_tag(tag)}",
            "recipes use plain YAML only: remove the tag",
        )

    # -- aliases
    def alias(self, ev, path: tuple) -> Any:
        name = ev.anchor
        line, col = ev.start_mark.line + 1, ev.start_mark.column + 1
        if name in self.open_anchors:
            self.abort(
                line,
                col,
                path,
                f"alias *{name} refers to a node that contains it (recursive alias)",
            )
        if name not in self.anchors:
            self.abort(line, col, path, f"undefined alias *{name}", f"define it first with &{name}")
        value, anchor_path, start, end = self.anchors[name]
        size = max(1, end - start)
        self.alias_nodes += size
        if self.alias_nodes > MAX_ALIAS_NODES:
            self.abort(
                line,
                col,
                path,
                f"too many aliased nodes (possible alias bomb): more than {MAX_ALIAS_NODES} nodes copied through aliases",
            )
        self.grow(self.anchor_chars.get(name, 0), line, col, path)
        cut = len(anchor_path)
        for i, (p, pos, is_key) in enumerate(self.marks[start:end]):
            # the alias itself sits where it is written; what it expands to, where the anchor is
            self.marks.append((path + p[cut:], (line, col) if i == 0 else pos, is_key))
        return copy_containers(value)

    def build(self, loader) -> Any:
        """Consume the whole stream; return the first document's value (or raise _Abort)."""
        ev = loader.get_event()  # StreamStart
        ev = loader.get_event()
        if isinstance(ev, _pyyaml.StreamEndEvent):
            return _EMPTY
        # ev is DocumentStart
        root = self.node(loader, loader.get_event(), ())
        loader.get_event()  # DocumentEnd
        ev = loader.get_event()
        if not isinstance(ev, _pyyaml.StreamEndEvent):
            self.abort(
                ev.start_mark.line + 1,
                ev.start_mark.column + 1,
                (),
                "expected a single YAML document, found a second one",
                "remove the '---' separator and everything after it",
            )
        return root

    def node(self, loader, ev, path: tuple) -> Any:
        """Build the node starting with event ``ev``; collections with an explicit stack of
        frames, so that deep nesting never recurses."""
        if isinstance(ev, _pyyaml.AliasEvent):
            return self.alias(ev, path)
        if isinstance(ev, _pyyaml.ScalarEvent):
            return self.scalar_value(ev, path)
        stack: list[_Frame] = []
        self.open_collection(stack, ev, path)
        while True:
            ev = loader.get_event()
            frame = stack[-1]
            if isinstance(ev, (_pyyaml.MappingEndEvent, _pyyaml.SequenceEndEvent)):
                stack.pop()
                self.close_collection(frame)
                if not stack:
                    return frame.container
                stack[-1].add(frame.container)
            elif frame.wants_key():
                self.key(ev, frame)
            elif isinstance(ev, (_pyyaml.MappingStartEvent, _pyyaml.SequenceStartEvent)):
                self.open_collection(stack, ev, frame.child_path())
            elif isinstance(ev, _pyyaml.AliasEvent):
                frame.add(self.alias(ev, frame.child_path()))
            else:
                frame.add(self.scalar_value(ev, frame.child_path()))

    def open_collection(self, stack: list[_Frame], event, at: tuple) -> None:
        """Push the frame of the mapping or sequence ``event`` starts, at key path ``at``."""
        mark = event.start_mark
        if len(stack) >= MAX_DEPTH:
            self.abort(
                mark.line + 1,
                mark.column + 1,
                at[:3],
                f"the document is nested deeper than {MAX_DEPTH} levels",
            )
        is_map = isinstance(event, _pyyaml.MappingStartEvent)
        self.check_collection_tag(event, at, "map" if is_map else "seq")
        self.marks.append((at, (mark.line + 1, mark.column + 1), False))
        if event.anchor:
            self.open_anchors.add(event.anchor)
        container: dict | list = {} if is_map else []
        stack.append(_Frame(container, at, event.anchor, len(self.marks) - 1, self.chars))

    def close_collection(self, frame: _Frame) -> None:
        """Register the anchor of a finished collection: its value, and the marks and
        characters an alias to it copies."""
        anchor = frame.anchor
        if anchor:
            self.open_anchors.discard(anchor)
            self.anchors[anchor] = (frame.container, frame.path, frame.first_mark, len(self.marks))
            self.anchor_chars[anchor] = self.chars - frame.chars_before

    def scalar_value(self, ev, path: tuple) -> Any:
        """A scalar in value position: record its position, resolve it, register its anchor."""
        line, col = ev.start_mark.line + 1, ev.start_mark.column + 1
        self.marks.append((path, (line, col), False))
        text = ev.value
        self.grow(len(text), line, col, path)
        value = self.scalar(ev, path)
        if value is _MERGE:
            value = "<<"
        if ev.anchor:
            self.anchors[ev.anchor] = (value, path, len(self.marks) - 1, len(self.marks))
            self.anchor_chars[ev.anchor] = len(text)
        return value

    def key(self, ev, frame: _Frame) -> None:
        """A mapping key: resolve it as JavaScript names a property, refuse merge keys and
        duplicates, and record where it is."""
        mark = ev.start_mark
        line, col = mark.line + 1, mark.column + 1
        parent = frame.path
        if isinstance(ev, _pyyaml.ScalarEvent):
            text = ev.value
            self.grow(len(text), line, col, parent)
            raw = self.scalar(ev, parent)
            if ev.anchor:
                self.anchors[ev.anchor] = (raw, parent, len(self.marks), len(self.marks))
                self.anchor_chars[ev.anchor] = len(text)
        elif isinstance(ev, _pyyaml.AliasEvent):
            if ev.anchor not in self.anchors or isinstance(
                self.anchors[ev.anchor][0], (dict, list)
            ):
                self.abort(line, col, parent, f"alias *{ev.anchor} cannot be used as a mapping key")
            raw = self.anchors[ev.anchor][0]
            self.grow(self.anchor_chars.get(ev.anchor, 0), line, col, parent)
        else:
            self.abort(
                line, col, parent, "a mapping key must be a plain value, not a list or mapping"
            )
        if raw is _MERGE:
            self.error(
                line,
                col,
                parent,
                "merge keys (<<) are not supported",
                "write the keys out instead of merging an anchor",
            )
            frame.key_path = parent + (None,)  # the value is read and dropped
            return
        key = js_key(raw)
        seen = frame.key_lines
        if key in seen:
            self.duplicate(key, line, col, parent, seen[key])
        else:
            seen[key] = line
        frame.key_path = parent + (key,)
        self.marks.append((frame.key_path, (line, col), True))

    def duplicate(self, key: str, line: int, col: int, parent: tuple, first: int) -> None:
        self.error(
            line,
            col,
            parent + (key,),
            f"duplicated mapping key '{excerpt(key)}' (line {line}; first defined on line {first})",
            "remove one of the two entries",
        )


_EMPTY = object()


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(_YAML) :] if tag.startswith(_YAML) else tag


def _line_col(text: str, index: int) -> tuple[int, int]:
    index = max(0, min(index, len(text)))
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def load_yaml_text(text: str, display_path: str, *, require_mapping: bool = True) -> LoadedYaml:
    """Parse ``text``; errors come back as diagnostics (``data`` is then None)."""
    out = LoadedYaml(text=text)
    if text.startswith("\ufeff"):
        text = text[1:]
    builder = _Builder(text, display_path)
    try:
        loader = _Loader(text)
        try:
            value = builder.build(loader)
        finally:
            loader.dispose()
    except _Abort:
        value = None
    except _pyyaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)
        problem = exc.problem or "invalid YAML"
        if exc.context:
            problem = f"{exc.context}: {problem}"
        builder.error(line, col, (), f"YAML syntax error: {problem}")
        value = None
    except _pyyaml.reader.ReaderError as exc:
        line, col = _line_col(text, exc.position)
        builder.error(
            line,
            col,
            (),
            f"YAML syntax error: unacceptable character #x{exc.character:04x}: {exc.reason}",
        )
        value = None
    except _pyyaml.YAMLError as exc:  # pragma: no cover - libyaml reports everything above
        builder.error(0, 0, (), f"YAML error: {exc}")
        value = None
    except RecursionError:  # pragma: no cover - we never recurse on nesting
        builder.error(0, 0, (), f"the document is nested deeper than {MAX_DEPTH} levels")
        value = None

    out.diagnostics = builder.diags
    if out.diagnostics:
        return out
    if require_mapping and not isinstance(value, dict):
        if value is _EMPTY or value is None:
            what = "the file is empty" if value is _EMPTY else "the document is empty (null)"
            out.diagnostics.append(
                Diagnostic(
                    display_path,
                    1,
                    1,
                    Level.ERROR,
                    "",
                    f"{what}; expected a mapping at the top level",
                )
            )
        else:
            kind = "a list" if isinstance(value, list) else f"a single value ('{excerpt(value)}')"
            out.diagnostics.append(
                Diagnostic(
                    display_path,
                    1,
                    1,
                    Level.ERROR,
                    "",
                    f"the top level must be a mapping of keys, got {kind}",
                )
            )
        return out
    if value is _EMPTY:
        value = None
    out.data = value
    for path, pos, is_key in builder.marks:
        if is_key:
            out.key_positions[path] = pos
        else:
            out.positions[path] = pos
    return out


# (display path, require_mapping, bytes) -> LoadedYaml while parses are remembered
_PARSED: dict | None = None
_PARSED_LIMIT = 50_000


def remember_parses(on: bool = True) -> None:
    """Keep every parse in memory and reuse it while the file's bytes are unchanged.

    For the long-lived `serve` process: a rebuild after one edit would otherwise parse every
    recipe of the root again (most of a no-change rebuild's time). Callers treat the parsed
    data as read-only, so sharing it between builds is safe; a build process never turns this on."""
    global _PARSED
    _PARSED = {} if on else None


def load_yaml_file(
    path: Path, display_path: str, *, max_bytes: int = MAX_FILE_BYTES, require_mapping: bool = True
) -> LoadedYaml:
    """Read and parse one YAML file (size and encoding checked first)."""

    def fail(message: str, line: int = 0, col: int = 0, hint: str = "") -> LoadedYaml:
        return LoadedYaml(
            diagnostics=[Diagnostic(display_path, line, col, Level.ERROR, "", message, hint)]
        )

    try:
        size = path.stat().st_size
        if size > max_bytes:
            return fail(
                f"file too large: {size} bytes (the limit is {max_bytes} bytes)",
                hint="a recipe is a few KiB; is this the right file?",
            )
        with open(path, "rb") as fh:
            raw = fh.read(max_bytes + 1)
    except OSError as exc:
        return fail(f"cannot read the file: {exc.strerror or exc}")
    if len(raw) > max_bytes:
        return fail(f"file too large: more than {max_bytes} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        return fail(
            f"the file is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at line {line}, column {col})",
            line,
            col,
            "save it as UTF-8",
        )
    if _PARSED is None:
        return load_yaml_text(text, display_path, require_mapping=require_mapping)
    key = (display_path, require_mapping, raw)
    loaded = _PARSED.get(key)
    if loaded is None:
        if len(_PARSED) >= _PARSED_LIMIT:
            _PARSED.clear()
        loaded = _PARSED[key] = load_yaml_text(text, display_path, require_mapping=require_mapping)
    return loaded
