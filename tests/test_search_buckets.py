"""search.bucket_of: the 404 page's id bucket of a key, which site.js `bucketOf` computes the same
way (FNV-1a over UTF-16 code units, as charCodeAt gives them, modulo the bucket count)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from recipes_site.render.search import bucket_of


def plain_bucket(key: str, n: int) -> int:
    """The definition, unit by unit as site.js reads them (surrogate pairs for astral characters)."""
    h = 0x811C9DC5
    for ch in key:
        code = ord(ch)
        units = (
            [code]
            if code < 0x10000
            else [0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)]
        )
        for unit in units:
            h = ((h ^ unit) * 0x01000193) & 0xFFFFFFFF
    return h % n


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=40), st.integers(min_value=1, max_value=64))
def test_bucket_of_is_fnv1a_over_utf16_code_units(key, n):
    assert bucket_of(key, n) == plain_bucket(key, n)


def test_known_buckets():
    # FNV-1a 32 of "" is the offset basis 2166136261; of "a" 0xE40C292C (published test vectors)
    assert bucket_of("", 1000) == 2166136261 % 1000
    assert bucket_of("a", 1 << 31) == 0xE40C292C % (1 << 31)
    assert bucket_of("meta-llama/llama-3.3-70b-instruct", 1) == 0
    assert bucket_of("é😀", 7) == plain_bucket("é😀", 7)
