"""The reference corpus was written for a JavaScript renderer; these helpers give its YAML the
same meaning here.

`{}` and `[]` count as set (truthy) while `""`, `0`, `None` and `False` do not; hardware-keyed
maps fall through only on a missing or null entry. Using Python truthiness instead would
silently change commands (an empty `blackwell: {}` block must still shadow `nvidia:`).
"""

from __future__ import annotations

from typing import Any


def truthy(value: Any) -> bool:
    if value is None or value is False:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value != 0
    if isinstance(value, str):
        return value != ""
    return True


def truthy_items(values: list) -> list:
    """The items of ``values`` that `truthy` keeps (JavaScript's ``filter(Boolean)``)."""
    return [v for v in values if truthy(v)]


def mapping(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def str_list(value: Any) -> list:
    return value if isinstance(value, list) else []


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def js_str(value: Any) -> str:
    """How the reference prints a scalar into a shell string (`true`, `null`, `8` not `8.0`)."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
