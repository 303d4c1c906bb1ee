"""Validate plain data against a pydantic model and turn its errors into readable Diagnostics.

Each pydantic error becomes one diagnostic at the right key and line: "unknown key 'varaints'
(did you mean 'variants'?)", "expected a list of strings, got a string", never the raw pydantic
text.
"""

from __future__ import annotations

import re
import types as _pytypes
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, Discriminator, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails

from recipes_site.catalog.diagnostics import Diagnostic, Level, excerpt, format_key_path, locate
from recipes_site.catalog.ids import ID_HINT
from recipes_site.catalog.types import DATE_ERROR, ID_ERROR, TAG_PREFIX, UNION_ERROR, value_kind
from recipes_site.jsish import js_str
from recipes_site.suggest import closest

_KEY = "[key]"


# ---- walking annotations -------------------------------------------------------------------------


def _strip(tp: Any) -> tuple[Any, str | None]:
    """Remove Annotated/Optional layers; also return a tagged union's description, if any."""
    description = None
    while True:
        origin = get_origin(tp)
        if origin is Annotated:
            args = get_args(tp)
            for meta in args[1:]:
                if isinstance(meta, Discriminator) and meta.custom_error_message:
                    description = meta.custom_error_message
            tp = args[0]
            continue
        if origin in (Union, _pytypes.UnionType):
            members = [a for a in get_args(tp) if a is not type(None)]
            if len(members) == 1:
                tp = members[0]
                continue
        return tp, description


def _tag_of(tp: Any) -> str | None:
    if get_origin(tp) is Annotated:
        for meta in get_args(tp)[1:]:
            tag = getattr(meta, "tag", None)
            if isinstance(tag, str):
                return tag
    return None


def annotation_at(model: type[BaseModel], loc: tuple) -> Any:
    """The annotation found at pydantic ``loc`` inside ``model`` (None if it cannot be followed)."""
    tp: Any = model
    parts = list(loc)
    i = 0
    while i < len(parts):
        part = parts[i]
        tp, _ = _strip(tp)
        if isinstance(part, str) and part.startswith(TAG_PREFIX):
            for member in get_args(tp):
                if _tag_of(member) == part:
                    tp = member
                    break
            else:
                return None
        elif isinstance(tp, type) and issubclass(tp, BaseModel):
            field = tp.model_fields.get(part) if isinstance(part, str) else None
            if field is None:
                return None
            tp = _field_type(field)
        elif get_origin(tp) is dict:
            key_tp, value_tp = get_args(tp)
            if i + 1 < len(parts) and parts[i + 1] == _KEY:
                tp = key_tp
                i += 1
            else:
                tp = value_tp
        elif get_origin(tp) is list:
            tp = get_args(tp)[0]
        else:
            return None
        i += 1
    return tp


def _field_type(field: FieldInfo) -> Any:
    return field.annotation


def describe_type(tp: Any) -> str:
    """'a list of strings', 'an integer', 'one of: dense, moe', 'a mapping'..."""
    tp, description = _strip(tp)
    if description:
        return description
    origin = get_origin(tp)
    if origin is Literal:
        values = get_args(tp)
        if all(isinstance(v, bool) for v in values):
            return " or ".join(js_str(v) for v in values)
        return "one of: " + ", ".join(str(v) for v in values)
    if origin is list:
        item = describe_type(get_args(tp)[0])
        return "a list of " + _plural(item)
    if origin is dict:
        value = describe_type(get_args(tp)[1])
        if value == "a mapping":
            return "a mapping"
        return "a mapping of names to " + _plural(value)
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return "a mapping"
    return {str: "a string", int: "an integer", float: "a number", bool: "true or false"}.get(
        tp, "a value"
    )


def _plural(desc: str) -> str:
    if desc.startswith("one of: "):
        return "values among: " + desc[len("one of: ") :]
    for article in ("a ", "an "):
        if desc.startswith(article):
            noun = desc[len(article) :]
            if noun == "true or false":
                return "booleans"
            head, sep, tail = noun.partition(" ")
            return head + "s" + sep + tail
    return desc


