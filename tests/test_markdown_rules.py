"""Issue 13, "faster than the reference": the guide renderer's MarkdownIt instance skips block
rules that a line's first character rules out and stops its text rule only where one of its
inline rules can start (render/md_gates.py). The tokens (and the references markdown-it collects)
must be exactly those of an unchanged instance with the same options: compared on every guide
of models/ and of the compat corpus, on hand-made edge cases and on random Markdown. Its HTML
writer (render/md_renderer.py) must write what markdown-it's RendererHTML writes, on the same texts."""

from __future__ import annotations

import random
import re

import pytest
from conftest import COMPAT_CORPUS
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML

from recipes_site.catalog import PROJECT_ROOT, load_catalog
from recipes_site.render import md_gates
from recipes_site.render.markdown import _MD, _highlight, _parser, render_guide, safe_link

EDGE_CASES = [
    "",
    "x",
    "\n",
    "a\n---\nb\n===\n",
    "# h\n## h2 ##\n#no\n####### seven\n",
    "***\n- - -\n_ _ _\n--\n",
    "- a\n- b\n\n  c\n* d\n+ e\n1. one\n2) two\n10. ten\n1234567890. long\n-no space\n",
    "> q\n> > qq\nlazy\n>\n",
    "```py\ncode\n```\n~~~\ntilde\n~~~~\n``` a`b\n",
    "    indented\n\n\tcode\n  - list\n      code in list\n",
    "| a | b |\n|---|:-:|\n| 1 | 2 |\n\n|x|\n-|-\n| y |\n",
    "a | b\n- | -\n1 | 2\n",
    "para\n| not | table |\n",
    "[ref]: /url 'title'\n[ref]\n[Ref][]\n[x][ref]\n",
    "[a]: <b c>\n[\n]\n",
    "<div>\nhtml\n</div>\n<!-- c -->\n<b>x</b> <i",
    "a - b : c = d # e + f % g $ h @ i ^ j { k } l > m",
    "*em* _em_ **st** __st__ ~~del~~ ~single~ `code` ``a`b``",
    '[link](/u "t") ![img](/i.png) <https://a.b> <me@x.org> &amp; &#65; &nope; \\* \\[ \\',
    "a  \nb\\\nc\nd",
    "[a [b] c](/u) [a](</u v>) [a]( /u ) [x]y] [[nested]](u) ![a ![b](c)](d) [-:=](#) [a\n- b](c)",
    "- [ ] task\n- [x] done\n",
    "1. a\n\n   > q\n\n   ```\n   c\n   ```\n2. b\n",
    "\u00a0 nbsp\n\r\nCRLF\r\n",
    "Setext with - inside\n-\n",
    "p\n    lazy code-looking\n- list after para\n2. ordered after para\n1. one\n",
    "nul\0 in text\n\n`\0`\n",
    "cr\ronly\r\rpara\r- item\r",
    "mixed\r\n\n\0\r",
    # setext headings (md_gates.gated_lheading): underlines after several lines, indented, in containers, lookalikes
    "Foo\nbar\n===\n",
    "Foo\n  ---\n",
    "Foo\n    ---\n",
    "a\n= b\n",
    "a\n--- x\n",
    "a\n\n===\n",
    "a\n- b\n===\n",
    "> a\n> ---\n",
    "> a\n---\n",
    "- a\n  b\n  ===\n- c\n  ---\n",
    "1. a\n   b\n=\n",
    "a\n# h\n===\n",
    "| t |\n|---|\n===\n",
    "a\n```\n===\n```\n",
    "a\nb\nc\n\t===\n",
    # tables (md_gates.gated_table): delimiter rows starting and going on with each character the rule accepts
    "a|b\n:-|-:\n",
    "a|b\n|-\n",
    "a\n-|\n",
    "a|b\n-- | --\n",
    "a|b\n|\t-|\n",
    "a|b\n-:\n",
    "a|b\n: |\n",
    "a|b\n-\t|\n",
    "a|b\n|-|x\n",
    "a|b\n||\n",
    "> a|b\n> -|-\n",
    "- a|b\n  -|-\n",
    "a|b\n   -|-\n",
    "a|b\n    -|-\n",
    "| a | b |\n| - | - |\n",
    "a|b\n| :-: | -\n",
    "a|b\n:\t-|-\n",
]


