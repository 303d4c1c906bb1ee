"""A flag value vLLM refuses at start-up is a validation error: the command could not run.

`--gpu-memory-utilization` takes a fraction in (0, 1] (vLLM 0.33.0 vllm/config/cache.py:215,
`Field(default=0.92, gt=0, le=1)`); catalog/shell_rules.flag_value_problems judges its value in
every argument list (model.base_args, features' args, variants' extra_args ...), in both the
`--flag value` and `--flag=value` spellings. A value that is no number is refused too: commands
quote every value, so a `$VAR` would reach vLLM's float() as those characters."""

from __future__ import annotations

import catalog_kit as kit
import pytest

from recipes_site.catalog import load_catalog
from recipes_site.catalog.diagnostics import Level
from recipes_site.catalog.shell_rules import flag_value_problems

RECIPE = "acme/Widget-7B.yaml"


def _errors(tmp_path, text: str) -> list:
    root = kit.make_root(tmp_path)
    kit.write_recipe(root, RECIPE, text)
    _, diags = load_catalog(root)
    return [d for d in diags if d.level is Level.ERROR]


@pytest.mark.parametrize(
    "tokens, at",
    [
        (["--gpu-memory-utilization", "1.5"], 1),
        (["--gpu-memory-utilization", "0"], 1),
        (["--gpu-memory-utilization=-0.1"], 0),
        (
            ["--gpu_memory_utilization", "nan"],
            1,
        ),  # vLLM reads underscores as dashes; NaN is no fraction
        (["--trust-remote-code", "--gpu-memory-utilization", "90"], 2),
        (
            ["--gpu-memory-utilization", "$GPU_UTIL"],
            1,
        ),  # quoted in the command: vLLM reads "$GPU_UTIL"
        (["--gpu-memory-utilization=high"], 0),
    ],
)
def test_values_vllm_refuses_are_errors_at_the_value(tokens, at):
    found = list(flag_value_problems(tokens))
    assert [(i, level) for i, level, _, _ in found] == [(at, "error")]
    assert "a number above 0 and at most 1" in found[0][2]


@pytest.mark.parametrize(
    "tokens",
    [
        ["--gpu-memory-utilization", "0.95"],
        ["--gpu-memory-utilization=1"],
        ["--gpu-memory-utilization", "1e-3"],
        ["--gpu-memory-utilization"],  # no value: nothing to judge here
        ["--gpu-memory-utilization", "--enforce-eager"],  # nor here: the next item is a flag
        ["--max-model-len", "2"],  # another flag
    ],
)
def test_fractions_and_what_cannot_be_judged_pass(tokens):
    assert list(flag_value_problems(tokens)) == []


def test_a_recipe_with_a_refused_value_fails_validation_with_file_line_and_key(tmp_path):
    text = kit.replace(
        kit.VALID_RECIPE,
        '    - "--trust-remote-code"\n',
        '    - "--trust-remote-code"\n    - "--gpu-memory-utilization"\n    - "1.2"\n',
    )
    errors = _errors(tmp_path, text)
    assert len(errors) == 1, [d.format() for d in errors]
    diag = errors[0]
    assert diag.path.endswith(RECIPE) and diag.key_path == "model.base_args[2]"
    assert diag.line == kit.line_of(text, '"1.2"')
    assert "--gpu-memory-utilization 1.2" in diag.message and "0.9" in diag.hint


def test_the_same_value_in_a_features_args_is_found_too(tmp_path):
    text = kit.replace(
        kit.VALID_RECIPE,
        '      - "--enable-auto-tool-choice"\n',
        '      - "--enable-auto-tool-choice"\n      - "--gpu-memory-utilization=0"\n',
    )
    errors = _errors(tmp_path, text)
    assert [d.key_path for d in errors] == ["features.tool_calling.args[1]"]


def test_the_valid_fixture_has_no_such_error(tmp_path):
    assert _errors(tmp_path, kit.VALID_RECIPE) == []