def describe_value(value: Any) -> str:
    kind = value_kind(value)
    if kind == "str":
        return f'a string ("{excerpt(value, 40)}")'
    if kind == "int":
        return f"an integer ({excerpt(str(value) if value.bit_length() < 1000 else '(huge)', 40)})"
    if kind == "float":
        return f"a number ({_js_number(value)})"
    if kind == "bool":
        return f"a boolean ({js_str(value)})"
    if kind == "null":
        return "null (an empty value)"
    if kind == "list":
        return "a list"
    if kind == "map":
        return "a mapping"
    return kind


def _js_number(value: float) -> str:
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return repr(value)


# ---- one error -> one diagnostic ---------------------------------------------------------------


def _clean(loc: tuple) -> tuple:
    """Data key path of a pydantic loc: drop union tags and the dict-key marker."""
    return tuple(
        p for p in loc if not (isinstance(p, str) and (p.startswith(TAG_PREFIX) or p == _KEY))
    )


def did_you_mean(word: Any, choices, *, cutoff: float = 0.6) -> str:
    """ "did you mean 'x'?" for the closest choice (or a case-insensitive match), else ""."""
    if not isinstance(word, str):
        return ""
    pool = [c for c in choices if isinstance(c, str)]
    found = closest(word, pool, cutoff)
    match = [found] if found is not None else []
    if not match:
        lowered = {c.lower(): c for c in pool}
        if word.lower() in lowered:
            match = [lowered[word.lower()]]
    return f"did you mean '{match[0]}'?" if match else ""


_LITERAL_RE = re.compile(r"'((?:[^'\\]|\\.)*)'")
_BOOL_WORDS = {"yes", "no", "on", "off", "y", "n", "true", "false", "True", "False"}


