"""Fenced code is highlighted by render/highlight.py, whose RegexLexer loop tries a run of rules
in one joined pattern. It must write exactly what Pygments writes: every fence of the compat
corpus and of models/, and hostile snippets in many languages, are compared with real Pygments
output."""

from __future__ import annotations

import random
import re

import pytest
from conftest import COMPAT_CORPUS
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.token import Token
from pygments.util import ClassNotFound

from recipes_site.catalog import PROJECT_ROOT, load_catalog
from recipes_site.render import highlight as hl
from recipes_site.render.markdown import _ALIASES, render_guide

_FENCE = re.compile(
    r"^ {0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)[^\n]*\n(.*?)^ {0,3}\1[ \t]*$", re.M | re.S
)
SNIPPETS = [
    "",
    "x",
    "\n\n",
    'echo "unterminated',
    "cat <<EOF\nhi $x\nEOF\n",
    "cat <<-'END'\n\t$y\nEND\n",
    "a=$((1+2**3)) `ls -l` ${x:-y} $(( 16#ff )) $@ $? $1\n\tb\r\nfoo\r",
    "\x00\x01 <>&\"' \\\n",
    "ü ☃ \u2028 x",
    'def f(x):\n    return f"{x!r:>{w}}" + b"\\x00" + r\'\\d\'  # c\n@deco\nclass A(B): pass\n',
    "import os, sys as s\nfrom a.b import (c, d)\nasync def g(): await h()\n",
    '{"a": [1, 2.5e3, true, null], "b": "\\u00e9"}',
    "FROM x AS y\nRUN echo $HOME && ls\nENV A=1\n",
    "$ vllm serve x\nINFO ok\n# not a comment\n",
    "#!/bin/bash\nset -euo pipefail\nfor i in 1 2; do echo $i; done\n",
    "key: [a, {b: c}]\n# c\n---\n- &x y\n- *x\n",
    "if [[ -n \"$A\" ]]; then\n  export B='q' ; fi\n",
    "[12:00] <nick> hi # x\n* nick waves\n-!- a has joined #c\n",
    "case $x in a) ;; esac",
    "((",
    "))",
    "}",
    "${",
    "$(",
    "`",
]
LANGUAGES = [
    "bash",
    "python",
    "console",
    "json",
    "yaml",
    "docker",
    "toml",
    "ini",
    "diff",
    "javascript",
    "rust",
    "go",
    "c++",
    "html",
    "xml",
    "sql",
    "ruby",
    "perl",
    "php",
    "powershell",
    "nginx",
    "make",
    "irc",
    "text",
    "csharp",
    "nemerle",
]  # (these two pick their rules per instance: `token_variants`)
FORMATTER = HtmlFormatter(nowrap=True)


def _pygments(code: str, name: str) -> str:
    return highlight(code, get_lexer_by_name(name), FORMATTER)


def _lexer(name: str):
    try:
        return get_lexer_by_name(name)
    except ClassNotFound:
        return None


def _fences(root) -> list[tuple[str, str]]:
    catalog, _ = load_catalog(root)
    out = []
    for doc in catalog.recipes:
        guide = doc.data.get("guide")
        for m in _FENCE.finditer(guide if isinstance(guide, str) else ""):
            name = _ALIASES.get(m.group(2).lower(), m.group(2).lower())
            if name and _lexer(name) is not None:
                out.append((m.group(3), name))
    return out


@pytest.fixture(scope="module")
def fences() -> list[tuple[str, str]]:
    found = _fences(PROJECT_ROOT) + (_fences(COMPAT_CORPUS) if COMPAT_CORPUS.is_dir() else [])
    assert len(found) > 50 and {"bash", "python"} <= {name for _, name in found}
    return found


def test_every_fence_of_the_corpora_is_highlighted_as_pygments_does(fences):
    for code, name in fences:
        assert hl.highlight_html(code, _lexer(name)) == _pygments(code, name), (
            name,
            code[:200],
        )


def test_hostile_snippets_in_many_languages_are_highlighted_as_pygments_does(fences):
    codes = SNIPPETS + [code for code, _ in fences[:40]]
    for name in LANGUAGES:
        lexer = _lexer(name)
        assert lexer is not None, name
        for code in codes:
            assert hl.highlight_html(code, lexer) == _pygments(code, name), (name, code[:200])


def test_random_shell_and_python_text_is_highlighted_as_pygments_does():
    """Random strings over the characters the lexers' rules turn on: unbalanced quotes,
    brackets, here-documents, escapes, errors, at every state of the state machine."""
    rng = random.Random(13)
    alphabet = list("abcxyz019 \t\n\r\\$`'\"(){}[]<>=;&|#!-+*/%^:,.@?~_") + [
        "<<EOF\n",
        "\nEOF\n",
        "$((",
        "${#",
        'f"',
        "b'",
        '"""',
        "def ",
        "import ",
    ]
    for name in ("bash", "python", "console", "yaml"):
        lexer = _lexer(name)
        for _ in range(300):
            code = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))
            assert hl.highlight_html(code, lexer) == _pygments(code, name), (name, code)


def test_the_plain_regex_lexers_take_the_joined_path():
    """The equality tests above exercise the fast loop, not only the Pygments fallback."""
    for name in ("bash", "python", "docker"):
        assert hl._plain_regex_lexer(type(_lexer(name))), name
    root = hl._states(type(_lexer("bash")))["root"]
    joined = [table for _match, table, single in root if single is None]
    assert joined and max(len(t) for t in joined) > 5


