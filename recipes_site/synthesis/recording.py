"""Rendering a variant once for every hardware profile that would give the same commands.

The same variant usually renders the same commands on H100, H200, B200 and B300 (or on the
three AMD profiles): only the `hardware` label of the renderings differs. Working out which
profiles agree from the profiles themselves would mean listing every fact synthesis reads of a
profile, and keeping that list right as the rules grow. Instead, one synthesis *records* what it
read: synthesis is handed a `Recording` in place of the `Hardware`, which notes down every fact
read of it and every answer of a `hardware_query` function, with the arguments it was asked with.
Another profile may take that synthesis's result, re-labelled, only when it gives the same answer
to every recorded question (`Recording.agrees`). Synthesis is a deterministic function of those
answers (and of the recipe and vocabulary, which are the same), so it would take the same path
there and build the same commands: the result is right by construction, whatever the rules read.

What goes unrecorded is `label` alone: the profile id as a name, for the renderings' `hardware`
field and the keys of per-recipe memos. A decision that reads the id reads `id` (or asks
`entry`/`named_in`), and is recorded. Questions are asked at the level their answers are shared
at: `fits_node` rather than the raw VRAM, `image_brand` rather than the generation, so that H100
and H200 (different VRAM) or H200 and B200 (different generations) still agree where the recipe
does not tell them apart.

A profile that disagrees somewhere may still agree on what one strategy's rendering read: `Pieces`
shares renderings at that finer grain, checked against the keys each one read (`Trace`).

Kept per `synthesize_recipe` call (synthesis/__init__.py); nothing outlives the recipe.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from typing import Any

from .hardware import Hardware
from .types import HardwareResult, hardware_result


@functools.cache
def _attribute(name: str) -> Callable:
    """Reads fact `name` of a profile (one function per name: a stable record key). Bounded by the
    names Hardware has."""

    def read(hw):
        return getattr(hw, name)

    return read


def _asked_method(method: Callable) -> Callable:
    """Recording's form of a one-argument Hardware method (`keyed`, `entry`, ...): asked through
    `Recording.ask`, so its answer is noted per argument and traced on every read."""

    def asked(self, arg: Any) -> Any:
        return self.ask(method, 0, (arg,))

    return asked


def _noted_fact(name: str) -> property:
    """Recording's form of the fact `name` (id, profile, brand, generation, gpus, ...): asked
    through `Recording.ask` as a question without arguments, so a later read, in another piece, is
    traced too."""
    read_fact = _attribute(name)
    return property(lambda self: self.ask(read_fact, 0, ()))


def _recorded_reads(cls: type) -> type:
    """Gives `cls` (Recording) the recorded form of every public fact and one-argument method of
    Hardware but `label` (`_noted_fact`, `_asked_method`), so that none can be read unnoted and an
    attribute Hardware lacks raises AttributeError as it would there."""
    names = [f.name for f in dataclasses.fields(Hardware)]
    names += [name for name in vars(Hardware) if not name.startswith("_") and name not in names]
    for name in names:
        if (
            name == "label"
        ):  # the profile id as a name, not recorded: an attribute of each Recording
            continue
        found = inspect.getattr_static(Hardware, name, None)
        if inspect.isfunction(found):
            if len(inspect.signature(found).parameters) != 2:
                raise TypeError(
                    f"Hardware.{name}: a Recording records methods of one argument (self, arg)"
                )
            setattr(cls, name, _asked_method(found))
        else:
            setattr(cls, name, _noted_fact(name))
    return cls


@_recorded_reads
class Recording:
    """A `Hardware` whose reads are noted down: raw facts on first read, `hardware_query` answers
    and method calls (`keyed`, `entry`, ...) per distinct arguments. One per profile per recipe,
    so its record covers every memo computed for that profile while the recipe is synthesized."""

    def __init__(self, hw: Hardware, trace: Trace | None = None):
        self.hw = hw
        self.label = hw.id
        # the recipe's Trace when synthesis reuses pieces of a tree (`Pieces`): every answer read,
        # first time or again, is then traced, and facts are not kept as attributes (a later read
        # must be traced too)
        self.trace = trace
        # (function, id of each argument) -> (function, arguments before and after the hardware,
        # answer); the arguments are held so that their ids stay theirs while the record lives
        self.answers: dict = {}
        # the keys of `answers` in the order noted (`note`): `agrees` goes on from a position
        self.asked: list = []
        # the same keys -> what this profile answered when another's record was checked against it
        # (`agrees`): asked once however many records it is checked against
        self.replies: dict = {}
        # another Recording -> how many of this record's answers (the first of `asked`) it was
        # found to agree with, or -1 once it disagreed with one (`agrees`)
        self._agreed: dict = {}
        # another Recording -> {key of this record: whether it answers that question alike}
        # (`agrees_on`: the pieces of a profile share most of their questions; each is compared once
        # per pair of profiles)
        self._verdicts: dict = {}

    def ask(self, fn: Callable, index: int, rest: tuple) -> Any:
        """`fn` called with the plain hardware at position `index` among `rest`, noted down. Asked
        again with the very same arguments, the noted answer is the answer (the function is pure
        and its arguments unchanged): callers share it and must not change it."""
        key = (fn, *map(id, rest))
        if self.trace is not None and self.trace.keys is not None:
            self.trace.keys[key] = None
        noted = self.answers.get(key)
        if noted is not None:
            return noted[3]
        before, after = rest[:index], rest[index:]
        answer = self.replies.get(key, _UNASKED)  # answered already while checked against a record
        if answer is _UNASKED:
            answer = fn(*before, self.hw, *after)
        self.note(key, (fn, before, after, answer))
        return answer

    def note(self, key: tuple, noted: tuple) -> None:
        """Notes question `key`, answered as `noted` (`answers`), at the end of the record."""
        self.answers[key] = noted
        self.asked.append(key)

    def agrees(self, other: Recording) -> bool:
        """Whether `other`'s profile answers every question noted here exactly as this profile did
        (in the order first asked, stopping at the first difference, as a synthesis there would).

        A record only grows (a question is noted once, its answer never changes) and a profile's
        replies are fixed, so a pair checked before is checked again from where it stopped: the
        answers it agreed with are not compared again (the next variant tree of a recipe checks
        the same pairs against records grown by its own questions), and a pair that disagreed
        still does. It goes on from a position in `asked`: walking `answers` up to it again would
        cost every record entry per tree, quadratic in a recipe's variants."""
        answers, asked = self.answers, self.asked
        done = self._agreed.get(other, 0)
        if done < 0:
            return False
        for position in range(done, len(asked)):
            key = asked[position]
            if not _answered_alike(key, answers[key], other):
                self._agreed[other] = -1
                return False
        self._agreed[other] = len(asked)
        return True

    def agrees_on(self, keys: dict, other: Recording) -> bool:
        """Whether `other`'s profile answers the questions `keys` (keys of this record, as a `Trace`
        gives them) exactly as this profile did, in that order, stopping at the first difference.
        When it does, they are noted in `other`'s record with its own replies (and traced there), as
        if its synthesis had asked them: a piece taken from here is then part of what `other`'s
        record covers, and a third profile agreeing with that record agrees with the piece too."""
        answers = self.answers
        verdicts = self._verdicts.get(other)
        if verdicts is None:
            verdicts = self._verdicts[other] = {}
        for key in keys:
            verdict = verdicts.get(key)
            if verdict is None:
                verdict = verdicts[key] = _answered_alike(key, answers[key], other)
            if not verdict:
                return False
        for key in keys:
            if key not in other.answers:
                fn, before, after, _ = answers[key]
                other.note(key, (fn, before, after, other.replies[key]))
        if other.trace is not None and other.trace.keys is not None:
            other.trace.keys.update(keys)
        return True