def _error_to_diag(
    model: type[BaseModel], err: ErrorDetails, display: str, positions: dict, key_positions: dict
) -> Diagnostic:
    loc = tuple(err.get("loc", ()))
    etype = err.get("type", "")
    value: Any = err.get("input")
    path = _clean(loc)
    hint = ""

    if etype == "extra_forbidden":
        name = path[-1] if path else ""
        parent_tp, _ = _strip(annotation_at(model, loc[:-1]))
        allowed = (
            list(parent_tp.model_fields)
            if isinstance(parent_tp, type) and issubclass(parent_tp, BaseModel)
            else []
        )
        message = f"unknown key '{excerpt(name)}'"
        hint = did_you_mean(name, allowed)
        if not hint and allowed:
            hint = "allowed keys: " + ", ".join(allowed)
        line, col = locate(positions, key_positions, path, at_key=True)
    elif etype == "missing":
        name = path[-1] if path else ""
        parent = path[:-1]
        message = f"missing required key '{name}'"
        if parent in key_positions:
            line, col = key_positions[parent]
        else:
            line, col = locate(positions, key_positions, parent)
        return Diagnostic(display, line, col, Level.ERROR, format_key_path(path), message, hint)
    else:
        tp = annotation_at(model, loc)
        expected = describe_type(tp) if tp is not None else "a different value"
        got = describe_value(value)
        ctx = err.get("ctx") or {}
        if etype == ID_ERROR:
            message = str(err.get("msg"))
            hint = ID_HINT
        elif etype == DATE_ERROR:
            message = str(err.get("msg"))
            hint = "write a real calendar date YYYY-MM-DD"
        elif etype == UNION_ERROR:
            message = f"expected {err.get('msg') or expected}, got {got}"
        elif etype == "value_error":  # a model's own rule (a validator raising ValueError)
            message = str(ctx.get("error") or err.get("msg"))
        elif etype == "literal_error":
            options = _LITERAL_RE.findall(str(ctx.get("expected", "")))
            if not options:
                options = [
                    o.strip()
                    for o in str(ctx.get("expected", "")).replace(" or ", ",").split(",")
                    if o.strip()
                ]
            if isinstance(value, str):
                shown = ", ".join(o if o not in ("True", "False") else o.lower() for o in options)
                message = f"unknown value '{excerpt(value)}'; expected one of: {shown}"
                hint = did_you_mean(value, options)
            else:
                message = f"expected {expected}, got {got}"
        elif etype == "string_pattern_mismatch":
            pattern = str(ctx.get("pattern", ""))
            if "[0-9]{4}-" in pattern:
                message = f"expected a date YYYY-MM-DD, got {got}"
            elif "A-Za-z_" in pattern:
                message = f"'{excerpt(value)}' is not a valid environment variable name"
                hint = "use letters, digits and underscores, not starting with a digit"
            else:
                message = f"{got} does not match the pattern {pattern}"
        elif etype in ("greater_than_equal", "greater_than"):
            bound = ctx.get("ge", ctx.get("gt"))
            op = "≥" if etype == "greater_than_equal" else ">"
            message = f"expected {expected} {op} {bound}, got {got}"
        elif etype in ("less_than_equal", "less_than"):
            bound = ctx.get("le", ctx.get("lt"))
            op = "≤" if etype == "less_than_equal" else "<"
            message = f"expected {expected} {op} {bound}, got {got}"
        elif etype == "string_too_long":
            message = f"expected at most {ctx.get('max_length')} characters, got {len(value)}"
        elif etype == "too_long":
            count = len(value) if isinstance(value, (dict, list)) else ctx.get("actual_length")
            message = f"expected at most {ctx.get('max_length')} entries, got {count}"
            hint = "split the recipe, or keep the entries readers choose between"
        elif etype == "finite_number":
            message = f"expected a finite number, got {got}"
        else:
            message = f"expected {expected}, got {got}"
            kind = value_kind(value)
            if expected.startswith("a list") and kind == "str":
                hint = f'write it as a YAML list: - "{excerpt(value, 40)}"'
            elif expected == "a string" and kind in ("int", "float", "bool"):
                shown = _js_number(value) if kind == "float" else js_str(value)
                hint = f'quote it: "{shown}"'
            elif expected == "true or false" and kind == "str" and value in _BOOL_WORDS:
                hint = "write true or false (in YAML 1.2, yes/no/on/off are strings)"
            elif (
                expected.startswith("an integer")
                and kind == "str"
                and value.strip().lstrip("-").isdigit()
            ):
                hint = f"write the number without quotes: {excerpt(value.strip(), 40)}"
            elif kind == "null":
                hint = "the key has no value; remove it or fill it in"
            elif kind == "float" and value in (float("inf"), float("-inf")):
                hint = "the number is too large: YAML reads it as Infinity, as JavaScript does"
        line, col = locate(positions, key_positions, path)
    return Diagnostic(display, line, col, Level.ERROR, format_key_path(path), message, hint)


Model = TypeVar("Model", bound=BaseModel)


def validate(
    model: type[Model],
    data: Any,
    display: str,
    positions: dict,
    key_positions: dict,
    *,
    suppress: set | frozenset = frozenset(),
) -> tuple[Model | None, list[Diagnostic]]:
    """``model.model_validate(data)``; on failure, one Diagnostic per error (none at a key path in
    ``suppress``, where another rule already reports a clearer message)."""
    try:
        return model.model_validate(data), []
    except ValidationError as exc:
        diags: list[Diagnostic] = []
        seen: set = set()
        for err in exc.errors(include_url=False):
            path = _clean(tuple(err.get("loc", ())))
            if path in suppress:
                continue
            diag = _error_to_diag(model, err, display, positions, key_positions)
            if (diag.key_path, diag.message) in seen:
                continue
            seen.add((diag.key_path, diag.message))
            diags.append(diag)
        return None, diags
