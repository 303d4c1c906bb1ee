"""The guide renderer: CommonMark + tables, escaped raw HTML, safe links, highlighted code, ids."""

from __future__ import annotations

import random
import re
import unicodedata

import pytest

from recipes_site.render.markdown import render_guide, render_inline, safe_link, slugify


def test_tables_render_inside_a_scroll_wrapper():
    html = render_guide("| Variant | GB |\n|---|---:|\n| BF16 | 168 |\n").html
    assert '<div class="table-wrap"><table>' in html
    assert "<th>Variant</th>" in html and '<td style="text-align:right">168</td>' in html


def test_fenced_code_is_highlighted_with_pygments_classes():
    html = render_guide(
        "```bash\nvllm serve org/model --tensor-parallel-size 8  # comment\n```\n"
    ).html
    assert '<pre class="hl"><code class="language-bash">' in html
    assert '<span class="c1"># comment</span>' in html
    assert '<span class="m">8</span>' in html


def test_unknown_or_hostile_fence_languages_fall_back_to_plain_escaped_code():
    html = render_guide('```nosuchlang\na < b\n```\n```"><script>alert(1)</script>\nx\n```\n').html
    assert "a &lt; b" in html
    assert "<script>" not in html
    assert 'class="hl"' not in html


def test_raw_html_is_escaped_not_rendered():
    html = render_guide(
        '<script>alert(1)</script>\n\n<img src=x onerror="alert(1)">\n\ntext <b onclick=x>bold</b>'
    ).html
    assert "<script" not in html and "<img" not in html and "<b " not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        "java&#x09;script:alert(1)",
        "%6Aavascript:alert(1)",
        "vbscript:msgbox(1)",
        "data:text/html,<b>x</b>",
        "data:image/png;base64,AAAA",
        "file:///etc/passwd",
    ],
)
def test_dangerous_link_schemes_are_dropped(url):
    html = render_guide(f"[click]({url}) and <{url}> and ![img]({url})").html
    assert "href=" not in html and "src=" not in html


@pytest.mark.parametrize(
    "url",
    [
        "https://docs.vllm.ai/",
        "http://example.com/a?b=c",
        "mailto:a@b.c",
        "/hardware/h200/",
        "relative/page.md",
    ],
)
def test_ordinary_links_survive(url):
    assert safe_link(url)
    assert "href=" in render_guide(f"[x]({url})").html


def test_anchor_links_survive_only_when_the_heading_exists():
    html = render_guide(
        "## Troubleshooting\n\nSee [tips](#troubleshooting) and [gone](#nowhere)."
    ).html
    assert '<a href="#troubleshooting">tips</a>' in html
    assert "#nowhere" not in html and "gone" in html


def test_a_link_callback_rewrites_or_drops_site_links():
    known = {"/org/model/": "/org/model/"}
    html = render_guide(
        "[a](/org/model/) [b](../missing) ![pic](img.png) [c](https://x.org)",
        link=lambda href: known.get(href, href if href.startswith("https:") else None),
    ).html
    assert '<a href="/org/model/">a</a>' in html
    assert "missing" not in html and ">b<" not in html and " b " in html
    assert "<img" not in html and "pic" in html
    assert 'href="https://x.org"' in html


def test_external_links_get_rel_nofollow():
    html = render_guide("[docs](https://docs.vllm.ai/)").html
    assert '<a href="https://docs.vllm.ai/" rel="nofollow noopener">docs</a>' in html


def test_headings_are_shifted_under_the_page_section_and_get_unique_ids():
    guide = render_guide(
        "## Overview\n\n### Details\n\n## Overview\n\n## Install `vllm`\n",
        top_level=3,
        reserved_ids={"install-vllm"},
    )
    assert '<h3 id="overview">Overview</h3>' in guide.html
    assert '<h4 id="details">Details</h4>' in guide.html
    assert '<h3 id="overview-2">Overview</h3>' in guide.html
    assert '<h3 id="install-vllm-2">Install <code>vllm</code></h3>' in guide.html
    assert guide.toc == [
        (3, "overview", "Overview"),
        (3, "overview-2", "Overview"),
        (3, "install-vllm-2", "Install vllm"),
    ]


def test_a_guide_starting_at_h1_is_shifted_too():
    html = render_guide("# Title\n\n## Sub\n", top_level=3).html
    assert '<h3 id="title">' in html and '<h4 id="sub">' in html


def test_slugify():
    assert slugify("Launch the Server (8× H200)!") == "launch-the-server-8-h200"
    assert slugify("Ünïcödé  ") == "unicode"
    assert slugify("???") == "section"


def test_slugify_equals_its_plain_definition():
    """slugify skips the Unicode normalisation for ASCII text (which it cannot change)."""

    def plain(text):
        text = unicodedata.normalize("NFKD", text)
        text = "".join(c for c in text if not unicodedata.combining(c)).lower()
        return re.sub(r"[\s_-]+", "-", re.sub(r"[^\w\s-]", "", text)).strip("-") or "section"

    rng = random.Random(13)
    chars = [chr(i) for i in range(0, 0x30000, 7) if not 0xD800 <= i < 0xE000] + list(
        "AZaz09 _-\u0301\u00c5\ufb01\u2028"
    )
    for c in chars:
        assert slugify(f"{c}Ab {c}") == plain(f"{c}Ab {c}"), hex(ord(c))
    for _ in range(3000):
        text = "".join(rng.choice(chars) for _ in range(rng.randint(0, 10)))
        assert slugify(text) == plain(text), repr(text)