def _plain() -> MarkdownIt:
    """The instance as it was before md_gates: same options and enabled rules, nothing swapped."""
    md = MarkdownIt(
        "commonmark",
        {"html": False, "highlight": _highlight, "linkify": False, "typographer": False},
    )
    md.enable(["table", "strikethrough"])
    md.validateLink = safe_link
    return md


def _dump(md: MarkdownIt, text: str):
    env: dict = {}
    tokens = md.parse(text, env)
    return [t.as_dict() for t in tokens], env


def _random_markdown(rng: random.Random) -> str:
    pieces = [
        "#",
        "##",
        "-",
        "*",
        "+",
        "_",
        "1.",
        "2)",
        ">",
        "|",
        ":",
        "=",
        "~",
        "`",
        "```",
        "~~~",
        "[",
        "]",
        "(",
        ")",
        "!",
        "<",
        ">",
        "&",
        "\\",
        "    ",
        "  ",
        " ",
        "\t",
        "\n",
        "\n\n",
        "a",
        "word",
        "x y",
        "---",
        "===",
        "***",
        "| a |",
        "|---|",
        "[r]:",
        "/u",
        "<b>",
        "&amp;",
        "http://x.y",
    ]
    return "".join(rng.choice(pieces) for _ in range(rng.randint(1, 60)))


def _guides(root) -> list[str]:
    catalog, _ = load_catalog(root)
    return [doc.data["guide"] for doc in catalog.recipes if isinstance(doc.data.get("guide"), str)]


# markdown-it-py 4.x only: its text rule reads its stops from `md.inline.terminator_re`, which
# md_gates narrows; under 3.x (which pyproject admits) only the block gates are installed
_NEEDS_4X = pytest.mark.skipif(
    not hasattr(MarkdownIt().inline, "terminator_re"),
    reason="markdown-it-py 3.x: no inline terminator_re to narrow",
)


@pytest.fixture(scope="module")
def guides() -> list[str]:
    found = _guides(PROJECT_ROOT) + (_guides(COMPAT_CORPUS) if COMPAT_CORPUS.is_dir() else [])
    assert len(found) > 20
    return found


def test_guides_parse_to_the_same_tokens_as_an_unchanged_instance(guides):
    plain = _plain()
    for text in guides + EDGE_CASES:
        assert _dump(_MD, text) == _dump(plain, text), text[:200]


def test_random_markdown_parses_to_the_same_tokens():
    plain, rng = _plain(), random.Random(13)
    for _ in range(3000):
        text = _random_markdown(rng)
        assert _dump(_MD, text) == _dump(plain, text), repr(text)


@_NEEDS_4X
def test_delimiter_post_rules_run_only_for_runs_holding_a_delimiter_character():
    """balance_pairs, strikethrough and emphasis post-processing are gated (md_gates.gated_delimiters):
    called for a run holding '*', '_' or '~', not for one without."""
    from types import SimpleNamespace

    calls = []
    gate = md_gates.gated_delimiters(lambda state: calls.append(state.src))
    for src in ["plain [a](b) text", "a *b* c", "snake_case", "~~x~~", "", "` code `"]:
        gate(SimpleNamespace(src=src, delimiters=[], tokens_meta=[]))
    assert calls == ["a *b* c", "snake_case", "~~x~~"]
    names = {r.name: r.fn for r in _MD.inline.ruler2.__rules__}
    assert all(
        names[n].__qualname__.startswith("gated_delimiters") for n in md_gates.DELIMITER_RULES
    )
    assert md_gates.DELIMITER_CHARACTERS == "_*~"


