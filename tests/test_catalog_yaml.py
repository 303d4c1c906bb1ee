"""recipes_site.catalog.yaml: YAML 1.2 scalars, positions, and hostile input."""

from __future__ import annotations

import math
import time
from pathlib import Path

import pytest

from recipes_site.catalog.diagnostics import Level
from recipes_site.catalog.yaml import MAX_FILE_BYTES, load_yaml_file, load_yaml_text


def load(text: str):
    return load_yaml_text(text, "t.yaml")


def value(text: str):
    result = load("v: " + text + "\n")
    assert result.diagnostics == [], [d.format() for d in result.diagnostics]
    return result.data["v"]


def only_error(result):
    assert result.data is None
    assert len(result.diagnostics) == 1, [d.format() for d in result.diagnostics]
    diag = result.diagnostics[0]
    assert diag.level is Level.ERROR
    return diag


@pytest.mark.parametrize(
    "text, expected",
    [
        # YAML 1.1 booleans are plain strings in YAML 1.2 (js-yaml 4)
        ("yes", "yes"),
        ("no", "no"),
        ("on", "on"),
        ("off", "off"),
        ("y", "y"),
        ("n", "n"),
        ("Yes", "Yes"),
        ("NO", "NO"),
        ("true", True),
        ("True", True),
        ("TRUE", True),
        ("false", False),
        ("False", False),
        ("FALSE", False),
        ("tRUE", "tRUE"),
        ("null", None),
        ("Null", None),
        ("NULL", None),
        ("~", None),
        ("", None),
        ("0755", 755),
        ("0o755", 493),
        ("0x1F", 31),
        ("-0x10", -16),
        ("0b101", 5),
        ("+12", 12),
        ("0", 0),
        ("-7", -7),
        ("08", 8),
        ("1_000", "1_000"),
        ("1:30", "1:30"),
        ("0x", "0x"),
        ("0o8", "0o8"),
        ("1e3", 1000.0),
        ("1.0e3", 1000.0),
        ("1.5", 1.5),
        ("-2.5", -2.5),
        ("1.", 1.0),
        (".5", 0.5),
        ("-.5", "-.5"),
        ("'yes'", "yes"),
        ('"0755"', "0755"),
        ("'1e3'", "1e3"),
        ("'null'", "null"),
        ("'true'", "true"),
        ("!!str 12", "12"),
        ("!!int 12", 12),
        ("hello world", "hello world"),
    ],
)
def test_core_schema_scalars(text, expected):
    got = value(text)
    assert got == expected and type(got) is type(expected)


def test_special_floats():
    assert value(".inf") == math.inf
    assert value("-.inf") == -math.inf
    assert value("+.INF") == math.inf
    assert math.isnan(value(".nan")) and math.isnan(value(".NaN"))
    assert value(".Nan") == ".Nan"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2025-12-04", "2025-12-04"),
        ("2025-12-04 10:30:00", "2025-12-04"),
        ("2025-12-04T23:30:00Z", "2025-12-04"),
        ("2025-12-04 23:30:00 -02:00", "2025-12-05"),  # UTC date part
        ("2025-12-04T00:30:00+01:00", "2025-12-03"),
        ("2025-1-4 01:02:03", "2025-01-04"),  # one-digit month/day only with a time
        (
            "2025-02-30",
            "2025-02-30",
        ),  # no such day: stays a string (js-yaml: 03-02), the schema refuses it
        ("2025-1-4", "2025-1-4"),  # not a date without a time
        ("'2025-12-04'", "2025-12-04"),
        ("yesterday", "yesterday"),
    ],
)
def test_timestamps_become_iso_dates(text, expected):
    assert value(text) == expected


def test_non_string_keys_are_stringified_like_javascript():
    result = load("1: a\ntrue: b\nnull: c\n1.5: d\n")
    assert result.data == {"1": "a", "true": "b", "null": "c", "1.5": "d"}


