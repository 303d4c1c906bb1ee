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


def remembered(recipe: dict, key: tuple, compute: Callable[[], Any]) -> Any:
    """`compute()`, kept under `key` while `recipe` is being synthesized. The value is shared
    between callers: they must not change it."""
    active = _active.get()
    if active is None or active[0] is not recipe:
        return compute()
    kept = active[1]
    if key not in kept:
        kept[key] = compute()
    return kept[key]


class lazy_property:
    """`functools.cached_property` without its lock: computed on first access, then read from the
    instance's `__dict__` (this non-data descriptor is not consulted again). Python 3.11's
    cached_property takes an RLock on every first access, and a spec made per rendering is read
    only through first accesses. Bounded by its instance; for objects used by one thread."""

    def __init__(self, func: Callable[[Any], Any]):
        self.func = func
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.func(instance)
        return value