@_NEEDS_4X
def test_a_delimiter_gate_missing_a_character_would_be_caught(monkeypatch):
    def without_tilde(rule):
        return lambda state: rule(state) if ("*" in state.src or "_" in state.src) else None

    monkeypatch.setattr(md_gates, "gated_delimiters", without_tilde)
    md, plain = _parser(), _plain()
    assert any(
        _dump(md, text) != _dump(plain, text)
        for text in ["~~struck~~ text", "a ~~b~~ c\n", "x ~y~ z"]
    )


def test_link_destinations_are_scanned_as_markdown_its_helper_scans_them():
    """md_links.parse_link_destination: markdown-it's parseLinkDestination's ok, pos and str on
    destinations of every character class its loop tells apart, at every start and three ends."""
    from markdown_it import helpers

    from recipes_site.render import md_links

    assert _MD.helpers.parseLinkDestination is md_links.parse_link_destination
    assert (
        _MD.helpers.parseLinkLabel is helpers.parseLinkLabel
        and _MD.helpers.parseLinkTitle is helpers.parseLinkTitle
    )
    rng = random.Random(17)
    pieces = [
        "a",
        "/",
        ":",
        ".",
        "(",
        ")",
        "\\",
        " ",
        "\t",
        "\n",
        "\x00",
        "\x1f",
        "\x7f",
        "<",
        ">",
        "&amp;",
        "\\(",
        "\\ ",
        "é",
        "\u00a0",
        "%20",
        "(" * 8,
        ")" * 3,
        "https://x.y/p?q=1#f",
    ]
    cases = [
        "",
        "(",
        ")",
        "\\",
        "a\\",
        "<a>",
        "<a",
        "(" * 33 + ")" * 33,
        "(" * 32 + ")" * 32,
        "https://x.y/a_(b)",
        "a b",
        "a\\ b",
        "a\\\nb",
        "\\)",
        "x)y",
        "\x7f",
        "a\x7fb",
    ]
    cases += ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 20))) for _ in range(1500)]
    for text in cases:
        for pos in range(len(text) + 1):
            for maximum in {len(text), max(pos, len(text) - 1), len(text) + 2}:
                ours = md_links.parse_link_destination(text, pos, maximum)
                theirs = helpers.parseLinkDestination(text, pos, maximum)
                assert (ours.ok, ours.pos, ours.str) == (theirs.ok, theirs.pos, theirs.str), (
                    text,
                    pos,
                    maximum,
                )


@_NEEDS_4X
def test_the_instance_runs_the_gated_rules_and_narrow_text_stops():
    """Guard against the speed-up silently not being installed (the equality tests would pass)."""
    active = _MD.block.ruler.get_active_rules()
    assert "html_block" not in active and "html_inline" not in _MD.inline.ruler.get_active_rules()
    assert "-" not in _MD.inline.terminator_re.pattern and "]" in _MD.inline.terminator_re.pattern
    gated = {
        r.name
        for r in _MD.block.ruler.__rules__
        if r.fn.__qualname__.startswith(("gated", "gate")) or r.fn.__module__ == md_gates.__name__
    }
    assert set(md_gates.LINE_STARTS) | {"table", "code", "lheading"} <= gated


@pytest.mark.parametrize(
    "rule, starts", [("hr", "*_"), ("list", "*+0123456789"), ("fence", "`"), ("heading", "")]
)
def test_a_wrong_start_set_would_be_caught(rule, starts, monkeypatch):
    """The equality tests fail when a gate's set misses a character its rule starts at."""
    monkeypatch.setitem(md_gates.LINE_STARTS, rule, frozenset(starts))
    broken, plain = _parser(), _plain()
    texts = EDGE_CASES + [_random_markdown(random.Random(i)) for i in range(300)]
    assert any(_dump(broken, t) != _dump(plain, t) for t in texts)


