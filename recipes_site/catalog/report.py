"""Printing diagnostics for people and for machines: `validate --format text|github|json`.

All three use one order (``ordered``), so two runs over the same files print the same bytes and
a CI diff of the JSON is meaningful.

* text: ``path:line:col: level: key.path: message (hint)`` lines and the summary line;
* github: GitHub Actions workflow commands, one annotation per diagnostic
  (``::error file=PATH,line=L,col=C,title=KEY::message``), then the summary as a plain line;
* json: ``{"diagnostics": [{path, line, col, level, key_path, message, hint}, ...],
  "summary": {files, errors, warnings, root_kind}}``.
"""

from __future__ import annotations

import json

from recipes_site.catalog.diagnostics import Diagnostic, errors, summary, warnings

FORMATS = ("text", "github", "json")


def ordered(diags: list[Diagnostic]) -> list[Diagnostic]:
    """Stable output order: by file, position, key path, then errors before warnings, message."""
    return sorted(
        diags, key=lambda d: (d.path, d.line, d.col, d.key_path, d.level.value, d.message, d.hint)
    )


# GitHub's workflow-command escaping, as @actions/core does it (actions/toolkit,
# packages/core/src/command.ts: escapeData and escapeProperty). Unescaped, a `%` would be
# decoded, a newline would end the command early (and could start a forged one), and a `,` or
# `:` in a property would end the property.
def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotation(d: Diagnostic) -> str:
    """One `::error` / `::warning` workflow command; unknown positions (0) are left out, so
    GitHub annotates the file rather than a line that does not exist."""
    props = [("file", d.path)]
    if d.line > 0:
        props.append(("line", str(d.line)))
        if d.col > 0:
            props.append(("col", str(d.col)))
    props.append(("title", d.key_path or "<document>"))
    message = d.message + (f" ({d.hint})" if d.hint else "")
    head = ",".join(f"{key}={escape_property(value)}" for key, value in props)
    return f"::{d.level.value} {head}::{escape_data(message)}"


def diagnostic_json(d: Diagnostic) -> dict:
    return {
        "path": d.path,
        "line": d.line,
        "col": d.col,
        "level": d.level.value,
        "key_path": d.key_path,
        "message": d.message,
        "hint": d.hint,
    }


def render(
    diags: list[Diagnostic], files: int, fmt: str = "text", *, root_kind: str | None = None
) -> str:
    """The whole report in format ``fmt`` (one of FORMATS), ending with a newline."""
    items = ordered(diags)
    if fmt == "json":
        doc = {
            "diagnostics": [diagnostic_json(d) for d in items],
            "summary": {
                "files": files,
                "errors": len(errors(diags)),
                "warnings": len(warnings(diags)),
                **({"root_kind": root_kind} if root_kind else {}),
            },
        }
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    if fmt == "github":
        lines = [github_annotation(d) for d in items]
    elif fmt == "text":
        lines = [d.format() for d in items]
    else:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    return "".join(line + "\n" for line in lines) + summary(diags, files) + "\n"
