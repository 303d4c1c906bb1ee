"""Answers kept for the length of one `synthesize_recipe` call.

Synthesis asks one recipe the same questions many times: which features a strategy may carry
(the same on every hardware), which are on for a variant on a hardware (the same for every
strategy), which strategies the recipe offers at all. While `synthesizing(recipe)` is active
those answers are kept, keyed by plain values (ids, names); outside it (`render_choice`, tests,
another recipe) every call computes afresh, so nothing leaks from one recipe to the next and a
recipe dict edited between two calls is read again.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Callable, Iterator

_active: ContextVar[tuple[dict, dict] | None] = ContextVar("synthesis_memo", default=None)


@contextmanager
def synthesizing(recipe: dict) -> Iterator[None]:
    """Keep answers about `recipe` (this very dict) until the block ends."""
    token = _active.set((recipe, {}))
    try:
        yield
    finally:
        _active.reset(token)


def remembered(recipe: dict, key: tuple, compute: Callable[..., Any], *args: Any) -> Any:
    """`compute(*args)`, kept under `key` while `recipe` is being synthesized. The value is shared
    between callers: they must not change it. (`args` rather than a closure: no function object is
    made for each of the ~50k look-ups of a compat build, nearly all of them hits.)"""
    active = _active.get()
    if active is None or active[0] is not recipe:
        return compute(*args)
    kept = active[1]
    value = kept.get(key, _MISSING)
    if value is _MISSING:
        value = kept[key] = compute(*args)
    return value


_MISSING = object()
