"""Cheaper block parsing for the guide renderer's MarkdownIt instance, with the same tokens.

Why: markdown-it's block tokenizer tries its rules in order at every block start, and a paragraph
asks the terminating rules (table, fence, blockquote, hr, list, heading) at every line it goes on
for, twice when the setext-heading rule looked first. Almost all of those calls fail on the
line's first character (compat corpus + models/: ~100k block rule calls, ~6k of them matching),
yet each failing call still costs a `LOGGER.debug(...)` call, its level check and the rule's
own set-up.

`gated(rule, starts)` puts a check of that one character in front of a rule: when the line's
first non-blank character can begin none of the rule's constructs, it answers False as the rule
would, without calling it; otherwise it calls the rule unchanged. The sets below are read off
the rules' own first tests (markdown-it-py 4.x, markdown_it/rules_block/*.py): every path of a
rule that sees another first character returns False before changing any state. A line with no
character left (the end of the source) always goes to the rule, so its own behaviour there is
kept too. `install` swaps the gated rules in through the Ruler API (`ruler.at`, the same name
and terminator chains) on one MarkdownIt instance; nothing of markdown-it is patched.

Inline, the `text` rule takes a run of characters up to the next of the parser's "terminator"
characters, where the other rules get their chance. The default set (parser_inline.py) serves
every plugin's rules too (math's `$`, attributes' `{`, linkify's `:`, typographer's `-`...), so
at each `-`, `:`, `=`, `#` ... of a guide all ten rules we have were asked in turn, all failed,
and the character was added to the pending text on its own. `text_stops` is the set of
characters that one of the instance's enabled inline rules can start at (or, for `]`, that a
link label's scan stops at); the text rule, stopped only there, adds the same characters to the
same pending text, so the same tokens come out. An enabled rule this module does not know keeps
the default set.

Then an inline run holding none of those characters (a heading's text, most list items and
one-line paragraphs: half of the compat corpus's runs) can only come out as one text token: the
text rule, tried first, takes it whole, and the post-processing rules have no delimiter to
pair. The core rule `inline` (`plain_inline`) makes that token directly instead of setting up
the inline parser's state and rules for it; every other run is parsed as before.

Before all that, the core rule `normalize` rewrites line endings and NUL characters; a source
holding neither (every guide so far) skips it (`plain_normalize`).
tests/test_markdown_rules.py checks the tokens against an unchanged instance.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from markdown_it import MarkdownIt
from markdown_it.rules_core import inline as core_inline
from markdown_it.rules_core import normalize as core_normalize
from markdown_it.token import Token

# rule name -> the first characters (of its line, after the indent) that can begin it
LINE_STARTS: dict[str, frozenset[str]] = {
    "fence": frozenset("`~"),                   # fence.py: `marker not in markers` (("~", "`"))
    "blockquote": frozenset(">"),               # blockquote.py: `state.src[pos] != ">"`
    "hr": frozenset("*-_"),                     # hr.py: `marker not in ("*", "-", "_")`
    "list": frozenset("*-+0123456789"),         # list.py: skipOrderedListMarker (a digit), skipBulletListMarker
    "reference": frozenset("["),                # reference.py: `state.src[pos] != "["`
    "heading": frozenset("#"),                  # heading.py: `ch != "#"`
}
# the table rule reads its *next* line first (table.py): the delimiter row starts with | - or :
TABLE_DELIMITER_STARTS = frozenset("|-:")


def gated(rule: Callable, starts: frozenset[str]) -> Callable:
    """`rule`, answering False without being called when its line starts with a character
    outside `starts`."""
    def gate(state, startLine: int, endLine: int, silent: bool) -> bool:
        first = _first_character(state, startLine)
        if first and first not in starts:
            return False
        return rule(state, startLine, endLine, silent)
    return gate


def _first_character(state, line: int) -> str:
    """The line's first character after its indent ("" at the end of the source)."""
    pos = state.bMarks[line] + state.tShift[line]
    return state.src[pos:pos + 1]


def gated_table(rule: Callable) -> Callable:
    """The table rule, answering False without being called when the line after its first
    (the delimiter row) starts with a character no delimiter row starts with."""
    def gate(state, startLine: int, endLine: int, silent: bool) -> bool:
        if startLine + 2 <= endLine:   # (otherwise the rule's own first test answers)
            first = _first_character(state, startLine + 1)
            if first and first not in TABLE_DELIMITER_STARTS:
                return False
        return rule(state, startLine, endLine, silent)
    return gate


