"""catalog.loader._display: the path a diagnostic prints is relative to the cwd when the file
lies under it, else the path as given."""

from __future__ import annotations

from pathlib import Path

from recipes_site.catalog.loader import _display


def test_paths_under_the_cwd_are_relative(tmp_path):
    assert _display(tmp_path / "models" / "a.yaml", tmp_path) == "models/a.yaml"
    assert _display(tmp_path, tmp_path) == "."
    assert _display(tmp_path / "x" / ".." / "b.yaml", tmp_path) == "b.yaml"


def test_paths_elsewhere_are_printed_as_given(tmp_path):
    cwd = tmp_path / "work"
    outside = tmp_path / "other" / "a.yaml"
    assert _display(outside, cwd) == str(outside)
    assert _display(tmp_path / "workshop" / "a.yaml", cwd) == str(tmp_path / "workshop/a.yaml")
    assert _display(Path("/"), cwd) == "/"


def test_a_relative_path_is_read_from_the_process_cwd(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert _display(Path("models/a.yaml"), tmp_path) == "models/a.yaml"
    assert _display(Path("../a.yaml"), tmp_path) == "../a.yaml"
