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
    """Modulo 2**32 a bucket is the hash itself: FNV-1a 32's published test vectors."""
    full = 1 << 32
    assert bucket_of("", full) == 0x811C9DC5  # the offset basis
    assert bucket_of("a", full) == 0xE40C292C
    assert bucket_of("foobar", full) == 0xBF9CF968
    assert bucket_of("a", 1000) == 0xE40C292C % 1000
    # é is one UTF-16 code unit, 😀 two (0xD83D 0xDE00), as site.js charCodeAt reads them
    assert bucket_of("é😀", full) == 0x44CC4DA1
    assert bucket_of("meta-llama/llama-3.3-70b-instruct", 1) == 0  # one bucket holds every id
