"""The guide renderer's HTML writer: markdown-it's RendererHTML, with the same output for less
work per token.

Why: a compat build writes ~26k guide tokens, and RendererHTML spends most of its time on the
generic path every token takes: `renderToken` builds the tag by repeated string concatenation
and asks `renderAttrs`, which copies the token's attributes into a list (`attrItems`) even when
there are none (most tokens: only headings, links, images and aligned table cells have any);
`text` runs four `str.replace` calls over every text token, though most hold no character
HTML escapes. `GuideRenderer` overrides exactly those three methods and `renderAttrs`:

- `renderToken` writes the same tag, newline before it (after a hidden paragraph of a tight
  list) and newline after it (block tags, but not before an inline run, a hidden token or
  their own closing tag) as RendererHTML.renderToken (markdown_it/renderer.py), and asks for
  attributes only when the token has some;
- `renderAttrs` iterates the attributes directly, escaping as RendererHTML does;
- `text` escapes (markdown_it.common.utils.escapeHtml) only text holding one of the four
  characters it changes.

Every other rule (fence, code, images, our table and link rules in markdown.py) is
RendererHTML's own and calls these. tests/test_pages_markdown.py compares the output with
RendererHTML's on every guide, hand-made edge cases and random Markdown.
"""

from __future__ import annotations

from collections.abc import Sequence

from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict


def _escaped(text: str) -> str:
    """escapeHtml(text), without its four passes over a text it does not change (three
    membership tests are cheaper than one replace)."""
    if "&" in text or "<" in text or ">" in text or '"' in text:
        return escapeHtml(text)
    return text


class GuideRenderer(RendererHTML):
    """RendererHTML (same rules, same output) with a lean per-token path; see the module."""

    def renderToken(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        token = tokens[idx]
        if token.hidden:  # a paragraph of a tight list
            return ""
        nesting = token.nesting
        tag = ("</" if nesting == -1 else "<") + token.tag
        if token.attrs:
            tag += self.renderAttrs(token)
        if nesting == 0 and options["xhtmlOut"]:
            tag += " /"
        if not token.block:
            return tag + ">"
        if nesting != -1 and idx and tokens[idx - 1].hidden:  # after a hidden paragraph
            tag = "\n" + tag
        if nesting == 1 and idx + 1 < len(tokens):
            following = tokens[idx + 1]
            # an inline run or hidden token follows, or the tag's own closing tag: no newline
            if (
                following.type == "inline"
                or following.hidden
                or (following.nesting == -1 and following.tag == token.tag)
            ):
                return tag + ">"
        return tag + ">\n"

    @staticmethod
    def renderAttrs(token: Token) -> str:
        result = ""
        for key, value in token.attrs.items():
            result += f' {_escaped(key)}="{_escaped(str(value))}"'
        return result

    def text(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        return _escaped(tokens[idx].content)
