"""suggest.closest: difflib.get_close_matches(word, choices, n=1, cutoff)'s answer, computed with
fewer full comparisons (validate's did-you-mean for flags, variables, keys and guide sections)."""

from __future__ import annotations

import difflib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recipes_site.catalog.lint import vocabulary
from recipes_site.suggest import closest


def difflib_answer(word, choices, cutoff):
    found = difflib.get_close_matches(word, choices, n=1, cutoff=cutoff)
    return found[0] if found else None


TEXT = st.text(alphabet="abcAB_-1é ", max_size=9)


@settings(max_examples=300, deadline=None)
@given(TEXT, st.lists(TEXT, max_size=14), st.floats(min_value=0.0, max_value=1.0))
def test_closest_is_difflibs_answer(word, choices, cutoff):
    assert closest(word, choices, cutoff) == difflib_answer(word, choices, cutoff)


@pytest.mark.parametrize(
    "word, choices, cutoff",
    [
        ("abc", ["abd", "abe"], 0.6),  # equal ratios and bounds: the greater string, as difflib
        ("abc", ["abe", "abd"], 0.6),
        ("", ["", "a"], 0.0),  # two empty strings are a perfect match
        ("", ["a"], 0.0),
        ("x", [], 0.6),
        ("ab", ["ab", "ab"], 1.0),
        (
            "VLLM_ATTENTION_BACKEN",
            ["VLLM_ATTENTION_BACKEND", "VLLM_ATTENTION_BACKENDS", "VLLM_USE_V1"],
            0.75,
        ),
    ],
)
def test_closest_on_ties_and_edges(word, choices, cutoff):
    assert closest(word, choices, cutoff) == difflib_answer(word, choices, cutoff)


def test_closest_on_misspelt_vllm_names():
    vocab = vocabulary()
    for names in (vocab.env_list, vocab.flag_list):
        for name in names[::15]:
            for typo in (name[:-1] + "X", name[1:], name + "S", name.lower()):
                for cutoff in (0.6, 0.75):
                    assert closest(typo, names, cutoff) == difflib_answer(typo, names, cutoff), typo


def test_closest_refuses_a_cutoff_difflib_refuses():
    with pytest.raises(ValueError):
        closest("a", ["a"], 1.5)


def _lcs_table(a: str, b: str) -> int:
    previous = [0] * (len(b) + 1)
    for x in a:
        row = [0]
        for j, y in enumerate(b):
            row.append(previous[j] + 1 if x == y else max(previous[j + 1], row[j]))
        previous = row
    return previous[-1]


@settings(max_examples=400, deadline=None)
@given(TEXT, TEXT)
def test_lcs_length_is_the_longest_common_subsequence_and_bounds_difflib(a, b):
    """closest() skips a full ratio where 2*lcs_length/T cannot reach the best: that needs
    lcs_length to be exact (or larger) and difflib's matches never to exceed it."""
    from recipes_site.suggest import lcs_length

    assert lcs_length(a, b) == _lcs_table(a, b) == lcs_length(b, a)
    matched = sum(block.size for block in difflib.SequenceMatcher(None, a, b).get_matching_blocks())
    assert matched <= lcs_length(a, b)


def test_lcs_length_on_long_and_repeated_text():
    from recipes_site.suggest import lcs_length

    for a, b in [
        ("VLLM_USE_TRTLLM_ATTENTION", "VLLM_USE_FLASHINFER_MOE_FP4"),
        ("a" * 300, "a" * 200 + "b"),
        ("abcabcabc" * 20, "cba" * 30),
        ("", "abc"),
        ("é_é", "_éé"),
    ]:
        assert lcs_length(a, b) == _lcs_table(a, b)
