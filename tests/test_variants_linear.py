"""Issue 25 point 5: one recipe's synthesis costs in proportion to its variants (no timing: the
figures live in benchmarks/hostile_bench.py). Each test counts the work of one step for a recipe
of N and of 2N variants, each serving its own checkpoint, and asks that it at most about doubles:
a step that rescans every variant (or a record grown by every variant) for each variant quadruples.
"""

from __future__ import annotations

import synthesis_kit as H

from recipes_site.synthesis import recording, selection, synthesize_recipe

ctx = H.context()


def _checkpoints(n: int, vram: int = 16, **top) -> dict:
    """A recipe of `n` variants besides `default`, each serving its own checkpoint."""
    r = H.recipe(vram=vram, **top)
    for i in range(n):
        r["variants"][f"v{i}"] = {
            "precision": "fp8",
            "vram_minimum_gb": vram,
            "model_id": f"acme/Test-8B-V{i}",
        }
    return r


def _grows_linearly(work) -> tuple[int, int]:
    small, large = work(40), work(80)
    assert 0 < small and large <= 2.2 * small, (small, large)
    return small, large


class _CountingDict(dict):
    """A record's answers, counting the entries read."""

    reads = 0

    def __getitem__(self, key):
        _CountingDict.reads += 1
        return super().__getitem__(key)

    def get(self, key, default=None):
        _CountingDict.reads += 1
        return super().get(key, default)

    def items(self):
        for item in super().items():
            _CountingDict.reads += 1
            yield item

    def values(self):
        for _key, value in self.items():
            yield value

    def __iter__(self):
        for key, _value in self.items():
            yield key


class _CountingList(list):
    """A record's keys in the order noted, counting the entries read."""

    def __getitem__(self, index):
        value = super().__getitem__(index)
        _CountingDict.reads += len(value) if isinstance(index, slice) else 1
        return value

    def __iter__(self):
        for value in super().__iter__():
            _CountingDict.reads += 1
            yield value


def test_checking_profiles_against_a_record_reads_only_what_it_gained(monkeypatch):
    """Every variant tree checks each profile against the profiles synthesized before it, and their
    records hold the questions of every tree so far: a check that walked a whole record again
    (the answers it agreed with before) would read O(N) entries per tree, O(N^2) per recipe."""
    original = recording.Recording.__init__

    def counting(self, *args):
        original(self, *args)
        self.answers = _CountingDict(self.answers)
        if isinstance(getattr(self, "asked", None), list):
            self.asked = _CountingList(self.asked)

    monkeypatch.setattr(recording.Recording, "__init__", counting)
    checking = recording.Recording.agrees

    def agrees(self, other):
        before = _CountingDict.reads
        try:
            return checking(self, other)
        finally:
            read[0] += _CountingDict.reads - before

    monkeypatch.setattr(recording.Recording, "agrees", agrees)
    read = [0]

    def work(n: int) -> int:
        read[0] = 0
        rendered = synthesize_recipe(ctx, "acme/Test-8B", _checkpoints(n), frozenset())
        assert len(rendered.trees) == n + 1 and len(rendered.trees[-1].by_hardware) > 5
        return read[0]

    _grows_linearly(work)


def test_an_oversized_variant_on_a_fixed_size_machine_is_swapped_once_per_profile(monkeypatch):
    """On a machine that cannot be clustered, every variant too large for it is swapped for the
    largest variant that fits (the same one for all of them): it is looked for once per profile,
    not by rescanning every variant for each variant."""
    sizes = []

    def vram_needed(variant):
        sizes.append(variant)
        return needed(variant)

    needed = selection.vram_needed
    monkeypatch.setattr(selection, "vram_needed", vram_needed)

    def work(n: int) -> int:
        sizes.clear()
        r = _checkpoints(n, vram=100, meta={"title": "T", "hardware": {"rtx_5090": "verified"}})
        r["variants"]["small"] = {"precision": "fp8", "vram_minimum_gb": 24}
        rendered = synthesize_recipe(ctx, "acme/Test-8B", r, frozenset())
        on_5090 = [
            result.recommended.variant
            for tree in rendered.trees
            for result in tree.by_hardware
            if result.hardware == "rtx_5090"
        ]
        assert len(on_5090) == n + 1 and set(on_5090) == {"small"}
        return len(sizes)

    _grows_linearly(work)