def test_each_block_chain_is_one_first_character_function_rebuilt_with_the_rules():
    """The block parser and the terminator-asking rules get one function per chain
    (md_gates.first_character_chain); enabling or disabling a rule later is still honoured."""
    assert type(_MD.block.ruler) is md_gates.FirstCharacterRuler
    for chain in ("", "paragraph", "blockquote", "list", "reference"):
        assert len(_MD.block.ruler.getRules(chain)) == 1
    texts = EDGE_CASES + [_random_markdown(random.Random(i)) for i in range(200)]
    for names in (["table"], ["table", "hr", "heading"], ["lheading", "fence", "list"]):
        ours, plain = _parser(), _plain()
        ours.disable(names)
        plain.disable(names)
        assert all(_dump(ours, t) == _dump(plain, t) for t in texts), names


@pytest.mark.parametrize("underline", ["-", "=", ""])
def test_a_setext_gate_missing_an_underline_character_would_be_caught(underline, monkeypatch):
    monkeypatch.setattr(md_gates, "SETEXT_UNDERLINE", frozenset(underline))
    broken, plain = _parser(), _plain()
    assert any(_dump(broken, t) != _dump(plain, t) for t in EDGE_CASES)


@pytest.mark.parametrize(
    "row", [r"\|[|\-: \t]*", r"(?:[|:][|\-: \t]|-[|\-:])[|\-:]*", r"[|\-:][|\-:][|\-: \t]*"]
)
def test_a_table_gate_refusing_a_row_the_rule_accepts_would_be_caught(row, monkeypatch):
    monkeypatch.setattr(md_gates, "TABLE_DELIMITER_ROW", re.compile(row))
    broken, plain = _parser(), _plain()
    assert any(_dump(broken, t) != _dump(plain, t) for t in EDGE_CASES)


def test_the_setext_rule_runs_only_for_paragraphs_with_an_underline_character():
    """The gate is what answers for a paragraph without one (not the rule, called anyway)."""
    from markdown_it.rules_block import lheading

    seen = []
    md = _parser()
    md.block.ruler.at(
        "lheading",
        md_gates.gated_lheading(
            lambda state, start, *a: seen.append(start) or lheading(state, start, *a)
        ),
    )
    md.parse("plain\nparagraph\n\nheading\n---\n\nlist after\n- x\n\n    code\n", {})
    assert seen == [3, 6]


@_NEEDS_4X
@pytest.mark.parametrize("rule", ["link", "newline", "emphasis"])
def test_a_missing_text_stop_would_be_caught(rule, monkeypatch):
    monkeypatch.setitem(md_gates.INLINE_STARTS, rule, "")
    broken, plain = _parser(), _plain()
    assert any(_dump(broken, t) != _dump(plain, t) for t in EDGE_CASES)


@_NEEDS_4X
def test_plain_inline_runs_skip_the_inline_parser_only_when_nothing_in_them_can_start_a_rule(
    monkeypatch,
):
    assert any(
        r.name == "inline" and r.fn is md_gates.plain_inline for r in _MD.core.ruler.__rules__
    )
    calls = []
    parse = _MD.inline.parse
    monkeypatch.setattr(_MD.inline, "parse", lambda src, *a: calls.append(src) or parse(src, *a))
    _MD.parse("# Plain heading: a-b=c\n\n- one\n- *two*\n\nline\nbreak\n", {})
    assert calls == ["*two*", "line\nbreak"]


def test_only_sources_with_a_carriage_return_or_nul_are_normalized(monkeypatch):
    assert any(
        r.name == "normalize" and r.fn is md_gates.plain_normalize for r in _MD.core.ruler.__rules__
    )
    seen = []
    monkeypatch.setattr(md_gates, "core_normalize", lambda state: seen.append(state.src))
    for text in ["plain\n\ntext\n", "a\r\nb", "a\0b", "\u2028 x\x0b\x0c\n"]:
        _MD.parse(text, {})
    assert seen == ["a\r\nb", "a\0b"]


