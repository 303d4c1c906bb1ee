"""`recipes-site diff`'s git side reads what a build of a checkout would read, and nothing else:
not through `git archive` (whose `.gitattributes` can hide a recipe), links made and followed as
the loader follows them, only the recipes root's inputs read, each file capped like the loader."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import tarfile
from pathlib import Path

import pytest

from recipes_site.catalog import PROJECT_ROOT
from recipes_site.catalog.yaml import MAX_FILE_BYTES
from recipes_site.cli import main
from recipes_site.diff_sources import ROOT_INPUTS, _Blobs, _checked_name, export_ref
from recipes_site.errors import DiffSourceError
from recipes_site.serve import WATCHED

RECIPE = PROJECT_ROOT / "models" / "Qwen" / "Qwen3-8B.yaml"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


def _recipe(hf_id: str) -> str:
    """Qwen3-8B as bundled, renamed to `hf_id` (its related recipes dropped: not in this root)."""
    text = re.sub(r"  related_recipes:\n(    - .*\n)+", "", RECIPE.read_text())
    return text.replace("Qwen/Qwen3-8B", hf_id)


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """`main` holds Qwen3-8B; each other branch adds one thing the build publishes."""
    repo = tmp_path_factory.mktemp("hostile-repo")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "t@example.org")
    _git(repo, "config", "user.name", "test")
    (repo / "models" / "Qwen").mkdir(parents=True)
    (repo / "models" / "Qwen" / "Qwen3-8B.yaml").write_text(_recipe("Qwen/Qwen3-8B"))
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "Qwen3-8B")

    def branch(name: str, files: dict[str, str | tuple[str]]) -> None:
        _git(repo, "checkout", "-q", "-b", name, "main")
        for rel, content in files.items():
            path = repo / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, tuple):
                os.symlink(content[0], path)
            else:
                path.write_text(content)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", name)
        _git(repo, "checkout", "-q", "main")
        for rel in files:  # (the working tree stays main's)
            assert not (repo / rel).exists() or rel.startswith("models/Qwen")

    branch(
        "hidden",
        {
            ".gitattributes": "models/acme/** export-ignore\n",
            "models/acme/Hidden-8B.yaml": _recipe("acme/Hidden-8B"),
        },
    )
    branch(
        "linked",  # a link inside the root, to a file outside models/ that the build reads
        {
            "docs/linked.yaml": _recipe("acme/Linked-8B"),
            "models/acme/Linked-8B.yaml": ("../../docs/linked.yaml",),
        },
    )
    install = (
        _recipe("Qwen/Qwen3-8B")
        .replace('title: "Qwen3 8B"', 'title: "Qwen3 8B, renamed"')
        .replace("  ## Overview\n", "  ## Overview\n\n  A new paragraph.\n", 1)
        .replace("\nmodel:\n", f"\nmodel:\n  install:\n    pip:\n      command: {PINNED!r}\n", 1)
    )
    branch("install", {"models/Qwen/Qwen3-8B.yaml": install})
    branch(
        "dirlink",  # a folder linked into models/, and a chain of links to a file
        {
            "vendor/acme/Dir-8B.yaml": _recipe("acme/Dir-8B"),
            "models/acme": ("../vendor/acme",),
            "vendor/chain.yaml": _recipe("chain/Chain-8B"),
            "links/c2.yaml": ("../vendor/chain.yaml",),
            "links/c1.yaml": ("c2.yaml",),
            "models/chain/Chain-8B.yaml": ("../../links/c1.yaml",),
        },
    )
    branch(
        "broken",
        {
            "models/gone/Gone-8B.yaml": ("../../vendor/nothing.yaml",),
            "models/loop/Loop-8B.yaml": ("Loop-8B.yaml",),
        },
    )
    branch("outside", {"models/acme/Passwd-8B.yaml": ("/etc/passwd",)})
    branch(
        "eol",  # attributes that a checkout would apply to the bytes
        {".gitattributes": "* text eol=crlf\n*.yaml filter=evil\n"},
    )
    return repo


PINNED = "uv pip install vllm==0.10.1"


def _diff(repo: Path, capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["diff", *argv, "--root", str(repo)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_recipe_hidden_from_git_archive_is_in_the_diff(repo, capsys):
    # the build of a checkout publishes it; `git archive` leaves it out (export-ignore)
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", "hidden"], capture_output=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        assert "models/Qwen/Qwen3-8B.yaml" in tar.getnames()
        assert not any("Hidden" in name for name in tar.getnames())
    code, out, _ = _diff(repo, capsys, "main", "hidden", "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert report["models_added"] == ["acme/Hidden-8B"] and report["counts"]["added"] > 0


def test_install_command_meta_and_guide_changes_are_reported(repo, capsys):
    """These changed nothing the old diff compared: it printed "no rendering, sizing verdict or
    recommendation changed" while the build published the new command."""
    code, out, _ = _diff(repo, capsys, "main", "install", "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert report["counts"]["changed"] == 0 and report["counts"]["commands"] >= 1
    by = {(f["document"], f["path"]): f for f in report["fields"]}
    doc = "api/v1/models/Qwen/Qwen3-8B.json"
    assert by[(doc, "install.pip.command")]["after"] == PINNED
    assert by[(doc, "recipe.meta.title")]["after"] == "Qwen3 8B, renamed"
    assert "A new paragraph." in by[(doc, "recipe.guide")]["after"]
    assert "Qwen/Qwen3-8B.md" in report["files"]["changed"]
    code, out, _ = _diff(repo, capsys, "main", "install")
    assert f"  ~ command install.pip.command changed\n      now:\n        {PINNED}\n" in out


def test_a_linked_recipe_is_read_through_its_link_like_the_build_reads_it(repo, capsys):
    code, out, _ = _diff(repo, capsys, "main", "linked", "--format", "json")
    assert code == 0, out
    assert json.loads(out)["models_added"] == ["acme/Linked-8B"]


@pytest.mark.parametrize("ref", ["hidden", "linked", "dirlink", "install"])
def test_a_ref_reads_as_the_build_of_its_checkout(repo, ref, tmp_path, capsys):
    """The same published site, to the byte, as a build of a real checkout of the ref."""
    checkout = tmp_path / "checkout"
    subprocess.run(["git", "clone", "-q", "--branch", ref, str(repo), str(checkout)], check=True)
    code, out, err = _diff(repo, capsys, ref, str(checkout), "--exit-code")
    assert "nothing published changed" in out and code == 0, out + err


def test_linked_folders_and_chains_of_links_are_followed(repo, capsys):
    code, out, err = _diff(repo, capsys, "main", "dirlink", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["models_added"] == ["acme/Dir-8B", "chain/Chain-8B"]


def test_broken_links_and_loops_are_the_loaders_errors_as_in_a_checkout(repo, capsys):
    code, out, err = _diff(repo, capsys, "main", "broken")
    assert code == 2 and out == ""
    assert "models/gone/Gone-8B.yaml:0:0: error: <document>: broken symbolic link" in err
    assert "models/loop/Loop-8B.yaml:0:0: error: <document>: symbolic link loop" in err


def test_a_link_leaving_the_root_is_refused_like_the_loader_refuses_it(repo, capsys):
    code, out, err = _diff(repo, capsys, "main", "outside")
    assert code == 2 and out == ""
    # named as in a checkout, not by the diff's temporary folder
    assert "\nmodels/acme/Passwd-8B.yaml:0:0: error:" in err
    assert "symbolic link leads outside the recipes root" in err
    assert "recipes-site-diff-" not in err


def test_files_are_read_as_committed_without_attributes(repo, tmp_path):
    side = export_ref(repo, "eol", tmp_path / "side")
    committed = _git(repo, "show", "eol:models/Qwen/Qwen3-8B.yaml").encode()
    assert (side / "models" / "Qwen" / "Qwen3-8B.yaml").read_bytes() == committed
    assert b"\r\n" not in committed


def test_only_the_loaders_inputs_are_read_and_each_is_capped(tmp_path, monkeypatch):
    """A big file outside the recipes' inputs is never read; one inside is not held in memory:
    it is a sparse file of the same size, which the loader refuses by its size, as in a checkout."""
    repo = tmp_path / "repo"
    (repo / "models" / "acme").mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    (repo / "data").mkdir()
    (repo / "data" / "blob.bin").write_bytes(os.urandom(MAX_FILE_BYTES + 10))
    (repo / "models" / "acme" / "Big.yaml").write_bytes(b"#" * (MAX_FILE_BYTES + 1))
    (repo / "models" / "acme" / "Small.yaml").write_text("meta: {}\n")
    (repo / "taxonomy.yaml").write_text("{}\n")
    (repo / "README.md").write_text("hello\n")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.email=t@e", "-c", "user.name=t", "commit", "-q", "-m", "x")
    read: list[str] = []
    real_copy = _Blobs.copy
    monkeypatch.setattr(
        _Blobs, "copy", lambda self, sha, out: read.append(sha) or real_copy(self, sha, out)
    )
    side = export_ref(repo, "HEAD", tmp_path / "side")
    made = sorted(p.relative_to(side).as_posix() for p in side.rglob("*") if p.is_file())
    assert made == ["models/acme/Big.yaml", "models/acme/Small.yaml", "taxonomy.yaml"]
    big = side / "models" / "acme" / "Big.yaml"
    assert big.stat().st_size == MAX_FILE_BYTES + 1 and big.stat().st_blocks * 512 < 65536
    small, taxonomy = (
        _git(repo, "rev-parse", f"HEAD:{p}").strip()
        for p in ("models/acme/Small.yaml", "taxonomy.yaml")
    )
    assert sorted(read) == sorted([small, taxonomy])  # neither big file was read


def test_the_inputs_are_what_serve_watches_and_the_project_marker():
    assert set(WATCHED) <= set(ROOT_INPUTS)
    assert set(ROOT_INPUTS) - set(WATCHED) == {".recipes-site-project"}


@pytest.mark.parametrize("name", ["../x", "/etc/x", "a/../b", "models/.git/config", "a//b", "."])
def test_a_tree_name_that_would_leave_the_side_is_refused(tmp_path, name):
    with pytest.raises(DiffSourceError, match="unsafe file name"):
        _checked_name(tmp_path, name)


def test_nothing_is_written_through_a_committed_link(tmp_path):
    (tmp_path / "models").mkdir()
    os.symlink("/tmp", tmp_path / "models" / "acme")
    with pytest.raises(DiffSourceError, match="under a link"):
        _checked_name(tmp_path, "models/acme/x.yaml")


def test_an_error_in_the_middle_of_a_blob_does_not_hang(tmp_path):
    """git is left with most of a large blob unread: closing must not wait on it forever."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "big").write_bytes(os.urandom(4 << 20))
    _git(repo, "add", ".")
    sha = _git(repo, "rev-parse", ":big").strip()
    blobs = _Blobs(repo)
    assert blobs.proc.stdin and blobs.proc.stdout
    blobs.proc.stdin.write(sha.encode() + b"\n")
    blobs.proc.stdin.flush()
    blobs.proc.stdout.readline()
    blobs.proc.stdout.read(10)
    blobs.close()  # returns (a hang fails the run)
    assert blobs.proc.returncode is not None
