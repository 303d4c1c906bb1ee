"""suggest.closest: validate's did-you-mean for flags, variables, keys and guide sections."""

from __future__ import annotations

import pytest

from recipes_site.catalog.lint import vocabulary
from recipes_site.suggest import closest


@pytest.mark.parametrize(
    "word, choices, cutoff, expected",
    [
        ("abc", ["abd", "abe"], 0.6, "abe"),  # equal ratios: the greater string, as difflib
        ("abc", ["abe", "abd"], 0.6, "abe"),
        ("", ["", "a"], 0.0, ""),  # two empty strings are a perfect match
        ("x", [], 0.6, None),
        ("ab", ["ab", "ab"], 1.0, "ab"),
        ("zzzz", ["abcd", "efgh"], 0.6, None),
        (
            "VLLM_ATTENTION_BACKEN",
            ["VLLM_ATTENTION_BACKEND", "VLLM_ATTENTION_BACKENDS", "VLLM_USE_V1"],
            0.75,
            "VLLM_ATTENTION_BACKEND",
        ),
    ],
)
def test_closest_on_ties_and_edges(word, choices, cutoff, expected):
    assert closest(word, choices, cutoff) == expected


def test_closest_finds_misspelt_vllm_names():
    vocab = vocabulary()
    for names in (vocab.env_list, vocab.flag_list):
        for name in names[::25]:
            if len(name) < 8:
                continue
            for typo in (name[:-1] + "X", name[1:], name + "S"):
                assert closest(typo, names, 0.75) is not None, typo
            assert closest(name, names, 0.75) == name


def test_closest_refuses_a_cutoff_outside_0_1():
    with pytest.raises(ValueError):
        closest("a", ["a"], 1.5)
