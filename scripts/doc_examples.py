#!/usr/bin/env python3
"""Check or regenerate the command examples in the project's Markdown documents.

usage: python scripts/doc_examples.py [--update] [FILE.md ...]

A figure in a document is either worked out by the tool or it goes stale: every example is a
`console` block whose first line is `$ recipes-site ...`, followed by what that command prints
(stdout and stderr, as a terminal shows them), run from the repository's top level on its own
recipes. A last line `...` means the rest of the output is left out: the shown lines must then
start the output. `--update` rewrites each block with the output of today's code; without it the
script prints the blocks whose output changed and exits 1 (tests/test_doc_examples.py runs it).
Only `recipes-site` commands are run, never a shell.
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = ("README.md", "CONTRIBUTING.md", "docs/*.md")
BLOCK = re.compile(r"^```console\n(.*?)^```$", re.S | re.M)
MORE = "..."


@dataclass(frozen=True)
class Example:
    path: Path
    start: int  # offset of the block's body in the document
    end: int
    command: str
    shown: list[str]

    @property
    def truncated(self) -> bool:
        return bool(self.shown) and self.shown[-1] == MORE


def documents() -> list[Path]:
    return sorted({p for pattern in DOCUMENTS for p in ROOT.glob(pattern)})


def examples(path: Path) -> list[Example]:
    found = []
    for match in BLOCK.finditer(path.read_text(encoding="utf-8")):
        first, *rest = match.group(1).rstrip("\n").split("\n")
        if not first.startswith("$ recipes-site "):
            raise ValueError(f"{path}: a console block must start with '$ recipes-site ...'")
        found.append(Example(path, match.start(1), match.end(1), first[2:], rest))
    return found


def run(command: str) -> list[str]:
    """What `command` prints, stdout then stderr, without trailing blank lines."""
    argv = shlex.split(command)[1:]
    done = subprocess.run(
        [sys.executable, "-m", "recipes_site", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return (done.stdout + done.stderr).rstrip("\n").split("\n")


def agrees(example: Example, output: list[str]) -> bool:
    if example.truncated:
        shown = example.shown[:-1]
        return output[: len(shown)] == shown
    return output == example.shown


def updated_text(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    for example in reversed(examples(path)):
        output = run(example.command)
        if example.truncated:
            output = [*output[: len(example.shown) - 1], MORE]
        body = "\n".join([f"$ {example.command}", *output]) + "\n"
        text = text[: example.start] + body + text[example.end :]
    return text


def stale(paths: list[Path]) -> list[str]:
    """One line per example whose output is no longer what the document shows."""
    problems = []
    for path in paths:
        for example in examples(path):
            if not agrees(example, run(example.command)):
                shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                problems.append(f"{shown}: $ {example.command}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true")
    parser.add_argument("files", nargs="*", type=Path)
    opts = parser.parse_args(argv)
    paths = [p.resolve() for p in opts.files] or documents()
    if opts.update:
        for path in paths:
            path.write_text(updated_text(path), encoding="utf-8")
        return 0
    problems = stale(paths)
    for line in problems:
        print(f"stale example: {line}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