def test_a_normalize_skipped_for_carriage_returns_would_be_caught(monkeypatch):
    monkeypatch.setattr(md_gates, "core_normalize", lambda state: None)
    plain = _plain()
    assert any(_dump(_MD, t) != _dump(plain, t) for t in EDGE_CASES)


@_NEEDS_4X
def test_a_fast_path_taken_for_runs_with_markup_would_be_caught():
    broken, plain = _parser(), _plain()
    broken.inline.terminator_re = re.compile("(?!)")  # every run taken for plain text
    assert any(_dump(broken, t) != _dump(plain, t) for t in EDGE_CASES)


@_NEEDS_4X
def test_an_inline_rule_the_module_does_not_know_keeps_the_default_stops():
    md = MarkdownIt("commonmark")  # html_inline is enabled there
    default = md.inline.terminator_re
    md_gates.install(md)
    assert md_gates.text_stops(md) is None and md.inline.terminator_re is default


RENDER_CASES = [
    "- a\n  > quote in a tight list\n- b\n  ```\n  code\n  ```\n- c\n  # heading\n- d\n  ***\n",
    '1. a\n\n   b\n2. c\n\n- [x](/u "t&\\"q") ![a "q" & <b>](/i.png "t")\n',
    "a  \nhard\\\nbreak\n\n***\n\n- \n-\n",
    '| l | c | r |\n|:--|:-:|--:|\n| `a` | *b* | [c](https://x.y/?a=1&b="2") |\n',
    "Text with & < > \" ' and &amp; &lt;\n",
    "## Title with `code` & <tags>\n\n### Title with `code` & <tags>\n\n[anchor](#title-with-code-tags)\n",
]


def _reference_renderer() -> RendererHTML:
    """markdown-it's own HTML renderer with the guide instance's extra rules (tables, links)."""
    ref = RendererHTML()
    for name in ("table_open", "table_close", "link_open"):
        ref.rules[name] = _MD.renderer.rules[name].__func__.__get__(ref)
    return ref


def _both(text: str, monkeypatch, md=None) -> tuple[str, str]:
    """The guide's HTML as written by `md` (the guide instance by default) and by markdown-it's renderer."""
    from recipes_site.render import markdown

    def render() -> str:
        return render_guide(
            text, top_level=3, reserved_ids=frozenset({"main"}), link=lambda h: h
        ).html

    with monkeypatch.context() as m:
        m.setattr(markdown, "_MD", md or _MD)
        ours = render()
        m.setattr(markdown._MD, "renderer", _reference_renderer())
        return ours, render()


def test_guides_render_to_the_html_markdown_its_own_renderer_writes(guides, monkeypatch):
    from recipes_site.render.md_renderer import GuideRenderer

    assert type(_MD.renderer) is GuideRenderer
    rng = random.Random(17)
    for text in guides + EDGE_CASES + RENDER_CASES + [_random_markdown(rng) for _ in range(1500)]:
        ours, theirs = _both(text, monkeypatch)
        assert ours == theirs, text[:200]


@pytest.mark.parametrize(
    "case", ["no newline after a hidden paragraph", "no attributes", "nothing escaped"]
)
def test_a_renderer_departing_from_markdown_its_would_be_caught(case, monkeypatch):
    from recipes_site.render import md_renderer

    cls = md_renderer.GuideRenderer
    if case == "no newline after a hidden paragraph":
        token = cls.renderToken
        monkeypatch.setattr(
            cls,
            "renderToken",
            lambda self, tokens, idx, *a: token(self, tokens, idx, *a).lstrip("\n"),
        )
    elif case == "no attributes":
        monkeypatch.setattr(cls, "renderAttrs", staticmethod(lambda token: ""))
    else:
        monkeypatch.setattr(md_renderer, "_escaped", lambda text: text)
    broken = _parser()  # (a renderer's rules are bound when it is made)
    assert any(
        ours != theirs for ours, theirs in (_both(t, monkeypatch, broken) for t in RENDER_CASES)
    )
