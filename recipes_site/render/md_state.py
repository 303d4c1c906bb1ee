"""The guide renderer's block parser state: markdown-it's StateBlock, made for less work per
guide and per token, with the same fields and tokens.

Why: a compat build parses ~100 guides of ~12.6k lines into ~14k block tokens, and two generic
paths cost more than the rules need:

- `StateBlock.__init__` finds each line's start, end and indent with a Python loop over the
  line and its leading whitespace; `line_marks` gets the same five lists from `str.split` and
  list comprehensions (a line's indent counted by `lstrip`, tabs expanded only on the lines
  whose indent holds one);
- `StateBlock.push` makes each token through the `Token` dataclass's generated `__init__`
  (thirteen keyword defaults, two default dicts) and `__post_init__` (which swaps the empty
  attrs dict for another); `new_token` sets the same thirteen slots directly.

`install` makes one MarkdownIt instance's block parser build its state as `GuideStateBlock`
(an instance attribute, `md.block.parse`: nothing of markdown-it is patched). Everything else,
rules included, is markdown-it's. tests/test_markdown_rules.py compares the tokens with an
unchanged instance, and tests/test_md_state.py the marks and tokens themselves.
"""

from __future__ import annotations

import dataclasses
from itertools import accumulate
from typing import Literal

from markdown_it import MarkdownIt
from markdown_it.rules_block.state_block import StateBlock
from markdown_it.token import Token

_new = object.__new__

# Token's fields as markdown-it-py 3.x and 4.x declare them (markdown_it/token.py), the ones
# new_token sets: a release with any other field set keeps its own StateBlock (`install`)
TOKEN_FIELDS = (
    "type",
    "tag",
    "nesting",
    "attrs",
    "map",
    "level",
    "children",
    "content",
    "markup",
    "info",
    "meta",
    "block",
    "hidden",
)


def new_token(ttype: str, tag: str, nesting: Literal[-1, 0, 1]) -> Token:
    """`Token(ttype, tag, nesting)`: every field at its default (fresh `attrs` and `meta` dicts)."""
    token = _new(Token)
    token.type = ttype
    token.tag = tag
    token.nesting = nesting
    token.attrs = {}
    token.map = None
    token.level = 0
    token.children = None
    token.content = ""
    token.markup = ""
    token.info = ""
    token.meta = {}
    token.block = False
    token.hidden = False
    return token


def _offset(indent: str) -> int:
    """The columns of a line's leading spaces and tabs, a tab going to the next multiple of 4
    (StateBlock.__init__'s `offset`)."""
    offset = 0
    for ch in indent:
        offset += 4 - offset % 4 if ch == "\t" else 1
    return offset


def line_marks(src: str) -> tuple[list[int], list[int], list[int], list[int], list[int]]:
    """bMarks, eMarks, tShift, sCount and bsCount as StateBlock.__init__ computes them for `src`:
    a line per '\\n'-ended piece, and the piece after the last '\\n' when it holds anything but
    spaces and tabs; then the fake entry at the end of the source."""
    lines = src.split("\n")
    if not lines[-1].strip(" \t"):  # (none, or only spaces and tabs: no line)
        lines.pop()
    ends = list(accumulate(len(line) + 1 for line in lines))
    begins = [0] + ends[:-1] if lines else []
    length = len(src)
    bMarks = begins + [length]
    eMarks = [end - 1 for end in ends] + [length]
    tShift = [len(line) - len(line.lstrip(" \t")) for line in lines]
    if "\t" in src:
        sCount = [
            _offset(line[:indent]) if "\t" in line[:indent] else indent
            for line, indent in zip(lines, tShift)
        ]
    else:
        sCount = tShift.copy()
    tShift.append(0)
    sCount.append(0)
    return bMarks, eMarks, tShift, sCount, [0] * len(bMarks)


class GuideStateBlock(StateBlock):
    """StateBlock, its line marks from `line_marks` and its tokens from `new_token`."""

    def __init__(self, src: str, md: MarkdownIt, env, tokens: list[Token]) -> None:
        super().__init__("", md, env, tokens)  # every other field as markdown-it sets it
        self.src = src
        self.bMarks, self.eMarks, self.tShift, self.sCount, self.bsCount = line_marks(src)
        self.lineMax = len(self.bMarks) - 1  # (the fake last line not counted)

    def push(self, ttype: str, tag: str, nesting: Literal[-1, 0, 1]) -> Token:
        """StateBlock.push: the token, at the level its nesting gives, added to the stream."""
        token = new_token(ttype, tag, nesting)
        token.block = True
        if nesting < 0:
            self.level -= 1  # closing tag
        token.level = self.level
        if nesting > 0:
            self.level += 1  # opening tag
        self.tokens.append(token)
        return token


def install(md: MarkdownIt) -> None:
    """md's block parser parses through a GuideStateBlock (ParserBlock.parse otherwise), when
    markdown-it's Token has the fields new_token knows (TOKEN_FIELDS); under a markdown-it-py
    whose Token differs, its own StateBlock makes the tokens."""
    if tuple(f.name for f in dataclasses.fields(Token)) != TOKEN_FIELDS:
        return
    block = md.block

    def parse(src: str, md: MarkdownIt, env, outTokens: list[Token]) -> list[Token] | None:
        if not src:
            return None
        state = GuideStateBlock(src, md, env, outTokens)
        block.tokenize(state, state.line, state.lineMax)
        return state.tokens

    block.parse = parse
