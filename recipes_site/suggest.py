"""Did-you-mean suggestions for ids a person typed: hardware profile ids, model and checkpoint ids.

Why an index and not `difflib` over every id: the catalog is meant to grow to ten thousand recipes,
and `difflib.get_close_matches` over all of them for every typo is a quadratic-ish scan per call.
Ids are instead bucketed by their *normalised* form (lowercase, letters and digits only, so
`meta-llama/llama-3.3-70b-instruct`, `Meta-Llama/Llama_3.3_70B_Instruct` and
`metallama/llama3370binstruct` meet), by organisation and by the family word a repo name starts
with (`llama`, `qwen3`, `deepseek`). A lookup compares the typed id only with the ids of the closest
organisations and of the same family: a few dozen strings, whatever the catalog size.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter, defaultdict
from functools import lru_cache
from operator import itemgetter

_WORD = re.compile(r"[a-z]+[0-9]*|[0-9]+")
_NOT_ALNUM = re.compile(
    r"[^a-z0-9]+"
)  # lowered text holds no A-Z: the ASCII letters and digits left are these
CUTOFF = 0.6  # difflib's default similarity floor


def normalise(text: str) -> str:
    """Lowercase letters and digits only: separators and case never decide a match. (The
    lowered text's ASCII letters and digits, as a character loop keeping ch.isascii() and
    ch.isalnum() would: one regex pass, ~5x faster on the ~300 ids and lookups of a load.)"""
    return _NOT_ALNUM.sub("", text.lower())


def _family(name: str) -> str:
    """The first word of a repo name (`Llama-3.3-70B` -> `llama`, `Qwen3-8B` -> `qwen3`)."""
    words = _WORD.findall(name.lower())
    return words[0] if words else ""


class NameIndex:
    """Known ids, bucketed for cheap suggestions (see the module docstring)."""

    def __init__(self, names):
        self._exact: dict[str, list[str]] = defaultdict(list)  # normalised id -> ids
        self._by_org: dict[str, list[str]] = defaultdict(list)  # normalised org -> ids
        self._by_family: dict[str, list[str]] = defaultdict(list)
        self._deletes: dict[str, list[str]] | None = None  # see close()
        self._closed: dict[tuple, list[str]] = {}  # close()'s answers
        for name in dict.fromkeys(names):
            org, _, repo = name.rpartition("/")
            self._exact[normalise(name)].append(name)
            self._by_org[normalise(org)].append(name)
            self._by_family[_family(repo)].append(name)

    def suggest(self, wanted: str, limit: int = 3) -> list[str]:
        """Up to `limit` known ids close to `wanted`, best first; [] when nothing is close."""
        key = normalise(wanted)
        if key in self._exact:
            return self._exact[key][:limit]
        org, _, repo = wanted.rpartition("/")
        orgs = (
            difflib.get_close_matches(normalise(org), list(self._by_org), n=3, cutoff=CUTOFF)
            if org
            else []
        )
        pool = {name for o in orgs for name in self._by_org[o]}
        pool.update(self._by_family.get(_family(repo), ()))
        if not org:
            pool.update(self._by_org.get("", ()))  # ids without an org (hardware profiles)
        # with an org, whole ids are compared; without one, the repo names (a bare
        # `llama-3.3-70b-instruct` is closest to `meta-llama/Llama-3.3-70B-Instruct`)
        compare = normalise if org else (lambda name: normalise(name.rpartition("/")[2]))
        by_key: dict[str, list[str]] = defaultdict(list)
        for name in sorted(pool):
            by_key[compare(name)].append(name)
        close = difflib.get_close_matches(key, list(by_key), n=limit, cutoff=CUTOFF)
        return [name for k in close for name in by_key[k]][:limit]

    def close(self, wanted: str, cutoff: float = 0.92, limit: int = 1) -> list[str]:
        """Known ids a typo or two away from `wanted` (difflib ratio >= `cutoff`), best first.

        For references that must be nearly exact (a recipe's `related_recipes`): candidates come
        from a deletion neighbourhood of the normalised ids (every key with one character
        dropped, built on first use), so a lookup costs one dict probe per character of `wanted`
        and finds every id within a substitution, insertion, deletion or swap of it, however
        many ids share its organisation or family. Answers are kept per index (``_closed``,
        bounded by the distinct references asked about): a recipe's stale reference tends to
        recur in its neighbours' related_recipes, and the index never changes."""
        memo_key = (wanted, cutoff, limit)
        found = self._closed.get(memo_key)
        if found is None:
            found = self._closed[memo_key] = self._close(wanted, cutoff, limit)
        return list(found)

    def _close(self, wanted: str, cutoff: float, limit: int) -> list[str]:
        key = normalise(wanted)
        pool = set(self._exact.get(key, ()))
        for probe in _deletions(key):
            pool.update(self._neighbours.get(probe, ()))
        scored = []
        for name in sorted(pool):
            ratio = difflib.SequenceMatcher(None, wanted, name).ratio()
            if ratio >= cutoff:
                scored.append((-ratio, name))
        return [name for _, name in sorted(scored)[:limit]]

    @property
    def _neighbours(self) -> dict[str, list[str]]:
        if self._deletes is None:
            self._deletes = defaultdict(list)
            for key, names in self._exact.items():
                for probe in _deletions(key):
                    self._deletes[probe].extend(names)
        return self._deletes


def _deletions(key: str):
    """`key` and every string made from it by dropping one character."""
    yield key
    for i in range(len(key)):
        yield key[:i] + key[i + 1 :]


def closest(word: str, choices, cutoff: float = CUTOFF) -> str | None:
    """``difflib.get_close_matches(word, choices, n=1, cutoff=cutoff)``'s answer, or None, with
    fewer full comparisons.

    Why: the did-you-mean of a misspelt vLLM variable compares it with the ~340 variables vLLM
    reads, and difflib's per-choice bound (quick_ratio: a Python loop over every character) was
    most of that. Here each choice's characters are counted once per vocabulary and its bound is
    a loop over its distinct characters; the full ratio is then computed in decreasing order of
    the bound, stopping when the bound falls below the best ratio found, and only for a choice
    whose longest common subsequence with the word (lcs_length, a tighter bound) can still reach
    the best. A ratio never exceeds its bounds, so no choice skipped could have won, nor tied:
    ties go to the greater string, as in difflib, whose answer is the max() of its (ratio,
    choice) pairs."""
    if not 0.0 <= cutoff <= 1.0:
        raise ValueError(f"cutoff must be in [0.0, 1.0]: {cutoff!r}")
    counts = Counter(word)
    size = len(word)
    bounded = []
    for choice, length, chars in _char_counts(tuple(choices)):
        total = length + size
        if total and 2.0 * min(length, size) / total < cutoff:  # difflib's real_quick_ratio
            continue
        common = 0
        for char, n in chars:
            have = counts.get(char, 0)
            common += n if n < have else have
        bound = 2.0 * common / total if total else 1.0  # difflib's quick_ratio
        if bound >= cutoff:
            bounded.append((bound, choice))
    bounded.sort(key=itemgetter(0), reverse=True)
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(word)
    best = None
    for bound, choice in bounded:
        if best is not None and bound < best[0]:
            break
        total = len(choice) + size
        if total:  # the tighter bound first: the ratio's matches are a common subsequence
            tighter = 2.0 * lcs_length(choice, word) / total
            if tighter < cutoff or (best is not None and tighter < best[0]):
                continue
        matcher.set_seq1(choice)
        ratio = matcher.ratio()
        if ratio >= cutoff and (best is None or (ratio, choice) > best):
            best = (ratio, choice)
    return None if best is None else best[1]


@lru_cache(maxsize=64)
def _char_counts(choices: tuple) -> tuple:
    """(choice, length, (character, count) pairs) per choice. Bounded: the vocabularies asked
    about (vLLM's variables and flags, a model's keys, the guide sections) are few."""
    return tuple((choice, len(choice), tuple(Counter(choice).items())) for choice in choices)


def lcs_length(a: str, b: str) -> int:
    """Length of the longest common subsequence of ``a`` and ``b``, bit-parallel (Allison and
    Dix 1986; Hyyrö 2004: a bit per character of ``a``, one add and a few logic operations per
    character of ``b``).

    Why: difflib's ratio is 2*M/T where M sums its matching blocks, which lie in order in both
    strings: a common subsequence, so M <= this length, and 2*length/T bounds the ratio far more
    tightly than quick_ratio's character counts. On the compat corpus's misspelt vLLM variables
    closest() computed ~22 full ratios, now 3."""
    masks: dict = {}
    bit = 1
    for char in a:
        masks[char] = masks.get(char, 0) | bit
        bit <<= 1
    full = bit - 1
    row = full
    for char in b:
        mask = masks.get(char)
        if mask:
            low = row & mask
            row = ((row + low) | (row - low)) & full
    return len(a) - row.bit_count()


def did_you_mean(suggestions: list[str]) -> str:
    """` (did you mean a, b or c?)` to follow the id in a message; empty when nothing is close."""
    if not suggestions:
        return ""
    if len(suggestions) == 1:
        return f" (did you mean {suggestions[0]}?)"
    return f" (did you mean {', '.join(suggestions[:-1])} or {suggestions[-1]}?)"


def model_index(catalog) -> NameIndex:
    """Every id `recipes-site command` accepts: recipe ids and the checkpoints their variants serve."""

    def ids():
        for doc in catalog.recipes:
            yield doc.hf_id
            for variant in (doc.data.get("variants") or {}).values():
                checkpoint = (variant or {}).get("model_id") if isinstance(variant, dict) else None
                if isinstance(checkpoint, str) and "/" in checkpoint:
                    yield checkpoint

    return NameIndex(ids())
