"""Diagnostic keeps every message, hint and key path to one line of at most MAX_TEXT characters
(diagnostics._bounded), whichever way it gets there: the fast path that checks the three texts
at once must leave exactly what _bounded gives back for each."""

from __future__ import annotations

import itertools
import random

from recipes_site.catalog.diagnostics import MAX_TEXT, Diagnostic, Level, _bounded


class Text(str):
    """A str subclass: _bounded gives back a plain str for it."""


def test_each_text_is_what_bounded_gives_back():
    rnd = random.Random(5)
    pieces = [
        "",
        "a",
        "é",
        "\n",
        "\x00",
        "\x7f",
        "\u2028",
        "\u2029",
        "\t",
        "x" * 200,
        "y" * (MAX_TEXT - 1),
        "z" * MAX_TEXT,
        "w" * (MAX_TEXT + 1),
        "key.path[2]",
        "…",
    ]
    cases = list(itertools.product(pieces[:6], repeat=3))
    for _ in range(3000):
        cases.append(
            tuple("".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 3))) for _ in range(3))
        )
    cases += [(Text("m\n"), "h", "k"), (Text("m"), "h", "k"), ("m", Text("h"), Text("k"))]
    for message, hint, key_path in cases:
        d = Diagnostic("f.yaml", 1, 2, Level.ERROR, key_path, message, hint)
        for got, text in ((d.message, message), (d.hint, hint), (d.key_path, key_path)):
            assert got == _bounded(text) and type(got) is str, (message, hint, key_path)


def test_texts_of_other_types_are_kept():
    d = Diagnostic("f.yaml", 1, 2, Level.ERROR, "", "m", None)  # not a str: left as it is
    assert d.hint is None and d.message == "m"
