"""Fenced-code highlighting: the HTML `pygments.highlight(code, lexer, HtmlFormatter(nowrap=True))`
writes, with the lexing of plain RegexLexers done a run of rules at a time.

Pygments' RegexLexer tries a state's rules one `match` call at a time, several Python-level
calls per token; `_States` joins each run of a state's rules into one alternation
`(?:r0)()|(?:r1)()|...` (the rules' own groups made non-capturing), which the regex engine
tries in the same order, so the rule that matches first at a position is the same one, with the
same match; the empty group closing each alternative (`m.lastindex`) says which rule it was.
Rules that cannot be joined as written (back-references, verbose or mid-pattern flags, long
word lists) stay single steps between the runs, so the order of all rules is kept. Every other
lexer (its own token loop, filters, per-instance rules) goes through Pygments unchanged.
This lexing pays ~1,000 M instructions (~11%) of a compat build, most of it in the guides'
shell fences. tests/test_highlight.py compares the output with Pygments' on every fence of the
compat corpus and of models/, and on hostile snippets.
"""

from __future__ import annotations

import re

from pygments import format as pyg_format
from pygments.formatters.html import HtmlFormatter
from pygments.lexer import Lexer, RegexLexer
from pygments.token import Error, Whitespace, _TokenType

# one formatter for every fence: making one builds its style's class table
FORMATTER = HtmlFormatter(nowrap=True)
# a rule's pattern that cannot be one alternative of a joined pattern as written: a reference to
# one of its groups (numbered, named or a condition: joining removes its groups) and verbose
# mode (a '#' comment would swallow the ')')
_UNJOINABLE = re.compile(r"\\[1-9]|\(\?P=|\(\?\(|\(\?[a-zA-Z]*x")
_LEADING_FLAGS = re.compile(r"\(\?([ims]+)\)")
_ANY_FLAGS = re.compile(r"\(\?[aiLmsux]+\)")
# longer patterns (Pygments `words()` lists of Python's builtins, identifier classes) stay single
# steps: compiling them again inside a joined pattern costs more than the calls it saves
_MAX_JOINED = 350
_JOINED: dict[type, _States] = {}


def highlight_html(code: str, lexer: Lexer) -> str:
    """`pygments.highlight(code, lexer, HtmlFormatter(nowrap=True))`, byte for byte."""
    if _plain_regex_lexer(type(lexer)) and not lexer.filters:
        tokens = _states(type(lexer)).tokens(lexer, lexer._preprocess_lexer_input(code))
        return pyg_format(tokens, FORMATTER)
    return pyg_format(lexer.get_tokens(code), FORMATTER)


def _plain_regex_lexer(cls: type[Lexer]) -> bool:
    """A lexer whose tokens come from RegexLexer's own loop (which `_States.tokens` reproduces)
    over its class's rules: not one with `token_variants` (C#, Nemerle), whose instances pick
    their rules by an option and whose class has none compiled."""
    return (
        issubclass(cls, RegexLexer)
        and cls.get_tokens_unprocessed is RegexLexer.get_tokens_unprocessed
        and cls.get_tokens is Lexer.get_tokens
        and not getattr(cls, "token_variants", False)
    )


def _states(cls: type[RegexLexer]) -> _States:
    """The class's joined states: one per lexer class and process, like Pygments' own compiled
    `cls._tokens` (a fixed set of classes)."""
    if cls not in _JOINED:
        _JOINED[cls] = _States(cls)
    return _JOINED[cls]


def _joinable(rexmatch, flags: int) -> str | None:
    """The source of a rule's pattern as one alternative of a joined pattern, its groups made
    non-capturing, or None. Leading global flags (`(?s)...`) become a scoped group (`(?s:...)`):
    the same pattern."""
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
    src = _without_groups(src)
    return f"(?{inline}:{src})" if inline else src


def _without_groups(src: str) -> str:
    """The pattern with each capturing group, numbered or named, made non-capturing: the same
    matches (a joinable pattern has no back-reference or conditional that could name a group).

    Why: in a joined pattern only the outer group of each rule is needed (`m.lastindex` says which
    rule matched; a callback re-matches with the rule's own pattern), and the regex engine saves
    and restores the marks of every group at each repeat inside one (Pygments' Python lexer's
    root state has ~100 groups)."""
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


class _States(dict):
    """A lexer class's states as steps (match function, {group number: rule}, None) for a joined
    run of rules (the group that matched last, `m.lastindex`: the empty group closing the rule's
    alternative, says which rule), or (the rule's own match function, None, rule) for a single
    rule; each state joined when first entered."""

    def __init__(self, cls: type[RegexLexer]):
        super().__init__()
        self.rules, self.flags = cls._tokens, cls.flags

    def __missing__(self, state: str) -> list:
        steps = self[state] = self.joined(state)
        return steps

    def joined(self, state: str) -> list:
        """The state's steps, each run of joinable rules one alternation."""
        steps: list = []
        run: list = []

        def close_run() -> None:
            if len(run) > 1:
                # the rule's group is an empty one after its pattern, not one around it: the
                # regex engine skips an alternative whose first item is a literal or a character
                # class that the text's next character fails, which a group in front prevents
                parts = [f"(?:{src})()" for src, _rule in run]
                table = {number: rule for number, (_src, rule) in enumerate(run, 1)}
                try:
                    joined = re.compile("|".join(parts), self.flags)
                except re.error:
                    joined = None
                if joined is not None and joined.groups == len(run):
                    steps.append((joined.match, table, None))
                else:  # a group `_without_groups` missed: each rule on its own
                    steps.extend((rule[0], None, rule) for _src, rule in run)
            elif run:
                steps.append((run[0][1][0], None, run[0][1]))
            run.clear()

        for rule in self.rules[state]:
            # (a lexer compiling in verbose mode: a '#' comment in one rule would swallow the next)
            joinable = None if self.flags & re.VERBOSE else _joinable(rule[0], self.flags)
            if joinable is None:
                close_run()
                steps.append((rule[0], None, rule))
            else:
                run.append((joinable, rule))
        close_run()
        return steps

    def tokens(self, lexer: Lexer, text: str) -> list[tuple]:
        """(token type, text) pairs: RegexLexer.get_tokens_unprocessed (Pygments 2.x) step by
        step, a joined run of rules tried in one call."""
        out: list[tuple] = []
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
