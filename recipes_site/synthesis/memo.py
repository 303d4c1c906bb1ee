"""Answers kept for the length of one `synthesize_recipe` call.

Synthesis asks one recipe the same questions many times: which features a strategy may carry
(the same on every hardware), which are on for a variant on a hardware (the same for every
strategy), which strategies the recipe offers at all. While `synthesizing(recipe)` is active
those answers are kept, keyed by plain values (ids, names); outside it (`render_choice`, tests,
another recipe) every call computes afresh, so nothing leaks from one recipe to the next and a
recipe dict edited between two calls is read again. An answer about one profile has the
profile's label in its key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .recording import Trace

_active: ContextVar[tuple[dict, dict, Trace | None] | None] = ContextVar(
    "synthesis_memo", default=None
)


@contextmanager
def synthesizing(recipe: dict, trace: Trace | None = None) -> Iterator[None]:
    """Keep answers about `recipe` (this very dict) until the block ends. With the recipe's `trace`
    (synthesis/recording.py), each answer keeps the hardware questions its computation read, and a
    piece of synthesis that reads the kept answer is traced as having read them too."""
    token = _active.set((recipe, {}, trace))
    try:
        yield
    finally:
        _active.reset(token)


def remembered(recipe: dict, key: tuple, compute: Callable[..., Any], *args: Any) -> Any:
    """`compute(*args)`, kept under `key` while `recipe` is being synthesized. The value is shared
    between callers: they must not change it. With a Trace (synthesis/recording.py), the entry
    keeps the record keys its computation read and hands them to every later reader's piece."""
    active = _active.get()
    if active is None or active[0] is not recipe:
        return compute(*args)
    _, kept, trace = active
    if trace is None:
        value = kept.get(key, _MISSING)
        if value is _MISSING:
            value = kept[key] = compute(*args)
        return value
    entry = kept.get(key)  # (value, the record keys computing it read)
    if entry is None:
        entry = kept[key] = trace.run(compute, args)
    elif entry[1] and trace.keys is not None:
        trace.keys.update(entry[1])
    return entry[0]


_MISSING = object()
