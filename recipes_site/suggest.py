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
from collections import defaultdict

_WORD = re.compile(r"[a-z]+[0-9]*|[0-9]+")
CUTOFF = 0.6  # difflib's default similarity floor


def normalise(text: str) -> str:
    """Lowercase ASCII letters and digits only: separators and case never decide a match."""
    return "".join(ch for ch in text.lower() if ch.isascii() and ch.isalnum())


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
        many ids share its organisation or family."""
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
    """The choice most like ``word`` (difflib ratio at least ``cutoff``), or None."""
    found = difflib.get_close_matches(word, choices, n=1, cutoff=cutoff)
    return found[0] if found else None


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
