"""The guide renderer's link destination scanner: markdown-it's `parseLinkDestination`, with the
same result for less work per character.

Why: every inline link, image and reference definition of a guide has its destination scanned
by markdown-it's helper (markdown_it/helpers/parse_link_destination.py), a Python loop calling
`charCodeAt` (a function: `ord` of an indexed character) for each character of the URL. On the
compat corpus's guides (537 links, most of them full https URLs) that was 47.7 M of the 786 M
instructions of parsing them (callgrind). `parse_link_destination` lets one regular expression
take each run of characters the loop only steps over (anything but spaces, control characters,
DEL, backslashes and parentheses) and runs the loop's own steps on the others. A destination in
angle brackets, or a `maximum` past the end of the string, goes to markdown-it's helper as it is.

`install` gives one MarkdownIt instance helpers with this scanner (`md.helpers`, the attribute
its link, image and reference rules call it through); nothing of markdown-it is patched.
tests/test_markdown_rules.py compares the scanner with markdown-it's on hostile and random
destinations, and the guides' tokens with an unchanged instance.
"""

from __future__ import annotations

import re
import types

from markdown_it import MarkdownIt, helpers
from markdown_it.common.utils import unescapeAll
from markdown_it.helpers.parse_link_destination import _Result

# the characters parseLinkDestination's plain loop only steps over: it stops at a space or a
# control character (< 0x20, 0x7F), skips a backslash and the character after it (unless that
# is a space), counts '(' and ')'
_PLAIN = re.compile(r"[^\x00-\x20\x7f\\()]*")


def parse_link_destination(string: str, pos: int, maximum: int) -> _Result:
    """helpers.parseLinkDestination(string, pos, maximum): the same ok, pos and str."""
    if string.startswith("<", pos) or maximum > len(string):
        return helpers.parseLinkDestination(string, pos, maximum)
    start, level = pos, 0
    while pos < maximum:
        pos = _PLAIN.match(string, pos, maximum).end()
        if pos >= maximum:
            break
        ch = string[pos]
        if ch <= " " or ch == "\x7f":
            break
        if ch == "\\":
            if pos + 1 < maximum:
                if string[pos + 1] == " ":
                    break
                pos += 2
                continue
        elif ch == "(":
            level += 1
            if level > 32:
                return _Result()
        elif level == 0:  # ')' closing no '('
            break
        else:
            level -= 1
        pos += 1
    result = _Result()
    if start == pos or level != 0:
        return result
    result.str = unescapeAll(string[start:pos])
    result.pos = pos
    result.ok = True
    return result


def install(md: MarkdownIt) -> None:
    """md's link, image and reference rules scan destinations with `parse_link_destination`
    (their other helpers are markdown-it's own)."""
    own = {name: value for name, value in vars(helpers).items() if not name.startswith("__")}
    own["parseLinkDestination"] = parse_link_destination
    md.helpers = types.SimpleNamespace(**own)