def _answered_alike(key: tuple, noted: tuple, other: Recording) -> bool:
    """Whether `other`'s profile answers the question `key`, noted (`Recording.answers`) as
    `noted`, exactly as it was answered there; its reply is asked once (`other.replies`)."""
    fn, before, after, answer = noted
    replies = other.replies
    reply = replies.get(key, _UNASKED)
    if reply is _UNASKED:
        reply = replies[key] = fn(*before, other.hw, *after)
    return reply is answer or same(reply, answer)  # most are the very same object


class Trace:
    """The record keys (`Recording.answers`) a piece of a recipe's synthesis read, one per recipe,
    shared by its Recordings and its memo (synthesis/memo.py).

    A tree's result is shared whole between profiles that agree on the whole record; a piece of it
    (one strategy's rendering) only needs agreement on the questions that piece read. Those include
    answers read again from the record (`ask` returns a noted answer without asking) and answers
    hidden in a memo hit (the memo's value was computed while an earlier piece ran): so every read
    of a Recording is traced while `keys` is a dict, and a memo entry keeps the keys its value read
    (`run`) and adds them to the reader's on every hit."""

    __slots__ = ("keys",)

    def __init__(self):
        self.keys: dict | None = None  # key -> None, in first-read order; None: outside any piece

    def run(self, compute: Callable, args: tuple) -> tuple[Any, dict]:
        """`compute(*args)` and the keys it read (each once, in first-read order: a dict's keys);
        the enclosing piece, if any, has read them too."""
        outer = self.keys
        inner: dict = {}
        self.keys = inner
        try:
            value = compute(*args)
        finally:
            self.keys = outer
        if outer is not None:
            outer.update(inner)
        return value, inner


