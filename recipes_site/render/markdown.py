"""The guide renderer: recipe Markdown to safe HTML.

CommonMark plus tables and strikethrough (markdown-it-py). Raw HTML in the source is escaped,
not rendered; links and images whose scheme is not http(s), mailto or relative are dropped
(their text stays); fenced code is highlighted by Pygments into CSS classes (`.hl`, styled in
site.css); headings get stable ids and are shifted so the guide's top level sits under the
page's own section heading.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.token import Token
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from recipes_site.render.highlight import highlight_html

SAFE_SCHEMES = {"http", "https", "mailto"}
_SCHEME = re.compile(r"^([a-z][a-z0-9+.\-]*):")
_CONTROL = re.compile(r"[\x00-\x20\x7f]+")
_LANGUAGE = re.compile(r"[a-z0-9+#_.\-]{1,32}")  # a fence's language name we look a lexer up for
# Fence names recipes use that Pygments spells differently (or "text"-like ones not to highlight).
_ALIASES = {
    "sh": "bash",
    "shell": "bash",
    "console": "console",
    "zsh": "bash",
    "yml": "yaml",
    "py": "python",
    "jsonc": "json",
    "dockerfile": "docker",
}


def safe_link(url: str) -> bool:
    """True for relative links and http(s)/mailto; False for javascript:, data:, vbscript:, file: ..."""
    probe = _CONTROL.sub("", unquote(url)).lower()
    m = _SCHEME.match(probe)
    return m is None or m.group(1) in SAFE_SCHEMES


def _highlight(code: str, lang: str, _attrs: str) -> str:
    name = _ALIASES.get(lang.lower(), lang.lower()) if lang else ""
    if not name or not _LANGUAGE.fullmatch(name):
        return ""  # markdown-it escapes the plain text
    try:
        lexer = get_lexer_by_name(name)
    except ClassNotFound:
        return ""
    body = highlight_html(code, lexer)
    return f'<pre class="hl"><code class="language-{escape(name)}">{body}</code></pre>'


_NOT_SLUG = re.compile(r"[^\w\s-]")
_SLUG_GAPS = re.compile(r"[\s_-]+")


def slugify(text: str) -> str:
    if (
        not text.isascii()
    ):  # (ASCII text has no decomposition and no combining mark: NFKD leaves it as it is)
        text = unicodedata.normalize("NFKD", text)
        text = "".join(c for c in text if not unicodedata.combining(c))
    text = _NOT_SLUG.sub("", text.lower())
    return _SLUG_GAPS.sub("-", text).strip("-") or "section"


@dataclass
class Guide:
    html: str
    toc: list = field(default_factory=list)  # (level, id, text) of the guide's top-level headings


def _parser() -> MarkdownIt:
    # raw HTML is escaped as text (html=False)
    md = MarkdownIt(
        "commonmark",
        {"html": False, "highlight": _highlight, "linkify": False, "typographer": False},
    )
    md.enable(["table", "strikethrough"])
    md.validateLink = safe_link  # type: ignore[method-assign]  # (markdown-it's documented hook)

    def table_open(self, tokens, idx, options, env):
        return '<div class="table-wrap">' + self.renderToken(tokens, idx, options, env)

    def table_close(self, tokens, idx, options, env):
        return self.renderToken(tokens, idx, options, env) + "</div>\n"

    def link_open(self, tokens, idx, options, env):
        href = tokens[idx].attrGet("href") or ""
        if href.startswith(("http://", "https://")):
            tokens[idx].attrSet("rel", "nofollow noopener")
        return self.renderToken(tokens, idx, options, env)

    md.add_render_rule("table_open", table_open)
    md.add_render_rule("table_close", table_close)
    md.add_render_rule("link_open", link_open)
    return md


_MD = _parser()


def _relink(children: list, link: Callable[[str], str | None]) -> list:
    """Apply `link` to every link and image of an inline run: a new href, or None to drop the
    link (its text stays) or the image (its alt text stays)."""
    out, dropped = [], []
    for tok in children:
        if tok.type == "link_open":
            href = link(tok.attrGet("href") or "")
            dropped.append(href is None)
            if href is None:
                continue
            tok.attrSet("href", href)
        elif tok.type == "link_close":
            if dropped and dropped.pop():
                continue
        elif tok.type == "image":
            src = link(tok.attrGet("src") or "")
            if src is None:
                alt = Token("text", "", 0)
                alt.content = "".join(c.content for c in tok.children or [])
                out.append(alt)
                continue
            tok.attrSet("src", src)
        out.append(tok)
    return out


def render_guide(
    text: str | None,
    top_level: int = 3,
    reserved_ids: set[str] | frozenset = frozenset(),
    link: Callable[[str], str | None] | None = None,
) -> Guide:
    """HTML of a guide; its smallest heading level becomes `top_level` (h3 under the page's h2).

    `link` may rewrite each (already scheme-checked) link and image target, or drop it by
    returning None: the site uses it so that a guide never links to a page that does not exist."""
    if not text or not isinstance(text, str):
        return Guide("")
    env: dict = {}
    tokens = _MD.parse(text, env)
    # (one listing pass; the heading and link passes below visit only what they change, not
    # every block token: the compat corpus's guides have ~14k of them, ~1k headings)
    heads = [i for i, t in enumerate(tokens) if t.type == "heading_open"]
    shift = top_level - min((int(tokens[i].tag[1]) for i in heads), default=top_level)
    used = set(reserved_ids)
    last_n: dict[str, int] = {}  # base slug -> last suffix tried, so 60k equal headings stay linear
    toc = []
    for i in heads:
        tok, inline, close = (
            tokens[i],
            tokens[i + 1],
            tokens[i + 2],
        )  # (the heading rules push these three)
        level = min(6, max(1, int(tok.tag[1]) + shift))
        tok.tag = close.tag = f"h{level}"
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

    def checked(href: str) -> str | None:
        if href.startswith("#"):  # an anchor of this page: keep it only if the id exists
            return href if href[1:] in used or href == "#" else None
        return link(href) if link is not None else href

    for tok in tokens:
        # only a run holding '[' (links, images) or '<' (autolinks) has a link to check
        if tok.type == "inline" and tok.children and ("[" in tok.content or "<" in tok.content):
            tok.children = _relink(tok.children, checked)
    return Guide(_MD.renderer.render(tokens, _MD.options, env), toc)


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# The label holds no '[' (the innermost brackets are the link, as in CommonMark): a search from
# each '[' then stops at the next one, which keeps a line of 450k '[' and ']' linear (with
# `[^\]\n]*` every '[' scanned to the end of the line: quadratic, minutes).
_MD_LINK = re.compile(
    r'(!?)\[([^\[\]\n]*)\]\(\s*<?((?:[^()\s<>]|\([^()\s]*\))*)>?(\s+"[^"\n]*")?\s*\)'
)


def rewrite_links(text: str, link: Callable[[str], str | None]) -> str:
    """The Markdown source with each inline link or image target passed through `link` (None
    drops the link, keeping its text; unsafe schemes are dropped too). Code blocks are left as
    they are. For Markdown copies of a guide served at another URL than the page."""

    def one(m: re.Match) -> str:
        bang, label, target, title = m.group(1), m.group(2), m.group(3), m.group(4) or ""
        new = link(target) if safe_link(target) else None
        if new is None:
            return label
        return f"{bang}[{label}]({new}{title})"

    out, fence = [], None
    for line in text.splitlines(keepends=True):
        m = _FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)[0] * len(m.group(1))
        elif fence is not None and m and m.group(1).startswith(fence):
            fence = None
        elif fence is None and "[" in line:  # (no '[', no link: the substitution is skipped)
            line = _MD_LINK.sub(one, line)
        out.append(line)
    return "".join(out)


def render_inline(text: str | None) -> str:
    """One line of Markdown (a description, a note) as inline HTML, same safety rules."""
    if not text or not isinstance(text, str):
        return ""
    return _MD.renderInline(text)
