"""Diagnostic keeps every message, hint and key path to one line of at most MAX_TEXT characters:
a message can never carry a whole file, nor forge further diagnostic lines."""

from __future__ import annotations

from recipes_site.catalog.diagnostics import MAX_TEXT, Diagnostic, Level


def make(message: str, hint: str = "", key_path: str = "") -> Diagnostic:
    return Diagnostic("f.yaml", 1, 2, Level.ERROR, key_path, message, hint)


def test_short_one_line_texts_are_kept():
    d = make("unknown key 'x'", "did you mean 'y'?", "model.x")
    assert (d.message, d.hint, d.key_path) == ("unknown key 'x'", "did you mean 'y'?", "model.x")


def test_control_characters_become_spaces():
    d = make("a\nb\x00c\u2028d", "h\ri", "k\x7fp")
    assert (d.message, d.hint, d.key_path) == ("a b c d", "h i", "k p")


def test_long_texts_are_cut_with_an_ellipsis():
    d = make("x" * (MAX_TEXT + 50), "y" * MAX_TEXT)
    assert d.message == "x" * MAX_TEXT + "…"
    assert d.hint == "y" * MAX_TEXT  # at the limit: kept whole


def test_texts_of_other_types_are_kept():
    d = Diagnostic("f.yaml", 1, 2, Level.ERROR, "", "m", None)  # type: ignore[arg-type]
    assert d.hint is None and d.message == "m"