class Pieces:
    """Results of pieces of a recipe's synthesis (one per call site and arguments: which strategy
    of which variant, on how many nodes), each with the Recording it was made on and the keys it
    read. A profile takes an earlier profile's piece when it answers those keys alike
    (`Recording.agrees_on`); the piece is a function of its arguments, the recipe and those answers
    alone. Kept per `synthesize_recipe` call: bounded by the recipe's pieces and profiles."""

    def __init__(self, trace: Trace):
        self.trace = trace
        self.made: dict = {}  # piece key -> [(recording, keys, value), ...]

    def get(self, key: tuple, hw: Recording, compute: Callable, args: tuple) -> tuple[Any, bool]:
        """(value, True) for a piece `hw` takes from an earlier profile (to be re-labelled by the
        caller), else (`compute(*args)` made on `hw`, False)."""
        made = self.made.get(key)
        if made is None:
            made = self.made[key] = []
        else:
            for earlier, keys, value in reversed(made):
                if earlier.agrees_on(keys, hw):
                    return value, True
        value, keys = self.trace.run(compute, args)
        made.append((hw, keys, value))
        return value, False


_UNASKED = object()


def hardware_query(fn: Callable) -> Callable:
    """Marks `fn`, a pure function of its arguments and its `hw` parameter, as one question about
    the hardware: on a `Recording` its answer is noted down (and `fn` reads the plain profile);
    on a plain `Hardware` it is simply called. Its arguments must be passed by position and must
    not change afterwards (recipe parts, strings, numbers, tuples): `agrees` asks again with them.
    Its answer may be handed to several callers: none may change it."""
    index = list(inspect.signature(fn).parameters).index("hw")

    @functools.wraps(fn)
    def query(*args):
        hw = args[index]
        if isinstance(hw, Recording):
            return hw.ask(fn, index, args[:index] + args[index + 1 :])
        return fn(*args)

    return query


_SCALARS = (str, int, float, bool, type(None))


def same(a: Any, b: Any) -> bool:
    """Equality that tells apart what prints differently: `True`, `1` and `1.0`, a Placeholder and
    an equal recipe string, and dicts in another key order. Anything it does not know is the same
    only as the very same object."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if isinstance(a, _SCALARS):
        return a == b and (kind is not float or repr(a) == repr(b))  # 0.0 and -0.0
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):  # keys and values pairwise, in order
        return len(a) == len(b) and all(map(same, a, b)) and all(map(same, a.values(), b.values()))
    if dataclasses.is_dataclass(a):  # field by field
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    return False


def relabelled(result: HardwareResult | None, label: str) -> HardwareResult | None:
    """`result` as made for the profile `label`: only the `hardware` of it and of its renderings
    names the profile (synthesis writes `Hardware.label` nowhere else)."""
    if result is None:
        return None
    return hardware_result(
        hardware=label,
        recommended=result.recommended.relabelled(label),
        alternatives=tuple(r.relabelled(label) for r in result.alternatives),
    )