def test_empty_and_non_string_guides_render_nothing():
    assert (
        render_guide(None).html == ""
        and render_guide("").html == ""
        and render_guide(42).html == ""
    )


def test_inline_rendering_keeps_the_same_rules():
    assert (
        render_inline("**bold** <i>x</i> [j](javascript:x)")
        == "<strong>bold</strong> &lt;i&gt;x&lt;/i&gt; [j](javascript:x)"
    )


def test_rewrite_links_changes_markdown_source_outside_code():
    from recipes_site.render.markdown import rewrite_links

    src = 'See [a](../x), ![i](img.png "t"), [b](https://x.org), [j](javascript:alert(1)).\n```\n[code](../keep)\n```\n'
    out = rewrite_links(
        src, lambda h: "/site/x/" if h == "../x" else None if h.endswith(".png") else h
    )
    assert out == "See [a](/site/x/), i, [b](https://x.org), j.\n```\n[code](../keep)\n```\n"


def test_link_targets_are_normalised_punycode_hosts_and_percent_encoded_paths():
    guide = "[a](<https://bücher.example/x y>) [b](https://bücher.example/x%20y) [a](<https://bücher.example/x y>)\n"
    html = render_guide(guide).html
    assert html.count('href="https://xn--bcher-kva.example/x%20y"') == 3


def _plain_render_guide(text, top_level=3, reserved_ids=frozenset(), link=None):
    """render_guide as first written: every block token visited for headings, every inline run
    relinked. render_guide visits only headings and runs that can hold a link."""
    from recipes_site.render.markdown import _MD, Guide, _relink

    if not text or not isinstance(text, str):
        return Guide("")
    env: dict = {}
    tokens = _MD.parse(text, env)
    headings = [t for t in tokens if t.type == "heading_open"]
    shift = top_level - min((int(t.tag[1]) for t in headings), default=top_level)
    used, last_n, toc = set(reserved_ids), {}, []
    for i, tok in enumerate(tokens):
        if tok.type not in ("heading_open", "heading_close"):
            continue
        level = min(6, max(1, int(tok.tag[1]) + shift))
        tok.tag = f"h{level}"
        if tok.type == "heading_close":
            continue
        inline = tokens[i + 1]
        title = (
            "".join(c.content for c in (inline.children or []) if c.type in ("text", "code_inline"))
            or inline.content
        )
        base = slugify(title)
        n = last_n.get(base, 1)
        slug = base if n == 1 else f"{base}-{n}"
        while slug in used:
            n += 1
            slug = f"{base}-{n}"
        last_n[base] = n
        used.add(slug)
        tok.attrSet("id", slug)
        if level == top_level:
            toc.append((level, slug, title))

    def checked(href):
        if href.startswith("#"):
            return href if href[1:] in used or href == "#" else None
        return link(href) if link is not None else href

    for tok in tokens:
        if tok.type == "inline" and tok.children:
            tok.children = _relink(tok.children, checked)
    return Guide(_MD.renderer.render(tokens, _MD.options, env), toc)


@pytest.fixture(scope="module")
def guide_texts() -> list[str]:
    """Every guide of models/ (and the compat corpus, where present) and random Markdown made of
    headings, anchors, site links, autolinks, images and references."""
    from conftest import COMPAT_CORPUS

    from recipes_site.catalog import PROJECT_ROOT, load_catalog

    texts = []
    for root in [PROJECT_ROOT] + ([COMPAT_CORPUS] if COMPAT_CORPUS.is_dir() else []):
        catalog, _ = load_catalog(root)
        texts += [
            doc.data["guide"] for doc in catalog.recipes if isinstance(doc.data.get("guide"), str)
        ]
    rng = random.Random(29)
    pieces = [
        "# ",
        "## ",
        "### ",
        "#### ",
        "\n",
        "\n\n",
        "Title",
        "a b",
        "`code`",
        "[a](#title)",
        "[b](#a-b)",
        "[c](#)",
        "[d](/org/x/)",
        "[e](../y)",
        "<https://x.org/a>",
        "<me@x.org>",
        "![i](p.png)",
        "[r]",
        "\n\n[r]: /u\n",
        "Setext\n---\n",
        "Other\n===\n",
        "- ",
        "> ",
        "| h |\n|---|\n| [f](#other) |\n",
        "[",
        "]",
        "(",
        ")",
        "<",
        "&lt;",
    ]
    return texts + [
        "".join(rng.choice(pieces) for _ in range(rng.randint(1, 40))) for _ in range(500)
    ]


@pytest.mark.parametrize("link", [None, lambda h: None, lambda h: "/x/" + h.lstrip("./")])
def test_guides_render_as_when_every_token_was_visited(link, guide_texts):
    for text in guide_texts:
        for top, reserved in ((3, frozenset({"main", "title"})), (2, frozenset())):
            ours, plain = (
                render_guide(text, top, reserved, link),
                _plain_render_guide(text, top, reserved, link),
            )
            assert (ours.html, ours.toc) == (plain.html, plain.toc), text[:200]
