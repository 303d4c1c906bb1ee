"""Issue 25 point 5: building one recipe costs in proportion to its variants (no timing: the
figures live in benchmarks/hostile_bench.py). Each test counts the work of a step for a recipe
of N and of 2N variants, each serving its own checkpoint, and asks that it at most about doubles:
a step that rescans every variant (or a record grown by every variant) for each variant quadruples.
"""

from __future__ import annotations

import sys

import catalog_kit as K
import synthesis_kit as H

from recipes_site import kubernetes
from recipes_site.build import catalog_files, recipe_files
from recipes_site.catalog import load_catalog
from recipes_site.catalog.types import MAX_VARIANTS
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


def _grows_linearly(work) -> None:
    small, large = work(40), work(80)
    assert 0 < small and large <= 2.2 * small, (small, large)


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


def _python_calls(root, n: int) -> int:
    """Python function calls (generator steps included) of one recipe's files and the site-wide
    files, for the fixture recipe with `n` checkpoint variants written under `root`."""
    K.write_recipe(root, "acme/Widget-7B.yaml", _fixture_with_variants(n))
    catalog, problems = load_catalog(root)
    assert not [p for p in problems if p.level.value == "error"]
    calls = [0]
    # the YAML of objects already dumped by an earlier count: every count dumps its own
    kubernetes._dumped.cache_clear()

    def count(frame, event, arg):
        if event == "call":
            calls[0] += 1

    sys.setprofile(count)
    try:
        _files, summary = recipe_files(catalog, 0)
        site = catalog_files(catalog, [summary])
    finally:
        sys.setprofile(None)
    assert sum(p.endswith("/index.html") for p in site) > n  # a redirect per checkpoint
    return calls[0]


def _fixture_with_variants(n: int) -> str:
    at = '    description: "BF16 weights."\n'
    return K.replace(
        K.VALID_RECIPE,
        at,
        at
        + "".join(
            f"  v{i}:\n    precision: fp8\n    vram_minimum_gb: 9\n"
            f'    model_id: "acme/Widget-7B-V{i}"\n'
            for i in range(n)
        ),
    )


def test_a_recipes_documents_and_pages_grow_linearly_in_its_variants(tmp_path):
    """The documents, the model page, its .md export and the checkpoint redirects of a recipe of
    N variants: no step looks through every variant (or every tree) again for each one. A build
    has fixed costs besides (the site-wide pages), so what is compared is the work that 50 more
    variants add to 30 and 60 more add to 60. Counted after a first small build, so that
    compiled templates and warmed caches count for neither."""
    root = K.make_root(tmp_path)
    _python_calls(root, 5)
    calls = {n: _python_calls(root, n) for n in (30, 60, 120)}  # 120: under MAX_VARIANTS
    first, second = calls[60] - calls[30], calls[120] - calls[60]
    assert 0 < first and second <= 2.15 * first, calls


def test_a_recipe_with_more_variants_than_the_cap_is_refused_at_its_line(tmp_path):
    """The variant cap bounds a recipe's renderings (each variant renders on every profile and
    strategy it lists); the error names the key, the bound and the count."""
    root = K.make_root(tmp_path)
    text = _fixture_with_variants(MAX_VARIANTS)  # with `default`: one over the cap
    path = K.write_recipe(root, "acme/Widget-7B.yaml", text)
    _, problems = load_catalog(root)
    errors = [d for d in problems if d.level.name == "ERROR"]
    first_variant = K.line_of(text, "variants:") + 1  # the mapping the bound is about
    assert [(d.key_path, d.line) for d in errors] == [("variants", first_variant)]
    assert f"expected at most {MAX_VARIANTS} entries, got {MAX_VARIANTS + 1}" in errors[0].message
    path.write_text(_fixture_with_variants(MAX_VARIANTS - 1), encoding="utf-8")
    _, problems = load_catalog(root)
    assert not [d for d in problems if d.level.name == "ERROR"]
