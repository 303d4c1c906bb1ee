"""catalog.loader._display: the path a diagnostic prints is pathlib's relative_to(cwd).as_posix()
of its absolute path, else the path as given, computed on strings instead."""

from __future__ import annotations

import os
import random
from pathlib import Path

from recipes_site.catalog.loader import _display


def pathlib_display(path: Path, cwd: Path) -> str:
    try:
        return Path(os.path.abspath(path)).relative_to(cwd).as_posix()
    except ValueError:
        return str(path)


def test_display_is_pathlibs_relative_path():
    rnd = random.Random(4)
    parts = ["", ".", "..", "a", "b", "models", "x y", "é", "/", "a.yaml", "\udcff", "...", "ab"]
    for cwd_text in ["/", "//", "/a", "//a", "/a/b", "/ab", os.getcwd()]:
        cwd = Path(os.path.abspath(cwd_text))
        for _ in range(4000):
            text = "/".join(rnd.choice(parts) for _ in range(rnd.randint(0, 6)))
            text = rnd.choice(["/", "//", "///", "", "", cwd_text + "/"]) + text
            path = Path(text or ".")
            assert _display(path, cwd) == pathlib_display(path, cwd), (cwd_text, text)
    here = Path(os.path.abspath(os.getcwd()))
    assert _display(here, here) == "."
    assert _display(here / "models" / "a.yaml", here) == "models/a.yaml"
