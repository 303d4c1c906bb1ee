"""write.encode_json: orjson's bytes, the standard library's where orjson refuses a document.

The published bytes were the standard encoder's until orjson took over; these tests pin where the
two agree (so published documents did not change) and what happens where orjson cannot encode.
"""

import datetime
import json
import math
import random

import pytest

from recipes_site.write import encode_json, json_text

STDLIB = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def stdlib_bytes(doc) -> bytes:
    return STDLIB(doc).encode("utf-8") + b"\n"


def test_every_code_point_is_written_as_the_standard_encoder_writes_it():
    # control characters, quotes, backslashes, U+2028/9, non-ASCII and astral characters:
    # one string per 4,096 code points, so a difference names its block
    points = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    for start in range(0, len(points), 4096):
        text = "".join(map(chr, points[start : start + 4096]))
        assert encode_json({"s": text}) == stdlib_bytes({"s": text}), hex(points[start])


def _random_doc(rng: random.Random, depth: int = 0):
    kind = rng.randrange(9 if depth < 5 else 6)
    if kind == 0:
        return rng.randrange(-(2**63), 2**64)
    if kind == 1:  # the floats documents hold: sizes, GiB rounded to 2 places, ratios
        return round(rng.uniform(-1e6, 1e6), rng.randrange(0, 4)) or 0.0
    if kind == 2:
        return rng.uniform(1e-4, 1e15) * rng.choice((1, -1))
    if kind == 3:
        return "".join(
            chr(
                rng.choice(
                    (rng.randrange(0x20), rng.randrange(0x20, 0x80), rng.randrange(0x80, 0xD800))
                )
            )
            for _ in range(rng.randrange(12))
        )
    if kind == 4:
        return rng.choice((True, False, None))
    if kind == 5:
        return ""
    if kind in (6, 7):
        return [_random_doc(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {
        f'k{i}\n"{rng.randrange(99)}': _random_doc(rng, depth + 1) for i in range(rng.randrange(4))
    }


def test_random_documents_match_the_standard_encoder():
    rng = random.Random(13)
    for _ in range(3000):
        doc = _random_doc(rng)
        assert encode_json(doc) == stdlib_bytes(doc), doc
        assert json_text(doc) == STDLIB(doc)


def _nested(depth: int) -> list:
    doc: list = []
    for _ in range(depth):
        doc = [doc]
    return doc


@pytest.mark.parametrize(
    "doc",
    [
        {"big": 2**64},  # beyond 64 bits
        {"small": -(2**63) - 1},
        {1: "int key", None: "null key"},  # json turns keys into strings
        _nested(300),  # orjson stops at 255 levels
    ],
    ids=["big-int", "small-int", "non-string-keys", "deep-nesting"],
)
def test_what_orjson_refuses_is_written_by_the_standard_encoder(doc):
    assert encode_json(doc) == stdlib_bytes(doc)
    assert json_text(doc) == STDLIB(doc)


def test_a_lone_surrogate_fails_as_it_did_before():
    # YAML can spell one ("\ud800"); neither encoder writes it as UTF-8, and the build reports the
    # error rather than publishing a file no JSON parser accepts
    with pytest.raises(UnicodeEncodeError):
        encode_json({"s": "\ud800"})


def test_unknown_types_still_fail_loudly():
    # orjson would write a date as a string; the documents never hold one (YAML dates are strings
    # by then), so one appearing is a bug that must not be published quietly
    with pytest.raises(TypeError):
        encode_json({"when": datetime.date(2026, 12, 1)})


def test_non_finite_floats_are_written_as_null():
    # the standard encoder wrote NaN / Infinity, which is not JSON; orjson writes null
    assert encode_json({"a": math.nan, "b": math.inf}) == b'{"a":null,"b":null}\n'
    assert json.loads(encode_json([-math.inf])) == [None]


def test_key_order_is_insertion_order():
    doc = {"z": 1, "a": {"y": 2, "b": 3}}
    assert encode_json(doc) == b'{"z":1,"a":{"y":2,"b":3}}\n'
