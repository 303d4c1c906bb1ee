"""Issue 10, symlinks and leaks: links in models/ that leave the recipes root are refused (not
followed, not published), link loops are a clean error, and no message quotes more than a short
excerpt of a file. Each case is a real build (or `recipes-site validate`) followed by a look at
the disk and at everything printed."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import security_kit as kit

SECRET = "sk-live-" + "7f3Kq9ZxW2" * 400  # 4,008 characters that must never be printed whole


@pytest.fixture()
def outside(tmp_path):
    """A folder next to the root (inside the sandbox) holding a valid recipe and a secret."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "Widget-7B.yaml").write_text(kit.recipe(), encoding="utf-8")
    (folder / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    return folder


def _cli(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "recipes_site", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    "target", ["/etc/passwd", "elsewhere/Widget-7B.yaml", "elsewhere/secret.txt"]
)
def test_a_file_link_leaving_the_root_is_refused_and_not_read(tmp_path, outside, target):
    root, out = kit.sandbox(tmp_path)
    kit.write(root, "acme/Widget-7B.yaml", kit.recipe())
    link = root / "models" / "acme" / "Leak.yaml"
    link.symlink_to(target if target.startswith("/") else tmp_path / target)
    att = kit.attempt(tmp_path, root, out)
    kit.assert_refused(att)
    [err] = att.errors
    assert err.path.endswith("models/acme/Leak.yaml") and "outside the recipes root" in err.message
    printed = _cli("validate", str(root), cwd=tmp_path)
    assert printed.returncode == 1
    assert (
        "root:" not in printed.stdout + printed.stderr
        and SECRET[:30] not in printed.stdout + printed.stderr
    )


def test_a_folder_link_leaving_the_root_is_not_walked(tmp_path, outside):
    root, out = kit.sandbox(tmp_path)
    kit.write(root, "acme/Widget-7B.yaml", kit.recipe())
    (root / "models" / "evil").symlink_to(outside, target_is_directory=True)
    att = kit.attempt(tmp_path, root, out)
    kit.assert_refused(att)
    assert [e.path.rsplit("/", 2)[-2:] for e in att.errors] == [["models", "evil"]]
    assert not any("elsewhere" in e.path for e in att.result.diagnostics)


def test_a_models_folder_that_is_a_link_out_of_the_root_is_refused(tmp_path, outside):
    root, out = kit.sandbox(tmp_path)
    (root / "models").rmdir()
    (root / "models").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    att = kit.attempt(tmp_path, root, out)
    kit.assert_refused(att)
    assert ["outside the recipes root" in e.message for e in att.errors] == [True]


@pytest.mark.parametrize("shape", ["self", "pair", "dangling"])
def test_link_loops_and_dangling_links_are_clean_errors(tmp_path, shape):
    root, out = kit.sandbox(tmp_path)
    kit.write(root, "acme/Widget-7B.yaml", kit.recipe())
    folder = root / "models" / "acme"
    if shape == "self":
        (folder / "Loop.yaml").symlink_to("Loop.yaml")
    elif shape == "pair":
        (folder / "A.yaml").symlink_to("B.yaml")
        (folder / "B.yaml").symlink_to("A.yaml")
    else:
        (folder / "Gone.yaml").symlink_to("Nowhere.yaml")
    att = kit.attempt(tmp_path, root, out)
    kit.assert_refused(att)
    word = "broken" if shape == "dangling" else "loop"
    assert att.errors and all(word in e.message and e.line == 0 for e in att.errors)


def test_links_inside_the_root_are_followed(tmp_path):
    """A folder loop inside the root is walked once; a file link to a recipe inside the root builds."""
    root, out = kit.sandbox(tmp_path)
    kit.write(root, "acme/Widget-7B.yaml", kit.recipe())
    (root / "models" / "acme" / "again").symlink_to("..", target_is_directory=True)
    shared = root / "shared"
    shared.mkdir()
    (shared / "Gadget-1B.yaml").write_text(kit.recipe("acme/Gadget-1B"), encoding="utf-8")
    (root / "models" / "acme" / "Gadget-1B.yaml").symlink_to(shared / "Gadget-1B.yaml")
    att = kit.attempt(tmp_path, root, out)
    assert att.result.ok, att.text()
    assert sorted(att.result.recipes) == ["acme/Gadget-1B", "acme/Widget-7B"]
    assert any(
        c.startswith("vllm serve acme/Gadget-1B ") for c in kit.commands(out, "acme/Gadget-1B")
    )


@pytest.mark.parametrize(
    "content",
    [
        SECRET + "\n",  # a single scalar: "the top level must be a mapping"
        "meta: [" + SECRET + "\n",  # YAML syntax error
        "meta:\n  title: x\n  difficulty: " + SECRET + "\n",  # schema error quoting the value
        "model: !!int " + SECRET + "\n",  # tag mismatch quoting the value
        SECRET + ": 1\n",  # unknown key
        "root:x:0:0:root:/root:/bin/bash\n" * 40
        + "daemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n",  # /etc/passwd-like
    ],
    ids=["scalar", "syntax", "schema", "tag", "key", "passwd"],
)
def test_messages_quote_only_a_short_excerpt_of_the_file(tmp_path, content):
    root, out = kit.sandbox(tmp_path)
    (root / "models" / "acme").mkdir()
    (root / "models" / "acme" / "Widget-7B.yaml").write_text(content, encoding="utf-8")
    att = kit.attempt(tmp_path, root, out)
    kit.assert_refused(att)
    printed = _cli("validate", str(root), cwd=tmp_path)
    text = printed.stdout + printed.stderr
    assert printed.returncode == 1 and "Widget-7B.yaml" in text
    assert SECRET[:200] not in text
    assert (
        text.count("root:x:0:0") <= 3 and "daemon:x" not in text
    )  # an 80-character excerpt at most
    assert all(len(line) < 800 for line in text.splitlines())
    assert len(text) < 4000


def test_a_huge_value_in_a_message_is_clipped_to_one_line(tmp_path):
    root, out = kit.sandbox(tmp_path)
    big = "A" * 300_000 + "\\nforged.yaml:1:1: error: x"  # YAML "\n": a newline in the value
    kit.write(
        root,
        "acme/Widget-7B.yaml",
        kit.replace(kit.recipe(), "  difficulty: beginner", f'  difficulty: "{big}"'),
    )
    att = kit.attempt(tmp_path, root, out)
    kit.assert_refused(att)
    # the newline is also hidden text (text_rules.py), reported at the same key
    [err, *also] = sorted(att.errors, key=lambda e: "invisible" in e.message)
    assert all("invisible" in e.message and e.key_path == err.key_path for e in also)
    assert err.key_path == "meta.difficulty"
    assert all(len(e.format()) < 400 and "forged" not in e.format() for e in also)
    line = err.format()
    assert "\n" not in line and len(line) < 400 and "forged" not in line


def test_no_link_is_ever_written_into_the_site(tmp_path):
    root, out = kit.sandbox(tmp_path)
    kit.write(root, "acme/Widget-7B.yaml", kit.recipe())
    att = kit.attempt(tmp_path, root, out)
    assert att.result.ok
    assert not [p for p in att.created if os.path.islink(tmp_path / p)]


@pytest.mark.parametrize("rel", ["taxonomy.yaml", "strategies/pd_cluster.yaml", "platforms.yaml"])
def test_a_shared_file_of_the_root_linking_out_is_refused_unread(tmp_path, outside, rel):
    root, out = kit.sandbox(tmp_path)
    kit.write(root, "acme/Widget-7B.yaml", kit.recipe())
    (root / rel).unlink()
    (root / rel).symlink_to(outside / "secret.txt")
    att = kit.attempt(tmp_path, root, out)
    kit.assert_refused(att)
    assert [
        (e.path.endswith(rel), "outside the recipes root" in e.message) for e in att.errors
    ] == [(True, True)]
    assert SECRET[:20] not in att.text()
