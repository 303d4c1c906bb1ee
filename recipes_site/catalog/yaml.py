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
# past what the largest allowed file could hold. Counting nodes alone let a 25 KB file alias one
# 10 KB string 1,000 times (10 MB of data, 3.4 GB of rendered output).
MAX_EXPANDED_CHARS = MAX_FILE_BYTES
# js-yaml reads integers as JavaScript numbers: past 2**1024 they are Infinity. Python would build
# the exact integer (and refuse to print one of more than 4,300 digits), so we stop where JS does.
_MAX_INT_BITS = 1024
MAX_DEPTH = 64  # nesting of collections

KeyPath = tuple  # tuple[str | int, ...]
Position = tuple  # (line, col), 1-based

_YAML = "tag:yaml.org,2002:"

# --- YAML 1.2 core schema (+ timestamps), as js-yaml 4 resolves plain scalars -----------------

_NULLS = frozenset(("", "~", "null", "Null", "NULL"))
_TRUES = frozenset(("true", "True", "TRUE"))
_FALSES = frozenset(("false", "False", "FALSE"))
# A plain scalar that starts with a letter and is none of these words is the string as written
# (resolve_plain below): the builder's fast path for most keys and values.
_WORDS = _NULLS | _TRUES | _FALSES
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
    digits = (
        body[2:] if base else body.lstrip("0")
    )  # js-yaml 4: a leading zero is still decimal ("0755" -> 755)
    if (
        len(digits) > 400
    ):  # > 2**1024 in any base; also keeps int() under Python's 4,300-digit limit
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
    m = _DATE_RE.match(text)
    parts = [m.group(1), m.group(2), m.group(3)] if m else None
    hour = minute = second = millis = 0
    delta = 0
    if m is None:
        m = _TIMESTAMP_RE.match(text)
        if m is None:
            return None
        parts = [m.group(1), m.group(2), m.group(3)]
        hour, minute, second = int(m.group(4)), int(m.group(5)), int(m.group(6))
        if m.group(7):
            millis = int((m.group(7)[:3] + "00")[:3])
        if m.group(9):
            delta = int(m.group(10)) * 60 + int(m.group(11) or 0)
            if m.group(9) == "-":
                delta = -delta
    year, month, day = (int(p) for p in parts)
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
    expands to here, and a pydantic schema handed to another field (types.reused)."""
    if isinstance(value, dict):
        return {k: copy_containers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_containers(v) for v in value]
    return value


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
        """Count ``n`` more characters of the built document; abort past MAX_EXPANDED_CHARS.
        (scalar_value and key count their text themselves: they run for every scalar.)"""
        self.chars += n
        if self.chars > MAX_EXPANDED_CHARS:
            self.too_large(line, col, path)

    def too_large(self, line: int, col: int, path: tuple) -> None:
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

    # -- main loop
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
        """Build the node starting with event ``ev`` (iteratively for collections)."""
        if isinstance(ev, _pyyaml.AliasEvent):
            return self.alias(ev, path)
        if isinstance(ev, _pyyaml.ScalarEvent):
            return self.scalar_value(ev, path)

        # collections: an explicit stack of frames (open_collection). This loop runs once per
        # event of every file (27k for the compat corpus), hence no helper calls for the steps
        # most events take: a plain untagged, unanchored key or scalar value is handled here
        # (the same steps as key() and scalar_value(), which handle every other event).
        stack: list[list] = []
        self.open_collection(stack, ev, path)
        get_event = loader.get_event
        marks = self.marks
        while True:
            ev = get_event()
            cls = ev.__class__
            frame = stack[-1]
            container = frame[0]
            if cls is _MAPPING_END or cls is _SEQUENCE_END:
                stack.pop()
                anchor = frame[2]
                if anchor:
                    self.open_anchors.discard(anchor)
                    self.anchors[anchor] = (container, frame[1], frame[3], len(self.marks))
                    self.anchor_chars[anchor] = self.chars - frame[6]
                if not stack:
                    return container
                value = container
                frame = stack[-1]
                container = frame[0]
            else:
                if container.__class__ is list:
                    at = frame[1] + (len(container),)
                elif frame[4] is _NO_KEY:  # this event is a key
                    text = (
                        ev.value
                        if cls is _SCALAR and ev.tag is None and ev.anchor is None
                        else None
                    )
                    if text is None or not (
                        ev.style or (text[:1].isalpha() and text not in _WORDS)
                    ):
                        self.key(ev, frame)
                        continue
                    # a string as written (resolve_plain and js_key give it back unchanged)
                    mark = ev.start_mark
                    line = mark.line + 1
                    self.chars += len(text)
                    if self.chars > MAX_EXPANDED_CHARS:
                        self.too_large(line, mark.column + 1, frame[1])
                    seen = frame[5]
                    if text in seen:
                        self.duplicate(text, line, mark.column + 1, frame[1], seen[text])
                    else:
                        seen[text] = line
                    at = frame[1] + (text,)
                    marks.append((at, (line, mark.column + 1), True))
                    frame[4] = (text, line, at)
                    continue
                else:
                    at = frame[4][2]
                if cls is _SCALAR and ev.tag is None and ev.anchor is None:
                    mark = ev.start_mark
                    marks.append((at, (mark.line + 1, mark.column + 1), False))
                    text = ev.value
                    self.chars += len(text)
                    if self.chars > MAX_EXPANDED_CHARS:
                        self.too_large(mark.line + 1, mark.column + 1, at)
                    if ev.style or (text[:1].isalpha() and text not in _WORDS):
                        value = text
                    else:
                        value = resolve_plain(text)
                        if value is _MERGE:
                            value = "<<"
                elif cls is _SCALAR:
                    value = self.scalar_value(ev, at)
                elif cls is _MAPPING_START or cls is _SEQUENCE_START:
                    self.open_collection(stack, ev, at)
                    continue
                else:
                    value = self.alias(ev, at)
            # the finished value goes into the enclosing collection
            if container.__class__ is list:
                container.append(value)
            else:
                key = frame[4][0]
                frame[4] = _NO_KEY
                if key is not None:  # None: the value of a refused merge key, dropped
                    container[key] = value

    def open_collection(self, stack: list, event, at: tuple) -> None:
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
        # frame: container, path, anchor, marks index, pending (key, line), first-seen key lines,
        # characters built before it
        stack.append(
            [{} if is_map else [], at, event.anchor, len(self.marks) - 1, _NO_KEY, {}, self.chars]
        )

    def scalar_value(self, ev, path: tuple) -> Any:
        """A scalar in value position: record its position, resolve it, register its anchor."""
        mark = ev.start_mark
        pos = (mark.line + 1, mark.column + 1)
        marks = self.marks
        marks.append((path, pos, False))
        text = ev.value
        self.chars += len(text)
        if self.chars > MAX_EXPANDED_CHARS:
            self.too_large(pos[0], pos[1], path)
        if ev.tag is None:  # as scalar() resolves an untagged one
            value = text if ev.style else resolve_plain(text)
        else:
            value = self.scalar(ev, path)
        if value is _MERGE:
            value = "<<"
        if ev.anchor:
            self.anchors[ev.anchor] = (value, path, len(marks) - 1, len(marks))
            self.anchor_chars[ev.anchor] = len(text)
        return value

    def key(self, ev, frame: list) -> None:
        mark = ev.start_mark
        line, col = mark.line + 1, mark.column + 1
        parent = frame[1]
        if isinstance(ev, _pyyaml.ScalarEvent):
            text = ev.value
            self.chars += len(text)
            if self.chars > MAX_EXPANDED_CHARS:
                self.too_large(line, col, parent)
            if ev.tag is None:  # as scalar() resolves an untagged one
                raw = text if ev.style else resolve_plain(text)
            else:
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
            frame[4] = (None, line, parent + (None,))  # consume and drop the value
            return
        key = js_key(raw)
        seen = frame[5]
        if key in seen:
            self.duplicate(key, line, col, parent, seen[key])
        else:
            seen[key] = line
        at = parent + (key,)
        self.marks.append((at, (line, col), True))
        frame[4] = (key, line, at)

    def duplicate(self, key: str, line: int, col: int, parent: tuple, first: int) -> None:
        self.error(
            line,
            col,
            parent + (key,),
            f"duplicated mapping key '{excerpt(key)}' (line {line}; first defined on line {first})",
            "remove one of the two entries",
        )


_NO_KEY = object()
_EMPTY = object()
# libyaml's parser makes events of exactly these classes (yaml/_yaml.pyx, _event_to_object)
_SCALAR = _pyyaml.ScalarEvent
_MAPPING_START, _SEQUENCE_START = _pyyaml.MappingStartEvent, _pyyaml.SequenceStartEvent
_MAPPING_END, _SEQUENCE_END = _pyyaml.MappingEndEvent, _pyyaml.SequenceEndEvent


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


_PARSED: dict | None = (
    None  # (display path, require_mapping, bytes) -> LoadedYaml; see remember_parses
)
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