def gated_code(rule: Callable) -> Callable:
    """The indented-code rule, answering False without being called when the line is indented
    less than 4 columns past the block's indent (code.py: `not state.is_code_block(startLine)`)."""
    def gate(state, startLine: int, endLine: int, silent: bool) -> bool:
        if state.sCount[startLine] - state.blkIndent < 4:
            return False
        return rule(state, startLine, endLine, silent)
    return gate


# inline rule name -> the characters it can match at (markdown_it/rules_inline/*.py, each rule's
# first test of `state.src[state.pos]`); `text` itself and "]" (link.py's parseLinkLabel looks for
# it at the positions skipToken stops at) are handled in `text_stops`
INLINE_STARTS: dict[str, str] = {
    "newline": "\n", "escape": "\\", "backticks": "`", "strikethrough": "~", "emphasis": "_*",
    "link": "[", "image": "!", "autolink": "<", "entity": "&",
}


def text_stops(md: MarkdownIt) -> re.Pattern | None:
    """The text rule's terminator pattern for md's enabled inline rules; None (keep the default
    set) if one of them is not in INLINE_STARTS."""
    stops = {"]"}
    for name in md.inline.ruler.get_active_rules():
        if name == "text":
            continue
        if name not in INLINE_STARTS:
            return None
        stops.update(INLINE_STARTS[name])
    return re.compile("[" + re.escape("".join(sorted(stops))) + "]")


# the post-processing rules (markdown_it/parser_inline.py `_rules2`) that leave a lone text token as it is
_PLAIN_POST_RULES = ["balance_pairs", "strikethrough", "emphasis", "fragments_join"]


def plain_inline(state) -> None:
    """The core rule `inline` (rules_core/inline.py), with a run the text rule takes whole (no
    terminator character in it) made into its one text token, as pushPending makes it."""
    md = state.md
    stops = md.inline.terminator_re
    for token in state.tokens:
        if token.type == "inline":
            if token.children is None:
                token.children = []
            content = token.content
            if content and stops.search(content) is None:
                text = Token("text", "", 0)
                text.content = content
                token.children.append(text)
            else:
                md.inline.parse(content, md, state.env, token.children)


def plain_normalize(state) -> None:
    """The core rule `normalize` (rules_core/normalize.py), called only for a source holding a
    carriage return or a NUL character, the only ones it rewrites: its line-ending substitution
    otherwise matches every '\n' of the guide (~120 per guide) to put the same '\n' back, ~5 ms
    per compat build for a source equal to the one it was given."""
    src = state.src
    if "\r" in src or "\0" in src:
        core_normalize(state)


def install(md: MarkdownIt) -> None:
    """Replace md's block rules by their gated forms (same names, same terminator chains), narrow
    its text rule's terminators to the characters its inline rules start at, parse plain
    inline runs directly (only while the text rule comes first and no other post-processing
    rule is enabled) and normalize only sources with something to normalize."""
    if any(r.name == "normalize" and r.fn is core_normalize for r in md.core.ruler.__rules__):
        md.core.ruler.at("normalize", plain_normalize)
    # markdown-it-py 4.x's text rule reads its terminators from `md.inline.terminator_re`; 3.x
    # (which pyproject still admits) has a fixed set: there only the block gates apply
    stops = text_stops(md) if hasattr(md.inline, "terminator_re") else None
    if stops is not None:
        md.inline.terminator_re = stops
        if (md.inline.ruler.get_active_rules()[:1] == ["text"] and md.inline.ruler2.get_active_rules() == _PLAIN_POST_RULES
                and any(r.name == "inline" and r.fn is core_inline for r in md.core.ruler.__rules__)):
            md.core.ruler.at("inline", plain_inline)
    ruler = md.block.ruler
    for r in list(ruler.__rules__):
        if r.name in LINE_STARTS:
            fn = gated(r.fn, LINE_STARTS[r.name])
        elif r.name == "table":
            fn = gated_table(r.fn)
        elif r.name == "code":
            fn = gated_code(r.fn)
        else:
            continue
        ruler.at(r.name, fn, {"alt": list(r.alt)})
