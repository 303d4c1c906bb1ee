"""suggest.closest: difflib.get_close_matches(word, choices, n=1, cutoff)'s answer, computed with
fewer full comparisons (validate's did-you-mean for flags, variables, keys and guide sections)."""
from __future__ import annotations

import difflib

import pytest
from hypothesis import given, settings, strategies as st

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


@pytest.mark.parametrize("word, choices, cutoff", [
    ("abc", ["abd", "abe"], 0.6),          # equal ratios and bounds: the greater string, as difflib
    ("abc", ["abe", "abd"], 0.6),
    ("", ["", "a"], 0.0),                   # two empty strings are a perfect match
    ("", ["a"], 0.0),
    ("x", [], 0.6),
    ("ab", ["ab", "ab"], 1.0),
    ("VLLM_ATTENTION_BACKEN", ["VLLM_ATTENTION_BACKEND", "VLLM_ATTENTION_BACKENDS", "VLLM_USE_V1"], 0.75),
])
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
