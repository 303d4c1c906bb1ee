"""No hidden text in a recipe: every character a reader sees is what a copy puts on the clipboard.

Recipe text reaches pages, API files, llms.txt, the `.md` export and commands pasted into root
shells. Characters that are invisible or change how text around them is shown would let a pull
request show one thing and run another:
- bidirectional controls (U+202A-U+202E, U+2066-U+2069, and the marks U+200E, U+200F, U+061C)
  reorder what is displayed, so a line can look commented out while the shell runs it
  ("Trojan Source", CVE-2021-42574);
- zero-width and other format characters (Unicode category Cf: U+200B, U+2060, U+FEFF, ...)
  hide text or split words invisibly;
- control characters (Unicode category Cc: NUL, ESC, CR, DEL, the C1 range) drive terminals
  (`curl ... llms.txt` into a terminal would obey an ESC sequence) and cut commands.
A newline, and a tab, are allowed only in the fields that are written as several lines
(MULTI_LINE_KEYS); everywhere else a string is one line (a trailing newline aside).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from typing import Any

from recipes_site.catalog.documents import RecipeDoc

# the schema's multi-line strings: the guide (Markdown), example requests, install and
# dependency commands, the install note
MULTI_LINE_KEYS = frozenset({"guide", "curl", "command", "install_note"})
LINE_BREAKS = frozenset("\n\t")


def hidden_character(text: str, multi_line: bool) -> tuple[int, str] | None:
    """(position, character) of the first character of `text` a recipe may not hold, else None.
    A one-line field may end in newlines: YAML's block scalars (`description: >`) add one."""
    if not multi_line:
        text = text.rstrip("\n")
    for i, c in enumerate(text):
        if multi_line and c in LINE_BREAKS:
            continue
        if unicodedata.category(c) in ("Cc", "Cf"):
            return i, c
    return None


def describe(c: str) -> str:
    """`U+202E (RIGHT-TO-LEFT OVERRIDE)`: the code point and its name, never the character."""
    name = unicodedata.name(c, "")
    if not name and c == "\n":
        name = "LINE FEED"
    return f"U+{ord(c):04X}" + (f" ({name})" if name else "")


def hidden_text_problems(data: Any, path: tuple = ()) -> Iterator[tuple[tuple, str, bool]]:
    """(key path, message, at_key) for each key or string of `data` holding hidden text."""
    if isinstance(data, dict):
        items: Iterator[tuple[Any, Any]] = iter(data.items())
    elif isinstance(data, list):
        items = enumerate(data)
    else:
        return
    for key, value in items:
        where = path + (key,)
        if isinstance(key, str) and (found := hidden_character(key, False)):
            yield where, f"the key holds {describe(found[1])}", True
        if isinstance(value, str):
            found = hidden_character(value, key in MULTI_LINE_KEYS)
            if found:
                yield where, _message(found), False
        else:
            yield from hidden_text_problems(value, where)


def _message(found: tuple[int, str]) -> str:
    at, c = found
    return (
        f"{describe(c)} at character {at + 1}: invisible and control characters can make a "
        "page or a command show something other than what is copied or run"
    )


def check_hidden_text(doc: RecipeDoc, catalog: Any) -> list:
    """RECIPE_CHECKS rule: no control, bidirectional or zero-width character in any recipe text
    (a newline or tab only in the multi-line fields)."""
    report = doc.report()
    hint = "delete it; write the text with visible characters only"
    for path, message, at_key in hidden_text_problems(doc.data):
        report.error(path, message, hint, at_key=at_key)
    return report.items
