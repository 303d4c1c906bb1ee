"""Issue 10, "the output folder": `--out` pointing at something that exists used to be replaced
and deleted (the recipes root, its models/, a file, the home folder, `''`). Each case here is a
real `recipes-site build` (or `serve`) with that `--out`; afterwards the disk is inspected: a
refused build exits 1 with one `error:` line and leaves every byte where it was, and the writer
itself refuses document paths that would land outside the staging folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fault_kit import leftovers, small_root, snapshot

from recipes_site import build as build_module
from recipes_site.cli import main
from recipes_site.outdir import MANIFEST
from recipes_site.write import UnsafePath, encode_json, file_stamp, write_files


@pytest.fixture(autouse=True)
def _in_process(monkeypatch):
    monkeypatch.setenv("RECIPES_SITE_JOBS", "1")  # these builds are tiny: no worker processes


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """(recipes root, a site built from it) — copied by the tests that change a site."""
    base = tmp_path_factory.mktemp("output")
    root = small_root(base)
    assert main(["build", str(root), "--out", str(base / "site")]) == 0
    return root, base / "site"


def refused(capsys, *argv: str, watch: Path, contains: str) -> str:
    """Run the command; assert exit 1, one error line naming the reason, `watch` untouched."""
    before = snapshot(watch) if watch.is_dir() else watch.read_bytes()
    capsys.readouterr()
    assert main(list(argv)) == 1
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and contains in lines[0], err
    assert "Traceback" not in err
    assert (snapshot(watch) if watch.is_dir() else watch.read_bytes()) == before
    return lines[0]


def test_out_is_the_recipes_root(tmp_path, capsys):
    root = small_root(tmp_path)
    refused(
        capsys,
        "build",
        str(root),
        "--out",
        str(root),
        watch=tmp_path,
        contains="is the recipes root",
    )
    assert (root / "models" / "acme" / "Widget-7B.yaml").is_file()


def test_out_contains_the_recipes_root(tmp_path, capsys):
    root = small_root(tmp_path / "work")
    refused(
        capsys,
        "build",
        str(root),
        "--out",
        str(tmp_path / "work"),
        watch=tmp_path,
        contains="contains the recipes root",
    )


def test_out_inside_models(tmp_path, capsys):
    root = small_root(tmp_path)
    for out in (root / "models", root / "models" / "acme", root / "models" / "new" / "site"):
        refused(
            capsys, "build", str(root), "--out", str(out), watch=tmp_path, contains="input folder"
        )
    assert not (root / "models" / "new").exists()


def test_out_is_a_plain_file(tmp_path, capsys):
    root, target = small_root(tmp_path), tmp_path / "notes.txt"
    target.write_text("keep me")
    refused(capsys, "build", str(root), "--out", str(target), watch=target, contains="not a folder")
    assert leftovers(tmp_path, "notes.txt") == []


def test_out_is_the_home_folder(tmp_path, capsys, monkeypatch):
    root, home = small_root(tmp_path / "r"), tmp_path / "h" / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("secret")
    monkeypatch.setenv("HOME", str(home))
    refused(
        capsys, "build", str(root), "--out", str(home), watch=home, contains="is the home folder"
    )
    refused(
        capsys,
        "build",
        str(root),
        "--out",
        str(home.parent),
        watch=home,
        contains="contains the home folder",
    )


@pytest.mark.parametrize("out", ["", ".", "./"])
def test_out_is_the_current_folder(tmp_path, capsys, monkeypatch, out):
    root, cwd = small_root(tmp_path), tmp_path / "cwd"
    cwd.mkdir()
    (cwd / "thesis.tex").write_text("years of work")
    monkeypatch.chdir(cwd)
    refused(capsys, "build", str(root), "--out", out, watch=cwd, contains="is the current folder")


def test_out_contains_the_current_folder(tmp_path, capsys, monkeypatch):
    root, cwd = small_root(tmp_path / "elsewhere"), tmp_path / "a" / "b"
    cwd.mkdir(parents=True)
    monkeypatch.chdir(cwd)
    refused(
        capsys,
        "build",
        str(root),
        "--out",
        str(tmp_path / "a"),
        watch=tmp_path / "a",
        contains="contains the current folder",
    )


def test_out_is_the_file_system_root(tmp_path, capsys):
    root = small_root(tmp_path)
    capsys.readouterr()
    assert main(["build", str(root), "--out", "/"]) == 1
    assert "is the file system root" in capsys.readouterr().err


def test_out_holds_files_the_build_did_not_write(tmp_path, capsys):
    root, out = small_root(tmp_path), tmp_path / "docs"
    out.mkdir()
    (out / "report.pdf").write_text("not ours")
    line = refused(
        capsys, "build", str(root), "--out", str(out), watch=tmp_path, contains="did not write"
    )
    assert "report.pdf" in line and MANIFEST in line
    assert leftovers(tmp_path, "docs") == []  # no staging folder, no lock file


def test_a_file_added_to_a_built_site_blocks_the_next_build(built, tmp_path, capsys):
    root, site = built
    out = tmp_path / "site"
    shutil.copytree(site, out)
    (out / "api" / "notes.txt").write_text("added by hand")
    line = refused(
        capsys, "build", str(root), "--out", str(out), watch=tmp_path, contains="did not write"
    )
    assert "api/notes.txt" in line


def test_a_symlink_in_a_built_site_blocks_the_next_build(built, tmp_path, capsys):
    root, site = built
    out = tmp_path / "site"
    shutil.copytree(site, out)
    (tmp_path / "precious").mkdir()
    (tmp_path / "precious" / "data").write_text("keep")
    (out / "link").symlink_to(tmp_path / "precious")
    refused(capsys, "build", str(root), "--out", str(out), watch=tmp_path, contains="did not write")


def test_a_forged_manifest_still_protects_unlisted_files(built, tmp_path, capsys):
    root, site = built
    out = tmp_path / "site"
    out.mkdir()
    shutil.copy(site / MANIFEST, out / MANIFEST)
    (out / "mine.txt").write_text("unlisted")
    refused(capsys, "build", str(root), "--out", str(out), watch=tmp_path, contains="mine.txt")


def test_an_empty_folder_and_an_own_site_are_replaced(built, tmp_path, capsys):
    root, site = built
    empty, again = tmp_path / "empty", tmp_path / "again"
    empty.mkdir()
    shutil.copytree(site, again)
    (again / "index.html").write_text("an older build's page")
    for out in (empty, again):
        assert main(["build", str(root), "--out", str(out)]) == 0
        assert snapshot(out) == snapshot(site)
    assert leftovers(tmp_path, "empty") == leftovers(tmp_path, "again") == []


def test_the_manifest_lists_exactly_the_written_files(built):
    _, site = built
    listed = json.loads((site / MANIFEST).read_text())["files"]
    assert listed == sorted(p for p in snapshot(site) if p != MANIFEST)


def test_serve_refuses_the_same_folders(tmp_path, capsys, monkeypatch):
    root = small_root(tmp_path)
    refused(
        capsys,
        "serve",
        str(root),
        "--out",
        str(root),
        "--port",
        "0",
        watch=tmp_path,
        contains="is the recipes root",
    )
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("not ours")
    refused(
        capsys,
        "serve",
        str(root),
        "--out",
        str(tmp_path / "docs"),
        "--port",
        "0",
        watch=tmp_path,
        contains="did not write",
    )


# -- the writer refuses paths outside its folder (defence in depth behind `validate`) ----------


@pytest.mark.parametrize(
    "rel",
    ["/etc/cron.d/x", "../escape.txt", "a/../../escape.txt", "a/b/../../../escape.txt", "..", ""],
)
def test_writer_refuses_paths_that_leave_the_folder(tmp_path, rel):
    folder = tmp_path / "stage"
    folder.mkdir()
    with pytest.raises(UnsafePath):
        write_files(folder, {rel: b"x"})
    assert snapshot(tmp_path) == {}


def test_writer_refuses_a_symlinked_folder_that_points_outside(tmp_path):
    folder, outside = tmp_path / "stage", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    (folder / "api").symlink_to(outside)
    with pytest.raises(UnsafePath, match="outside the output folder"):
        write_files(folder, {"api/v1/models.json": b"{}"})
    assert list(outside.iterdir()) == []
    (folder / "index.html").symlink_to(outside / "planted")
    with pytest.raises(OSError):  # the file itself a symlink: O_NOFOLLOW
        write_files(folder, {"index.html": b"x"})
    assert list(outside.iterdir()) == []


def test_writer_stamps_are_the_files_stamps_and_its_folder_memo_carries_over(tmp_path):
    """The stamps write_files reports (taken from the open file, or from the hard link) are what
    write.file_stamp reads from the finished file; a folder memo handed from one call to the next
    (a build's worker) still gets every folder made, and the bytes are exactly those given."""
    folder, previous = tmp_path / "stage", tmp_path / "previous"
    folder.mkdir()
    previous.mkdir()
    write_files(previous, {"api/v1/same.json": b"same\n"})
    made, stamps = {}, {}
    write_files(
        folder,
        {"api/v1/a.json": b"a" * 70_000, "api/v1/same.json": b"same\n", "x/y/empty": b""},
        previous=previous,
        made=made,
        stamps=stamps,
    )
    write_files(
        folder, {"api/v1/b.json": "é\n".encode(), "api/v2/c.json": b"c"}, made=made, stamps=stamps
    )
    assert sorted(stamps) == [
        "api/v1/a.json",
        "api/v1/b.json",
        "api/v1/same.json",
        "api/v2/c.json",
        "x/y/empty",
    ]
    for rel, stamp in stamps.items():
        assert stamp == file_stamp(folder / rel), rel
    assert (folder / "api/v1/a.json").read_bytes() == b"a" * 70_000
    assert (folder / "x/y/empty").read_bytes() == b""
    assert (folder / "api/v1/same.json").stat().st_ino == (
        previous / "api/v1/same.json"
    ).stat().st_ino
    with pytest.raises(ValueError, match="folder memo"):  # a memo's folders belong to one folder
        write_files(previous, {"api/v1/d.json": b"d"}, made=made)
    assert not (previous / "api/v1/d.json").exists() and not (folder / "api/v1/d.json").exists()


@pytest.mark.parametrize(
    "doc", [{"a": "é — ×", "b": [1, 2.5, None, True]}, "plain", [], {"k": "\u2028😀"}]
)
def test_encode_json_is_compact_utf8_with_a_final_newline(doc):
    assert encode_json(doc) == (
        json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n"
    ).encode("utf-8")


def test_encode_json_still_refuses_a_cycle():
    doc: dict = {"a": [1]}
    doc["a"].append(doc)
    with pytest.raises((RecursionError, ValueError)):
        encode_json(doc)


def test_a_build_whose_documents_escape_fails_and_keeps_the_old_site(
    built, tmp_path, capsys, monkeypatch
):
    root, site = built
    out = tmp_path / "deep" / "site"
    out.parent.mkdir()
    shutil.copytree(site, out)
    before = snapshot(tmp_path)
    real = build_module.recipe_pages
    monkeypatch.setattr(
        build_module,
        "recipe_pages",
        lambda *a, **k: {**real(*a, **k), "../escaped.html": b"<script>"},
    )
    capsys.readouterr()
    assert main(["build", str(root), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "error: refusing to write '../escaped.html'" in err and "Traceback" not in err
    assert snapshot(tmp_path) == before