def test_plain_words_as_keys_and_values_resolve_as_resolve_plain_does():
    """The builder takes most keys and values as written without calling resolve_plain (a plain
    scalar starting with a letter that is no null/bool word): every key and value, in a mapping
    and in a list, must still be what resolve_plain and js_key make of it, at its position."""
    import itertools

    from recipes_site.catalog.yaml import js_key, resolve_plain

    words = [
        "True",
        "true",
        "TRUE",
        "tRUE",
        "False",
        "FALSE",
        "null",
        "Null",
        "NULL",
        "nulls",
        "yes",
        "No",
        "é",
        "ǅx",
        "x1",
        "x-y",
        "inf",
        "nan",
        "NaN",
        "e3",
        "a:b",
        "Inf",
        "_x",
        "x_",
        "1",
        "1.5",
        "0x1F",
        "2025-01-02",
        "~",
        "-x",
        ".inf",
        ".x",
        "+1",
    ]
    for key, val in itertools.product(words, ["True", "null", "word", "1", "ǅ", "2025-01-02"]):
        result = load(f"{key}: {val}\nlist: [{key}, {val}]\n")
        assert result.diagnostics == [], (key, val)
        expected_key = js_key(resolve_plain(key))
        got = result.data[expected_key]
        assert got == resolve_plain(val) and type(got) is type(resolve_plain(val)), (key, val)
        items = result.data["list"]
        assert [type(v) for v in items] == [type(resolve_plain(key)), type(resolve_plain(val))], (
            key,
            val,
        )
        assert result.key_positions[(expected_key,)] == (1, 1)
        assert result.positions[(expected_key,)] == (1, len(key) + 3)
    assert load("<<: 1\n").diagnostics[0].message == "merge keys (<<) are not supported"
    assert load("a: <<\n").data == {"a": "<<"}
    duplicate = only_error(load("word: 1\nTrue: 2\nword: 3\n"))
    assert (duplicate.line, duplicate.col, duplicate.key_path) == (3, 1, "word")


def test_key_order_and_positions():
    text = "b: 1\na:\n  list:\n    - x\n    - {k: v}\n  flow: [1, 2]\n"
    result = load(text)
    assert list(result.data) == ["b", "a"]
    assert result.positions[()] == (1, 1)
    assert result.positions[("b",)] == (1, 4)
    assert result.key_positions[("a",)] == (2, 1)
    assert result.positions[("a", "list", 0)] == (4, 7)
    assert result.positions[("a", "list", 1, "k")] == (5, 11)
    assert result.key_positions[("a", "list", 1, "k")] == (5, 8)
    assert result.positions[("a", "flow", 1)] == (6, 13)


def test_anchors_and_aliases_are_copied_with_positions():
    text = "base: &b\n  args: [--x]\nother: *b\n"
    result = load(text)
    assert result.diagnostics == []
    assert result.data["other"] == {"args": ["--x"]}
    assert result.data["other"] is not result.data["base"]
    assert result.positions[("other",)] == (3, 8)  # the alias itself
    assert result.positions[("other", "args", 0)] == (2, 10)  # what it expands to


def test_keys_anchored_aliased_or_not_scalars():
    """A key may carry an anchor and an alias of a scalar may be a key (at the alias's position);
    an alias of a collection, or a collection, may not; a key's text counts towards the
    expanded-size limit like a value's."""
    result = load("&k name: 1\nother:\n  *k : 2\n")
    assert result.diagnostics == []
    assert result.data == {"name": 1, "other": {"name": 2}}
    assert result.key_positions[("other", "name")] == (3, 3)
    assert result.positions[("other", "name")] == (3, 8)
    refused = load("a: &m {x: 1}\nb:\n  *m : 2\n").diagnostics
    assert [(d.line, d.col, d.key_path, d.message) for d in refused] == [
        (3, 3, "b", "alias *m cannot be used as a mapping key")
    ]
    refused = load("a:\n  ? [1, 2]\n  : x\n").diagnostics
    assert [(d.line, d.col, d.key_path, d.message) for d in refused] == [
        (2, 5, "a", "a mapping key must be a plain value, not a list or mapping")
    ]
    key = "k" * 1000
    big = load("".join(f"m{i}:\n  {key}{i}: 1\n" for i in range(1100))).diagnostics
    assert len(big) == 1 and "expands to more than" in big[0].message
    block = (big[0].line - 2) // 2  # reported at the inner key that crossed the limit
    assert (big[0].line, big[0].col, big[0].key_path) == (2 * block + 2, 3, f"m{block}")


def test_duplicate_key_is_an_error_naming_both_lines():
    diag = only_error(load("meta:\n  title: a\n  difficulty: x\n  difficulty: y\n"))
    assert (diag.line, diag.col) == (4, 3)
    assert diag.key_path == "meta.difficulty"
    assert "duplicated mapping key 'difficulty'" in diag.message
    assert "line 4" in diag.message and "line 3" in diag.message


def test_every_duplicate_is_reported():
    result = load("a: 1\na: 2\nb: 1\nb: 2\n")
    assert result.data is None
    assert [d.line for d in result.diagnostics] == [2, 4]


