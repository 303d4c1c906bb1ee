"""Hidden text (Trojan Source): a recipe's strings hold no bidirectional, zero-width or control
character, so what a page shows is what Copy puts on the clipboard and what llms.txt or a `.md`
file sends to a terminal. validate refuses them at their key and line; the build then fails
and writes nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from recipes_site import cli
from recipes_site.catalog import PROJECT_ROOT, load_catalog
from recipes_site.catalog.text_rules import hidden_character, hidden_text_problems

RECIPE = "Qwen/Qwen3-8B"
# YAML double-quoted escapes, so this file holds no hidden character itself
ATTACKS = {
    "install command, bidi isolate": (
        "model.install.pip.command",
        '  install:\n    pip:\n      command: "uv pip install -U vllm \\u2067; touch pwPIP #\\u2069"\n',
    ),
    "install command, NUL": (
        "model.install.pip.command",
        '  install:\n    pip:\n      command: "uv pip install vllm\\0; touch x"\n',
    ),
    "install command, carriage return": (
        "model.install.pip.command",
        '  install:\n    pip:\n      command: "uv pip install vllm\\r touch x"\n',
    ),
    "dependency command, right-to-left override": (
        "dependencies[0].command",
        'dependencies:\n  - command: "pip install safe-package \\u202e#gnp.x | sh"\n',
    ),
    "title, terminal escapes": ("meta.title", None),
    "description, zero-width space": ("meta.description", None),
    "a newline in a one-line field": ("meta.title", None),
}


def _recipe_text(attack: str) -> str:
    text = (PROJECT_ROOT / "models" / f"{RECIPE}.yaml").read_text(encoding="utf-8")
    text = re.sub(r"  related_recipes:\n(    - .*\n)+", "", text)
    key, block = ATTACKS[attack]
    if attack == "title, terminal escapes":
        return text.replace('title: "Qwen3 8B"', 'title: "T\\e]0;PWNED\\a\\e[2J"')
    if attack == "description, zero-width space":
        return text.replace('description: "Compact', 'description: "Com\\u200bpact', 1)
    if attack == "a newline in a one-line field":
        return text.replace('title: "Qwen3 8B"', 'title: "Qwen3\\n8B"')
    assert block is not None
    if block.startswith("dependencies"):
        return text + block
    return text.replace("\nmodel:\n", "\nmodel:\n" + block, 1)


def _root(tmp: Path, attack: str) -> Path:
    target = tmp / "root" / "models" / f"{RECIPE}.yaml"
    target.parent.mkdir(parents=True)
    target.write_text(_recipe_text(attack), encoding="utf-8")
    return tmp / "root"


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_validate_refuses_hidden_text_at_its_key(tmp_path, attack):
    _, diags = load_catalog(_root(tmp_path, attack))
    found = [d for d in diags if d.level.value == "error" and "invisible" in d.message]
    assert [d.key_path for d in found] == [ATTACKS[attack][0]], [d.format() for d in diags]
    assert found[0].line > 0 and "U+" in found[0].message


@pytest.mark.parametrize("attack", ["install command, bidi isolate", "title, terminal escapes"])
def test_the_build_fails_and_writes_nothing(tmp_path, capsys, attack):
    root = _root(tmp_path, attack)
    assert cli.main(["build", str(root), "--out", str(tmp_path / "site")]) == 1
    out = capsys.readouterr()
    assert "\x1b" not in out.out + out.err and "\u2067" not in out.out + out.err
    assert not (tmp_path / "site").exists()


def test_multi_line_fields_keep_their_newlines_and_one_line_fields_a_trailing_one():
    data = {
        "guide": "## Launch\n\n\tvllm serve x\n",
        "model": {"install": {"pip": {"command": "uv venv\nuv pip install vllm\n"}}},
        "meta": {"description": "Folded by YAML's >\n"},
    }
    assert list(hidden_text_problems(data)) == []
    assert hidden_character("a\tb", multi_line=False) == (1, "\t")
    assert hidden_character("guide \u202e", multi_line=True) == (6, "\u202e")


def test_keys_and_list_items_are_checked_too():
    data = {"model": {"base_args": ["--ok", "--x\u200b"]}, "features": {"a\u2066b": {}}}
    paths = [path for path, _, _ in hidden_text_problems(data)]
    assert paths == [("model", "base_args", 1), ("features", "a\u2066b")]


def test_the_bundled_recipes_hold_no_hidden_text():
    catalog, diags = load_catalog(PROJECT_ROOT)
    assert not [d for d in diags if "invisible" in d.message]
    assert catalog.recipes
