"""Fenced-code highlighting: the bytes `pygments.highlight(code, get_lexer_by_name(name),
HtmlFormatter(nowrap=True))` returns, in a third of the CPU.

Why this module exists: highlighting was a quarter of the model pages' CPU on the compat
corpus (~0.1 s of ~0.45 s), spent in three places, each replaced here by an equivalent:

- `get_lexer_by_name` scans Pygments' whole lexer table on every call: `lexer_class` keeps the
  class a name resolves to (a fresh instance per fence is still made, as before);
- `RegexLexer.get_tokens_unprocessed` tries a state's rules one `match` call at a time (~20
  Python-level calls per bash token): `_States` joins a run of a state's rules into one
  alternation `(?:r0)()|(?:r1)()|...` (the rules' own groups made non-capturing: only the empty
  group ending each is read), which the regex engine tries in the same order, so the first
  rule that matches at a position is the same one, with the same match (a rule referring back
  to its own groups keeps them, renumbered). Rules that cannot be joined as they are (named
  back-references; verbose or mid-pattern flags; long word lists, whose second compilation
  costs more than it saves) stay single steps between the runs, so the order of all rules is kept;
- `HtmlFormatter._format_lines` assembles each line from generated pieces: `format_html`
  writes the same spans in one pass over the tokens.

Lexers that are not plain `RegexLexer`s (their own token loop, filters) go through Pygments
unchanged and only use the lean formatter. tests/test_highlight.py compares the result with real
Pygments output on every fence of the compat corpus and of models/, and on hostile snippets.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pygments import format as pyg_format
from pygments.formatters.html import HtmlFormatter
from pygments.lexer import Lexer, RegexLexer
from pygments.lexers import get_lexer_by_name
from pygments.token import Error, Text, Whitespace, _TokenType
from pygments.util import ClassNotFound

# the formatter whose output `format_html` reproduces; only its CSS class names are used
_FORMATTER = HtmlFormatter(nowrap=True)


def _escapes() -> dict[int, str]:
    """The installed HtmlFormatter's text escaping, read off the formatter itself (a str.translate
    table): Pygments 2.20 escapes quotes as well as & < >, 2.21 only & < >, so copying either
    rule would drift on the other version."""
    return {ord(ch): pyg_format([(Text, ch)], _FORMATTER)[:-1] for ch in "&<>\"'"}


_ESCAPES = _escapes()
# the characters that escaping changes: most tokens hold none of them (a regex search for one is
# half the cost of translating the token through the table, which is left to the tokens that do)
_ESCAPED = re.compile(
    "[" + re.escape("".join(chr(c) for c, text in _ESCAPES.items() if text != chr(c))) + "]"
)
# a rule's pattern that cannot be one alternative of a joined pattern as written:
# back-references by name or condition ((?P=name), (?(1)...)) and verbose mode (a '#' comment
# would swallow the ')'); numbered back-references (\1) are renumbered (`_shifted_refs`)
_UNJOINABLE = re.compile(r"\(\?P=|\(\?\(|\(\?[a-zA-Z]*x")
_BACK_REFERENCE = re.compile(r"\\[1-9]")
_LEADING_FLAGS = re.compile(r"\(\?([ims]+)\)")
_ANY_FLAGS = re.compile(r"\(\?[aiLmsux]+\)")
# longer patterns (Pygments `words()` lists of Python's builtins and exceptions, 500-1,000
# characters; identifier classes of 3,500) stay single steps: compiling them a second time inside
# a joined pattern costs more than the calls it saves. Bash's keyword and builtin lists (106 and
# 327 characters) are joined: tried at nearly every token of the corpus's shell fences, they
# cost more as calls of their own (compat corpus guides, compiling included: 2,245 M
# instructions with a limit of 60, 2,219 M with 350, 2,310 M with 1,000)
_MAX_JOINED = 350
# positions a state other than "root" is tried at before its rules are joined (`_States._counted`):
# highlighting the compat corpus's fences (callgrind) in one process 869.6 M instructions with
# every state joined when entered -> 812.8 M (30: 827.6 M, 300: 817.0 M, 3,000: 820.5 M); in a
# build worker, whose parent imported the lexers and joined their roots, 576.1 -> 517.8 M
JOIN_AFTER = 100


@lru_cache(maxsize=64)
def lexer_class(name: str) -> type | None:
    """The lexer class `get_lexer_by_name(name)` instantiates, None if there is none. Cached
    per process: the lookup scans every lexer Pygments has; bounded (names come from recipes)."""
    try:
        return type(get_lexer_by_name(name))
    except ClassNotFound:
        return None


def highlight_html(code: str, cls: type) -> str:
    """`pygments.highlight(code, cls(), HtmlFormatter(nowrap=True))`, byte for byte."""
    lexer = cls()
    if _plain_regex_lexer(cls) and not lexer.filters:
        tokens = _states(cls).tokens(lexer, lexer._preprocess_lexer_input(code))
    else:
        tokens = lexer.get_tokens(code)
    return format_html(tokens)


def _plain_regex_lexer(cls: type) -> bool:
    """A lexer whose tokens come from RegexLexer's own loop (which `_States.tokens` reproduces) over
    its class's rules: not one with `token_variants` (C#, Nemerle), whose instances pick their
    rules by an option and whose class has none compiled (`_States` read `cls._tokens`: a guide
    with a ```csharp fence failed the build with an AttributeError)."""
    return (
        issubclass(cls, RegexLexer)
        and cls.get_tokens_unprocessed is RegexLexer.get_tokens_unprocessed
        and cls.get_tokens is Lexer.get_tokens
        and not getattr(cls, "token_variants", False)
    )


@lru_cache(maxsize=64)
def _states(cls: type) -> _States:
    # one per lexer class and process, like Pygments' own compiled `cls._tokens`
    return _States(cls)


def _joinable(rexmatch, flags: int) -> tuple[str, int] | None:
    """The source of a rule's pattern as one alternative of a joined pattern and the number of
    groups it keeps, or None. Leading global flags (`(?s)...`) become a scoped group
    (`(?s:...)`): the same pattern. A pattern with numbered back-references keeps its groups
    (they are renumbered where the run is joined); any other has its groups made non-capturing."""
    pattern = rexmatch.__self__
    src = pattern.pattern
    if (
        len(src) > _MAX_JOINED
        or _UNJOINABLE.search(src)
        or pattern.flags != re.compile(src, flags).flags
    ):
        return None  # (the last: a rule compiled with other flags than the lexer's)
    inline = ""
    while m := _LEADING_FLAGS.match(src):
        inline += m.group(1)
        src = src[m.end() :]
    if _ANY_FLAGS.search(src):
        return None
    if _BACK_REFERENCE.search(src):
        # (a name would clash with another rule's; a comment could hide a reference from the scan)
        if "(?P<" in src or "(?#" in src or _shifted_refs(src, 0) is None:
            return None
        kept = pattern.groups
    else:
        src, kept = _without_groups(src), 0
    return (f"(?{inline}:{src})" if inline else src), kept


def _without_groups(src: str) -> str:
    """The pattern with each capturing group, numbered or named, made non-capturing: the same
    matches (a joinable pattern has no back-reference or conditional that could name a group).

    Why: in a joined pattern only the outer group of each rule is needed (`m.lastindex` says which
    rule matched; a callback re-matches with the rule's own pattern), and the regex engine saves
    and restores the marks of every group at each repeat inside one: Pygments' Python lexer's
    joined root state (~100 groups) took 1.5x as long on the compat corpus with its inner groups kept."""
    out: list[str] = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c == "\\":  # an escape: its next character is never syntax
            out.append(src[i : i + 2])
            i += 2
        elif c == "[":  # a character class: '(' is literal in it
            j = _class_end(src, i)
            out.append(src[i:j])
            i = j
        elif c == "(" and not src.startswith("?", i + 1):
            out.append("(?:")
            i += 1
        elif src.startswith("(?P<", i):
            out.append("(?:")
            i = src.index(">", i) + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _class_end(src: str, i: int) -> int:
    """The index just past the character class that starts at `src[i]` ('['): a ']' right after
    the '[' (or after '[^') is a literal, as is any escaped character; the end of `src` if the
    class is unclosed."""
    j = i + 1
    if src.startswith("^", j):
        j += 1
    if src.startswith("]", j):
        j += 1
    while j < len(src) and src[j] != "]":
        j += 2 if src[j] == "\\" else 1
    return j + 1


def _shifted_refs(src: str, offset: int) -> str | None:
    """The pattern with each numbered back-reference `\\N` (outside character classes, where
    `\\1` is an octal escape) made `(?:\\{N + offset})`: the same group once `offset` groups come
    before the pattern's own. None for a reference followed by a digit (`\\12`: a group or an
    octal escape, by sre_parse's rules) or one that would pass group 99 (`\\100` is octal)."""
    out: list[str] = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c == "\\":
            digit, after = src[i + 1 : i + 2], src[i + 2 : i + 3]
            if not digit or digit not in "123456789":
                out.append(src[i : i + 2])
            elif (after and after in "0123456789") or int(digit) + offset > 99:
                return None
            else:
                out.append(f"(?:\\{int(digit) + offset})")
            i += 2
        elif c == "[":  # a character class: `\\1` in it is an octal escape
            j = _class_end(src, i)
            out.append(src[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


class _States(dict):
    """A lexer class's states as steps (match function, {group number: rule}, None) for a joined
    run of rules (the group that matched last, `m.lastindex`: the empty group closing the rule's
    alternative, says which rule), or (the rule's own match function, None, rule) for a single
    rule. "root" is joined when first entered; any other state is first tried rule by rule and
    joined once it has been tried at JOIN_AFTER positions (`_counted`)."""

    def __init__(self, cls: type):
        super().__init__()
        self.rules, self.flags = cls._tokens, cls.flags

    def __missing__(self, state: str) -> list:
        steps = self[state] = self.joined(state) if state == "root" else self._counted(state)
        return steps

    def _counted(self, state: str) -> list:
        """The state's rules as single steps, the first one counting the positions tried (each
        token lexed in the state tries it first); at the JOIN_AFTER-th the state's steps become
        its joined ones (a loop going on with these steps meanwhile finds the same tokens).

        Why: joining compiles a state's rules a second time, one alternation per run (~0.5-2.5 ms
        for each of Bash's and Python's states), which pays only where many tokens are lexed.
        Most states are entered for a few tokens (the compat corpus's guides: 12 of the 14 states
        entered are tried at under 1,000 positions in all, 8 under 100), and each build worker
        compiled them anew. "root", where every fence starts, is joined at once (in the build
        process, before the workers fork: build._warm_guide_lexers)."""
        steps = [(rule[0], None, rule) for rule in self.rules[state]]
        if not steps:
            return steps
        first, _table, rule = steps[0]
        left = [JOIN_AFTER]

        def counting(text: str, pos: int):
            left[0] -= 1
            if left[0] == 0:
                self[state] = self.joined(state)
            return first(text, pos)

        steps[0] = (counting, None, rule)
        return steps

    def joined(self, state: str) -> list:
        """The state's steps, each run of joinable rules one alternation."""
        steps: list = []
        run: list = []

        def close_run():
            if len(run) > 1:
                parts, table, groups = [], {}, 0
                for src, kept, rule in run:
                    if kept:  # its groups keep their order, after the groups of the rules before it
                        src = (
                            _shifted_refs(src, groups) or "("
                        )  # (None: a reference past group 99 fails the join)
                    # the rule's group is an empty one after its pattern, not one around it: the
                    # regex engine skips an alternative whose first item is a literal or a
                    # character class that the text's next character fails (sre_lib.h, BRANCH)
                    # without entering it, which a group in front prevents; most rules start so.
                    # Compat corpus guides: highlighting ~670 -> ~560 M instructions
                    parts.append(f"(?:{src})()")
                    groups += kept + 1
                    table[groups] = rule  # (closed last when the rule matches: m.lastindex)
                try:
                    joined = re.compile("|".join(parts), self.flags)
                except re.error:
                    joined = None
                if joined is not None and joined.groups == groups:
                    steps.append((joined.match, table, None))
                else:  # a pattern the joining cannot take (or a group `_without_groups` missed): each rule on its own
                    steps.extend((rule[0], None, rule) for _src, _kept, rule in run)
            elif run:
                steps.append((run[0][2][0], None, run[0][2]))
            run.clear()

        for rule in self.rules[state]:
            # (a lexer compiling in verbose mode: a '#' comment in one rule would swallow the next)
            joinable = None if self.flags & re.VERBOSE else _joinable(rule[0], self.flags)
            if joinable is None:
                close_run()
                steps.append((rule[0], None, rule))
            else:
                run.append((*joinable, rule))
        close_run()
        return steps

    def tokens(self, lexer, text: str) -> list[tuple]:
        """(token type, text) pairs: RegexLexer.get_tokens_unprocessed (Pygments 2.x) step by
        step, a joined run of rules tried in one call."""
        out = []
        append = out.append
        pos = 0
        statestack = ["root"]
        steps = self["root"]
        while True:
            for match, table, single in steps:
                m = match(text, pos)
                if m is None:
                    continue
                rexmatch, action, new_state = single or table[m.lastindex]
                if action is not None:
                    if type(action) is _TokenType:
                        append((action, m.group()))
                    else:  # a callback (bygroups, using): it reads the rule's own groups
                        for _pos, ttype, value in action(
                            lexer, m if single else rexmatch(text, pos)
                        ):
                            append((ttype, value))
                pos = m.end()
                if new_state is not None:
                    _transition(statestack, new_state)
                    steps = self[statestack[-1]]
                break
            else:  # no rule matched
                if pos >= len(text):
                    break
                if text[pos] == "\n":  # at the end of a line, back to "root"
                    statestack = ["root"]
                    steps = self["root"]
                    append((Whitespace, "\n"))
                else:
                    append((Error, text[pos]))
                pos += 1
        return out


def _transition(statestack: list, new_state) -> None:
    """RegexLexer's state change, in place."""
    if isinstance(new_state, tuple):
        for state in new_state:
            if state == "#pop":
                if len(statestack) > 1:
                    statestack.pop()
            elif state == "#push":
                statestack.append(statestack[-1])
            else:
                statestack.append(state)
    elif isinstance(new_state, int):  # pop, but keep at least one state
        if abs(new_state) >= len(statestack):
            del statestack[1:]
        else:
            del statestack[new_state:]
    elif new_state == "#push":
        statestack.append(statestack[-1])
    else:
        raise AssertionError(f"wrong state def: {new_state!r}")


class _Spans(dict):
    """Token type -> the span the formatter opens for it ('' for none), with its own class
    names; filled as types are met (a fixed set of Pygments singletons)."""

    def __missing__(self, ttype) -> str:
        css = _FORMATTER._get_css_classes(ttype)
        span = self[ttype] = f'<span class="{css}">' if css else ""
        return span


_SPANS = _Spans()
# our own spans left empty by a line break at the end of a run; code text cannot write one
# (its '<' is escaped), and HtmlFormatter never does
_EMPTY_SPAN = re.compile(r'<span class="[^"<>]*"></span>')


def format_html(tokens) -> str:
    """What HtmlFormatter(nowrap=True) writes for these (token type, text) pairs: a line's
    maximal runs of non-empty tokens with the same CSS class in one span (closed before each
    line break, reopened after it), the text escaped, and every line ended by '\n' (also a
    last one without it)."""
    out: list[str] = []
    append = out.append
    spans = _SPANS
    escaped = _ESCAPED.search
    open_span = ""
    last = ""
    for ttype, value in tokens:
        if not value:
            continue
        span = spans[ttype]
        if span != open_span:
            if open_span:
                append("</span>")
            append(span)
            open_span = span
        text = value.translate(_ESCAPES) if escaped(value) else value
        append(text.replace("\n", "</span>\n" + span) if span and "\n" in text else text)
        last = value
    if open_span:
        append("</span>")
    if last and not last.endswith("\n"):
        append("\n")
    return _EMPTY_SPAN.sub("", "".join(out))
