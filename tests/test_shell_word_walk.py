"""catalog.shell_rules.shell_word_problems: every string of a recipe that becomes a command word
is checked, at its key path, in document order."""

from __future__ import annotations

from pathlib import Path

import pytest

from recipes_site.catalog import shell_rules as SR
from recipes_site.catalog.yaml import load_yaml_file

ROOTS = [
    Path(__file__).resolve().parents[1] / "models",
    Path(__file__).resolve().parents[2] / "shared/compat/corpus/models",
]


def test_problems_in_document_order_with_their_paths():
    data = {
        "model": {"base_args": ["--ok", "--bad;flag", "--max-model-len 8"]},
        "variants": {
            "default": {
                "docker_image": {"nvidia": "Bad Image", "amd": "vllm/vllm-openai:v1"},
                "extra_env": {"A": "a\x01b", "B": "fine"},
                "extra_args": ["--gpu-memory-utilization", "1.5"],
            }
        },
    }
    found = SR.shell_word_problems(data)
    assert [(path, level) for path, level, *_ in found] == [
        (("model", "base_args", 1), "error"),
        (("model", "base_args", 2), "warning"),  # a flag and its value in one item
        (("variants", "default", "docker_image", "nvidia"), "error"),
        (("variants", "default", "extra_env", "A"), "error"),
        (("variants", "default", "extra_args", 1), "error"),
    ]
    assert all(at_key is False for *_, at_key in found)


def test_skipped_keys_only_at_the_top_and_argument_maps_walked_into():
    data = {
        "meta": {"args": ["--bad;x"]},
        "guide": [{"args": ["--bad;g"]}],
        "x": {"meta": {"args": ["--bad;y"]}, "args": {"env": {"A": "\x02"}}},
        "list": [{"args": ["--bad;z"]}, "--bad;not-an-argument-list"],
    }
    assert [p for p, *_ in SR.shell_word_problems(data)] == [
        ("x", "meta", "args", 0),
        ("x", "args", "env", "A"),
        ("list", 0, "args", 0),
    ]


def test_scalars_and_empty_documents_have_no_problems():
    for data in (None, 3, "--bad;flag", [], {}, {"args": "--bad;flag"}):
        assert SR.shell_word_problems(data) == []


@pytest.mark.parametrize("root", ROOTS, ids=["models", "compat"])
def test_recipes_report_well_formed_problems(root: Path):
    if not root.is_dir():
        pytest.skip("compat corpus not available")
    for path in sorted(root.rglob("*.yaml")):
        data = load_yaml_file(path, str(path)).data
        for where, level, message, _hint, _ in SR.shell_word_problems(data):
            assert level in ("error", "warning") and message, (path, where)