def test_unknown_languages_have_no_lexer_and_guides_still_render():
    assert _lexer("nosuchlang") is None
    assert 'class="hl"' not in render_guide("```nosuchlang\na < b\n```\n").html


def test_joined_patterns_keep_only_the_group_of_each_rule():
    """Inner groups are made non-capturing in a joined pattern (`_without_groups`); the table maps
    the empty group that ends each rule."""
    for name in ("bash", "python"):
        states = hl._states(type(_lexer(name)))
        states["root"]
        joined = [
            (match, table)
            for steps in list(states.values())
            for match, table, single in steps
            if single is None
        ]
        assert joined, name
        for match, table in joined:
            assert match.__self__.groups == len(table) == max(table), name


def test_a_rule_referring_to_its_own_group_stays_on_its_own():
    """Bash's here-document rule refers back to its own group: it is a single step between
    joined runs, and here-documents still highlight as Pygments does."""
    root = hl._states(type(_lexer("bash")))["root"]
    singles = [single for _m, _t, single in root if single is not None]
    assert singles and all(re.search(r"\\[1-9]", s[0].__self__.pattern) for s in singles)
    assert any(single is None for _m, _t, single in root)
    heredoc = "cat <<EOF\nhi $x\nEOF\necho <<-'END'\n\tq\nEND\n<<A\nA\n"
    assert hl.highlight_html(heredoc, _lexer("bash")) == _pygments(heredoc, "bash")


GROUPED = [
    r"(a)(?P<n>b+)",
    r"[(]x(y)",
    r"[]()]+(z)",
    r"[^]()]+",
    r"\((a|b)\)",
    r"(?<=a)(b)",
    r"(?<!\()(c)",
    r"(?:x)(y)*",
    r"(?i:(ab))",
    r"((a)(b))|c",
    r"[\]()](x)",
    r"\\(q)",
    r"(?=(a))a",
    r"(?!(x))[a-c(]",
]


def test_without_groups_keeps_every_match():
    rng = random.Random(7)
    texts = [
        "".join(rng.choice("abcxyzqAB()[]\\") for _ in range(rng.randint(0, 12)))
        for _ in range(400)
    ]
    for src in GROUPED:
        plain = hl._without_groups(src)
        before, after = re.compile(src), re.compile(plain)
        assert after.groups == 0, (src, plain)
        for text in texts:
            for pos in range(len(text) + 1):
                m, n = before.match(text, pos), after.match(text, pos)
                assert (m and m.span()) == (n and n.span()), (src, plain, text, pos)


def test_a_rule_whose_groups_the_scan_misses_stays_on_its_own():
    """A comment holding '[' hides the group after it from `_without_groups`: that run of rules
    is not joined (its group numbers would be wrong), and the output is still Pygments'."""
    from pygments.lexer import RegexLexer

    class Odd(RegexLexer):
        tokens = {
            "root": [
                (r"(?#[)(a)", Token.Name),
                (r"b+", Token.Keyword),
                (r"\s+", Token.Text),
                (r".", Token.Error),
            ]
        }

    assert re.compile(hl._without_groups(r"(?#[)(a)")).groups == 1
    Odd()  # (Pygments compiles a lexer's rules when it is first made)
    steps = hl._states(Odd)["root"]
    assert all(single is not None for _m, _t, single in steps)
    for code in ["abba c", "a\nbb", "", "ccc"]:
        assert hl.highlight_html(code, Odd()) == highlight(code, Odd(), FORMATTER), code


def test_a_guide_with_a_csharp_fence_renders():
    """C#'s lexer compiles its rules per instance (`token_variants`): it goes through Pygments."""
    assert not hl._plain_regex_lexer(type(_lexer("csharp")))
    html = render_guide('```csharp\nvar x = "<a>"; // c\n```\n').html
    assert _pygments('var x = "<a>"; // c\n', "csharp") in html


def test_each_joined_rule_is_its_pattern_then_an_empty_group():
    """A rule's alternative starts with the rule's own pattern (so the regex engine can skip it on
    its first literal or character class) and ends with the empty group `m.lastindex` reads."""
    states = hl._states(type(_lexer("bash")))
    for steps in [states["root"], states["data"]]:
        for match, table, single in steps:
            if single is None:
                alternatives = match.__self__.pattern.split(")()|(?:")
                assert len(alternatives) == len(table)
                assert match.__self__.pattern.startswith("(?:") and match.__self__.pattern.endswith(
                    ")()"
                )


def test_the_rule_that_matches_first_is_taken_when_rules_overlap_or_match_nothing():
    """Overlapping rules, alternations inside a rule, rules matching the empty string, a rule
    referring back to its group, and state changes: the joined path picks the rule Pygments' own
    loop picks (the first that matches)."""
    from pygments.lexer import RegexLexer

    class Overlap(RegexLexer):
        tokens = {
            "root": [
                (r"ab|a", Token.Name),
                (r"a+", Token.Keyword),
                (r"(?=x)", Token.Text, "x"),
                (r"([bc])(d?)\1", Token.Literal),
                (r"b|c", Token.String),
                (r"\s+", Token.Text),
                (r"(?i)d|e", Token.Number),
            ],
            "x": [(r"xx|x", Token.Operator), (r"y?", Token.Comment, "#pop")],
        }

    Overlap()
    assert any(
        single is None and len(table) > 2 for _m, table, single in hl._states(Overlap)["root"]
    )
    rng = random.Random(5)
    for _ in range(300):
        code = "".join(rng.choice("abcdDexy \n") for _ in range(rng.randint(0, 20)))
        assert hl.highlight_html(code, Overlap()) == highlight(code, Overlap(), FORMATTER), code
