"""The guide renderer's block state (render/md_state.py): the same fields and tokens as
markdown-it's StateBlock, made with less work. (The parsed token streams are compared with an
unchanged markdown-it instance in test_markdown_rules.py.)"""

from __future__ import annotations

import dataclasses
import inspect
import random

import pytest
from conftest import COMPAT_CORPUS
from markdown_it.rules_block.state_block import StateBlock
from markdown_it.token import Token

from recipes_site.catalog import PROJECT_ROOT, load_catalog
from recipes_site.render import md_state
from recipes_site.render.markdown import _MD

EDGE_CASES = [
    "",
    "\n",
    "\n\n",
    "a",
    "a\n",
    "a\n\n",
    "  ",
    "  \n",
    "a\n  ",
    "a\n \t",
    "a\n  b",
    "\t",
    "\tx\n",
    " \tx\n",
    "  \t\tx\n",
    "   \t x\n",
    "x\t\n\ty",
    "\u00a0 x\n",
    "a\r\nb",
    "\0\n",
    "a\n\n\n",
    "\n  \n\t\n",
]


def _random_text(rng: random.Random) -> str:
    pieces = [
        "a",
        "b c",
        " ",
        "  ",
        "   ",
        "\t",
        "\n",
        "\n\n",
        "- ",
        "> ",
        "```",
        "\u00a0",
        "\u2028",
        "é",
    ]
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))


@pytest.fixture(scope="module")
def texts() -> list[str]:
    rng = random.Random(5)
    found = EDGE_CASES + [_random_text(rng) for _ in range(4000)]
    for root in [PROJECT_ROOT] + ([COMPAT_CORPUS] if COMPAT_CORPUS.is_dir() else []):
        catalog, _ = load_catalog(root)
        found += [
            doc.data["guide"] for doc in catalog.recipes if isinstance(doc.data.get("guide"), str)
        ]
    return found


def test_the_state_has_every_field_markdown_its_has(texts):
    for text in texts:
        ours, theirs = md_state.GuideStateBlock(text, _MD, {}, []), StateBlock(text, _MD, {}, [])
        assert vars(ours) == vars(theirs), repr(text[:80])


def test_new_token_sets_every_field_as_the_dataclass_does():
    for args in [("text", "", 0), ("paragraph_open", "p", 1), ("heading_close", "h2", -1)]:
        ours, theirs = md_state.new_token(*args), Token(*args)
        for f in dataclasses.fields(
            Token
        ):  # (a field new_token does not set fails here: an unset slot)
            assert getattr(ours, f.name) == getattr(theirs, f.name), f.name
        assert ours == theirs
        assert (
            ours.attrs is not md_state.new_token(*args).attrs
            and ours.meta is not md_state.new_token(*args).meta
        )


def test_the_guide_instance_parses_through_the_lean_state(monkeypatch):
    made = []
    init = md_state.GuideStateBlock.__init__
    monkeypatch.setattr(
        md_state.GuideStateBlock, "__init__", lambda self, *a: made.append(a[0]) or init(self, *a)
    )
    _MD.parse("# x\n\ny\n", {})
    assert made == ["# x\n\ny\n"]
    assert _MD.parse("", {}) == []


@pytest.mark.parametrize("change", ["a trailing blank line kept", "tabs to 8 columns"])
def test_a_wrong_mark_would_be_caught(change, texts, monkeypatch):
    if change == "a trailing blank line kept":  # (line_marks with only an empty last piece dropped)
        source = inspect.getsource(md_state.line_marks)
        assert 'if not lines[-1].strip(" \\t"):' in source
        scope = dict(vars(md_state))
        exec(source.replace('if not lines[-1].strip(" \\t"):', "if not lines[-1]:"), scope)
        monkeypatch.setattr(md_state, "line_marks", scope["line_marks"])
    else:
        monkeypatch.setattr(
            md_state,
            "_offset",
            lambda indent: sum(8 - n % 8 if c == "\t" else 1 for n, c in enumerate(indent)),
        )
    assert any(
        vars(md_state.GuideStateBlock(t, _MD, {}, [])) != vars(StateBlock(t, _MD, {}, []))
        for t in texts
    )


def test_a_markdown_it_whose_token_has_other_fields_keeps_its_own_state(monkeypatch):
    """new_token sets the fields of markdown-it-py 3.x/4.x's Token: under a release whose Token has
    a field more (or fewer), install leaves the block parser as markdown-it made it."""
    from markdown_it import MarkdownIt

    assert tuple(f.name for f in dataclasses.fields(Token)) == md_state.TOKEN_FIELDS
    md = MarkdownIt()
    md_state.install(md)
    assert "parse" in vars(md.block)
    monkeypatch.setattr(md_state, "TOKEN_FIELDS", md_state.TOKEN_FIELDS + ("source",))
    md = MarkdownIt()
    md_state.install(md)
    assert "parse" not in vars(md.block)
