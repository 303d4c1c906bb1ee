"""Answers kept for the length of one `synthesize_recipe` call.

Synthesis asks one recipe the same questions many times: which features a strategy may carry
(the same on every hardware), which are on for a variant on a hardware (the same for every
strategy), which strategies the recipe offers at all. While `synthesizing(recipe)` is active
those answers are kept, keyed by plain values (ids, names); outside it (`render_choice`, tests,
another recipe) every call computes afresh, so nothing leaks from one recipe to the next and a
recipe dict edited between two calls is read again. An answer about one profile
(`remembered_on`) is kept per profile, and another profile takes it when it answers every
question its computation read alike (synthesis/recording.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from .recording import Recording

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
    between callers: they must not change it. (`args` rather than a closure: no function object is
    made for each of the ~50k look-ups of a compat build, nearly all of them hits.)"""
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


def remembered_on(
    recipe: dict, key: tuple, hw: Any, compute: Callable[..., Any], *args: Any
) -> Any:
    """`compute(*args)`, an answer about the profile `hw`, kept under `key` for that profile (its
    label) while `recipe` is being synthesized. When the profile has none yet and the synthesis
    records its reads (`hw` a Recording, a Trace active), an entry made for another profile under
    `key` is taken when `hw` answers every question that entry's computation read alike
    (`Recording.agrees_on`, as a piece of synthesis is: recording.Pieces), instead of computing
    it again (profiles that disagree on one strategy's layout still agree on their variant's args,
    image and features). So `key` and `args` must not depend on the profile but through `hw`:
    everything else the value depends on is the recipe, the arguments (the same objects for every
    profile) and the questions it asks of `hw`. Bounded as `remembered`: by the recipe's questions
    and profiles."""
    active = _active.get()
    if active is None or active[0] is not recipe:
        return compute(*args)
    _, kept, trace = active
    own = (key, hw.label)
    if trace is None or type(hw) is not Recording:
        value = kept.get(own, _MISSING)
        if value is _MISSING:
            value = kept[own] = (compute(*args), ())
        return value[0]
    entry = kept.get(own)  # (value, the record keys computing it read)
    if entry is None:
        made = kept.get((_SHARED, key))
        if made is None:
            made = kept[(_SHARED, key)] = []
        else:
            for earlier, keys, value in reversed(made):
                if earlier.agrees_on(keys, hw):  # notes and traces `keys` for `hw`
                    kept[own] = (value, keys)
                    return value
        entry = kept[own] = trace.run(compute, args)
        made.append((hw, entry[1], entry[0]))
    elif entry[1] and trace.keys is not None:
        trace.keys.update(entry[1])
    return entry[0]


_MISSING = object()
_SHARED = object()  # marks the key of the entries of every profile (`remembered_on`)