@pytest.mark.parametrize(
    "text",
    [
        "x: !!python/object/apply:os.system ['echo hi']\n",
        "x: !foo bar\n",
        "x: !custom {a: 1}\n",
        "x: !!binary aGVsbG8=\n",
    ],
)
def test_custom_tags_are_errors(text):
    diag = only_error(load(text))
    assert "unsupported YAML tag" in diag.message
    assert diag.key_path == "x" and diag.line == 1


def test_merge_keys_are_rejected():
    diag = only_error(load("a: &a {x: 1}\nb:\n  <<: *a\n  y: 2\n"))
    assert "merge keys" in diag.message and diag.line == 3


def test_quoted_merge_key_is_a_plain_key():
    assert load("'<<': 1\n").data == {"<<": 1}


def billion_laughs(levels: int = 9) -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    previous = "a"
    for i in range(1, levels):
        name = f"l{i}"
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]")
        previous = name
    return "\n".join(lines) + "\n"


def test_billion_laughs_fails_fast_and_cleanly():
    started = time.perf_counter()
    result = load(billion_laughs())
    elapsed = time.perf_counter() - started
    diag = only_error(result)
    assert "too many aliased nodes (possible alias bomb)" in diag.message
    assert elapsed < 1.0


def test_a_few_anchors_still_load():
    text = "a: &a [1, 2, 3]\nb: *a\nc: *a\nd: {x: *a}\n"
    assert load(text).data["d"] == {"x": [1, 2, 3]}


def test_recursive_alias_is_an_error():
    diag = only_error(load("a: &a\n  - *a\n"))
    assert "recursive alias" in diag.message


def test_undefined_alias_is_an_error():
    diag = only_error(load("a: 1\nb: *nope\n"))
    assert "undefined alias *nope" in diag.message and diag.line == 2


def test_deep_nesting_is_an_error_not_a_crash():
    diag = only_error(load("a: " + "[" * 100 + "]" * 100 + "\n"))
    assert "nested deeper" in diag.message
    # far deeper: newer PyYAML parsers stop first with their own limit; either way a clean error
    depth = 200_000
    diag = only_error(load("a: " + "[" * depth + "]" * depth + "\n"))
    assert "nest" in diag.message


def test_syntax_error_has_line_and_column():
    diag = only_error(load("meta:\n  title: a\n  bad: b: c\n"))
    assert (diag.line, diag.col) == (3, 9)
    assert diag.message.startswith("YAML syntax error:")


def test_tab_indentation_is_a_syntax_error():
    diag = only_error(load("a:\n\tb: 1\n"))
    assert diag.line == 2 and "YAML syntax error" in diag.message


def test_second_document_is_an_error():
    diag = only_error(load("a: 1\n---\nb: 2\n"))
    assert "single YAML document" in diag.message and diag.line == 2


@pytest.mark.parametrize(
    "text, needle",
    [
        ("", "file is empty"),
        ("# only a comment\n", "file is empty"),
        ("~\n", "empty (null)"),
        ("- a\n- b\n", "got a list"),
        ("just a string\n", "got a single value"),
    ],
)
def test_top_level_must_be_a_mapping(text, needle):
    diag = only_error(load(text))
    assert needle in diag.message and "mapping" in diag.message
    assert diag.key_path == ""


def test_file_too_large_is_refused_before_reading(tmp_path: Path):
    path = tmp_path / "big.yaml"
    with open(path, "wb") as fh:
        fh.write(b"a: b\n" * (2 * 1024 * 1024 // 5 + 1))
    assert path.stat().st_size > MAX_FILE_BYTES
    started = time.perf_counter()
    result = load_yaml_file(path, "big.yaml")
    elapsed = time.perf_counter() - started
    diag = only_error(result)
    assert "file too large" in diag.message and diag.path == "big.yaml"
    assert elapsed < 1.0


def test_non_utf8_is_an_error_with_position(tmp_path: Path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("a: 1\nb: caf\u00e9\n".encode("latin-1"))
    diag = only_error(load_yaml_file(path, "latin1.yaml"))
    assert "not valid UTF-8" in diag.message
    assert (diag.line, diag.col) == (2, 7)


def test_utf8_bom_is_accepted(tmp_path: Path):
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbfa: 1\n")
    assert load_yaml_file(path, "bom.yaml").data == {"a": 1}


def test_control_characters_are_an_error():
    diag = only_error(load("a: \x07\n"))
    assert "unacceptable character" in diag.message


def test_missing_file_is_an_error(tmp_path: Path):
    diag = only_error(load_yaml_file(tmp_path / "nope.yaml", "nope.yaml"))
    assert "cannot read" in diag.message
