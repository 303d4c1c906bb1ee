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
kept too. The setext-heading rule, tried at every paragraph's start, is gated on the lines it
would walk (`gated_lheading`). `install` swaps the gated rules in through the Ruler API (`ruler.at`, the same name
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
from markdown_it.ruler import Ruler
from markdown_it.rules_core import inline as core_inline
from markdown_it.rules_core import normalize as core_normalize
from markdown_it.token import Token

# rule name -> the first characters (of its line, after the indent) that can begin it
LINE_STARTS: dict[str, frozenset[str]] = {
    "fence": frozenset("`~"),  # fence.py: `marker not in markers` (("~", "`"))
    "blockquote": frozenset(">"),  # blockquote.py: `state.src[pos] != ">"`
    "hr": frozenset("*-_"),  # hr.py: `marker not in ("*", "-", "_")`
    "list": frozenset(
        "*-+0123456789"
    ),  # list.py: skipOrderedListMarker (a digit), skipBulletListMarker
    "reference": frozenset("["),  # reference.py: `state.src[pos] != "["`
    "heading": frozenset("#"),  # heading.py: `ch != "#"`
}
# the table rule reads its *next* line first (table.py), the delimiter row, and answers False
# unless all of it is '|', '-', ':', spaces and tabs, its first character one of '|-:' and its
# second one of '|-:' or a space or tab, but not a space or tab after a '-' (a list item)
TABLE_DELIMITER_ROW = re.compile(r"(?:[|:][|\-: \t]|-[|\-:])[|\-: \t]*")
TABLE_DELIMITER_STARTS = "|-:"
# a setext heading's underline (lheading.py: `marker in ("-", "=")` at a later line's first character)
SETEXT_UNDERLINE = frozenset("-=")


def gated(rule: Callable, starts: frozenset[str]) -> Callable:
    """`rule`, answering False without being called when its line starts with a character
    outside `starts`."""

    def gate(state, startLine: int, endLine: int, silent: bool) -> bool:
        pos = state.bMarks[startLine] + state.tShift[startLine]
        first = state.src[
            pos : pos + 1
        ]  # the line's first character after its indent ("" at the end of the source)
        if first and first not in starts:
            return False
        return rule(state, startLine, endLine, silent)

    gate.rule, gate.starts = rule, starts  # (read by first_character_chain)
    return gate


def gated_table(rule: Callable) -> Callable:
    """The table rule, answering False without being called when the line after its first
    (the delimiter row, from its first character after the indent) is not one the rule's
    character checks accept (TABLE_DELIMITER_ROW). Why the whole row: a paragraph line followed
    by a list item ("- ...") passed a first-character gate, and the rule ran to fail at the
    second character (~2.3k calls on the compat corpus's guides)."""

    def gate(state, startLine: int, endLine: int, silent: bool) -> bool:
        if startLine + 2 <= endLine:  # (otherwise the rule's own first test answers)
            line = startLine + 1
            pos = state.bMarks[line] + state.tShift[line]
            # (the first character alone rules most lines out, for less than the whole row's match)
            if state.src[
                pos : pos + 1
            ] not in TABLE_DELIMITER_STARTS or not TABLE_DELIMITER_ROW.fullmatch(
                state.src, pos, state.eMarks[line]
            ):
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


def gated_lheading(rule: Callable) -> Callable:
    """The setext-heading rule, answering False without being called when no line after its
    first, up to the first empty one, starts with a character of SETEXT_UNDERLINE.

    Why: markdown-it tries lheading at the start of every paragraph (~1.8k of the compat
    corpus's guides' block starts), and the rule walks the paragraph's lines asking every
    paragraph terminator in silent mode at each, before the paragraph rule walks the same lines
    asking them again; a setext heading is rare. The rule's walk (lheading.py) stops at an empty
    line and reads an underline only at a line's first character, so with none of those lines
    starting so it can only fail. It fails having set `state.parentType` to "paragraph" (and
    not set it back: the paragraph rule that follows then keeps it), and the terminators it
    asks change nothing in silent mode; the gate leaves the same state."""

    def gate(state, startLine: int, endLine: int, silent: bool) -> bool:
        if state.is_code_block(
            startLine
        ):  # (the rule's own first test, before it changes anything)
            return False
        src, bMarks, tShift, eMarks = state.src, state.bMarks, state.tShift, state.eMarks
        line = startLine + 1
        while line < endLine:
            pos = bMarks[line] + tShift[line]
            if pos >= eMarks[line]:  # an empty line: the rule's walk ends here
                break
            if src[pos] in SETEXT_UNDERLINE:
                return rule(state, startLine, endLine, silent)
            line += 1
        state.parentType = "paragraph"
        return False

    return gate


def first_character_chain(rules: list[Callable]) -> Callable:
    """One block rule doing what markdown-it does with a chain of rules (try each in order, stop
    at the first that matches) with each `gated` rule asked only at a line whose first character
    can begin it: the character is read once per line, and the rules it rules out are not called.

    Why: a block start or a paragraph line asked the rules one by one, each gate reading the
    same character again (compat corpus's guides: ~51k gate calls, ~6k of them matching). Every
    rule answering False leaves the state as it found it (markdown-it's contract, which the
    gates rely on too), so reading the character once before the first rule reads what each
    gate would read."""
    starts = [getattr(rule, "starts", None) for rule in rules]
    characters = set().union(*(s for s in starts if s is not None))
    # a character no gated rule starts at: the other rules; each of those characters: the rules
    # it can begin, gated ones called directly; the end of the source (""): every rule, as the gates do
    others = [rule for rule, s in zip(rules, starts) if s is None]
    by_first = {
        c: [
            rule if s is None else rule.rule
            for rule, s in zip(rules, starts)
            if s is None or c in s
        ]
        for c in characters
    }
    by_first[""] = list(rules)

    def chain(state, startLine: int, endLine: int, silent: bool) -> bool:
        pos = state.bMarks[startLine] + state.tShift[startLine]
        for rule in by_first.get(state.src[pos : pos + 1], others):
            if rule(state, startLine, endLine, silent):
                return True
        return False

    return chain


class FirstCharacterRuler(Ruler):
    """markdown-it's Ruler (same rules, names, options and chains), whose `getRules(chain)`
    gives the chain as one `first_character_chain` function: the block parser and the rules that
    ask terminators (paragraph, lheading, list, blockquote, table, reference) call it as they
    called the list of rules. Rebuilt with the cache whenever a rule is enabled, disabled or
    replaced (Ruler.__compile__)."""

    def __compile__(self) -> None:
        super().__compile__()
        self.__cache__ = {
            name: [first_character_chain(rules)] for name, rules in self.__cache__.items()
        }


# inline rule name -> the characters it can match at (markdown_it/rules_inline/*.py, each rule's
# first test of `state.src[state.pos]`); `text` itself and "]" (link.py's parseLinkLabel looks for
# it at the positions skipToken stops at) are handled in `text_stops`
INLINE_STARTS: dict[str, str] = {
    "newline": "\n",
    "escape": "\\",
    "backticks": "`",
    "strikethrough": "~",
    "emphasis": "_*",
    "link": "[",
    "image": "!",
    "autolink": "<",
    "entity": "&",
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
# the post-processing rules that act only on the delimiter runs the emphasis and strikethrough
# rules record (state.delimiters and the delimiter lists of tokens_meta), and the characters
# those rules record them at (INLINE_STARTS): `gated_delimiters`
DELIMITER_RULES = frozenset({"balance_pairs", "strikethrough", "emphasis"})
DELIMITER_CHARACTERS = INLINE_STARTS["emphasis"] + INLINE_STARTS["strikethrough"]
_HAS_DELIMITER = re.compile(f"[{re.escape(DELIMITER_CHARACTERS)}]").search


def gated_delimiters(rule: Callable) -> Callable:
    """A post-processing rule of DELIMITER_RULES, called only for an inline run holding one of
    DELIMITER_CHARACTERS.

    Why: each of them runs for every inline run the inline parser parses (~1.6k in the compat
    corpus's guides), walking `tokens_meta` and calling its helpers on the delimiter lists,
    which are all empty unless the emphasis or strikethrough rule met '*', '_' or '~' (the only
    rules that record delimiters, in a parser whose inline rules are all in INLINE_STARTS):
    balance_pairs.processDelimiters returns on an empty list, and the emphasis and
    strikethrough post-processing loops over empty lists change nothing."""

    def gate(state) -> None:
        if _HAS_DELIMITER(state.src):
            rule(state)

    return gate


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
        for r in list(
            md.inline.ruler2.__rules__
        ):  # (the inline rules are all known: only emphasis and strikethrough record delimiters)
            if r.name in DELIMITER_RULES:
                md.inline.ruler2.at(r.name, gated_delimiters(r.fn))
        if (
            md.inline.ruler.get_active_rules()[:1] == ["text"]
            and md.inline.ruler2.get_active_rules() == _PLAIN_POST_RULES
            and any(r.name == "inline" and r.fn is core_inline for r in md.core.ruler.__rules__)
        ):
            md.core.ruler.at("inline", plain_inline)
    ruler = md.block.ruler
    for r in list(ruler.__rules__):
        if r.name in LINE_STARTS:
            fn = gated(r.fn, LINE_STARTS[r.name])
        elif r.name == "table":
            fn = gated_table(r.fn)
        elif r.name == "code":
            fn = gated_code(r.fn)
        elif r.name == "lheading":
            fn = gated_lheading(r.fn)
        else:
            continue
        ruler.at(r.name, fn, {"alt": list(r.alt)})
    if type(ruler) is Ruler:  # the same rules, asked through first_character_chain
        md.block.ruler = FirstCharacterRuler()
        md.block.ruler.__rules__ = ruler.__rules__
