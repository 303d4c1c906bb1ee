"""Issue 12: `recipes-site validate` is the one check a contributor runs.

Each contributor rule (recipes_site/catalog/lint.py) reports with file:line:col, key path, what
was expected and a hint; under `--strict` on a project root the findings are errors, elsewhere
warnings (the compat corpus keeps 0 errors and still builds). `--format github` prints workflow
annotations, `--format json` one machine-readable document. One test (or a few) per point."""

from __future__ import annotations

import json
import re

import catalog_kit as kit
import pytest

from recipes_site import cli
from recipes_site.build import build
from recipes_site.catalog import PROJECT_ROOT, lint, load_catalog
from recipes_site.catalog.diagnostics import Diagnostic, Level, errors, warnings
from recipes_site.catalog.report import escape_data, escape_property, github_annotation, render
from recipes_site.scaffold import write_scaffold

V = kit.VALID_RECIPE
RECIPE = "acme/Widget-7B.yaml"


def make(tmp_path, text: str = V, *, project: bool = True):
    """A recipes root holding one recipe ``text``; a project root (marker file) unless told."""
    root = kit.make_root(tmp_path / ("project" if project else "foreign"))
    if project:
        (root / lint.PROJECT_MARKER).write_text("")
    kit.write_recipe(root, RECIPE, text)
    return root


def findings(tmp_path, text: str, *, strict: bool = True, project: bool = True) -> list[Diagnostic]:
    """The diagnostics of the one recipe (schema errors would show here too)."""
    _, diags = load_catalog(make(tmp_path, text, project=project), strict=strict)
    return [d for d in diags if d.path.endswith(RECIPE)]


def only(diags: list[Diagnostic], needle: str) -> Diagnostic:
    hits = [d for d in diags if needle in d.message]
    assert len(hits) == 1, [d.format() for d in diags]
    return hits[0]


def test_the_valid_fixture_passes_every_contributor_rule(tmp_path):
    assert findings(tmp_path, V) == []


# ---- unknown vLLM flags and variables ------------------------------------------------------------------


def test_a_misspelt_flag_is_an_error_with_a_did_you_mean(tmp_path):
    text = kit.replace(
        V,
        '    - "--trust-remote-code"\n',
        '    - "--trust-remote-code"\n    - "--reasoning-parsr"\n    - "qwen3"\n'
        '    - "--max_model_len=4096"\n    - "-O3"\n',
    )
    diag = only(findings(tmp_path, text), "--reasoning-parsr")
    assert diag.level is Level.ERROR and diag.key_path == "model.base_args[1]"
    assert (diag.line, diag.col) == (kit.line_of(text, "--reasoning-parsr"), 7)
    assert "not a `vllm serve` option" in diag.message and "vllm_flags.json" in diag.message
    assert diag.hint == "did you mean '--reasoning-parser'?"
    assert (
        len(findings(tmp_path / "again", text)) == 1
    )  # the value, `--max_model_len=` and -O3 are fine


def test_flags_in_features_modes_and_overrides_are_checked_too(tmp_path):
    text = kit.replace(
        V, '      - "--enable-auto-tool-choice"\n', '      - "--enable-auto-tool-chioce"\n'
    )
    text = kit.replace(
        text,
        "strategy_overrides: {}\n",
        'strategy_overrides:\n  single_node_tp:\n    extra_args: ["--enforce-eagr"]\n',
    )
    diags = findings(tmp_path, text)
    assert [(d.key_path, d.hint) for d in diags] == [
        ("features.tool_calling.args[0]", "did you mean '--enable-auto-tool-choice'?"),
        ("strategy_overrides.single_node_tp.extra_args[0]", "did you mean '--enforce-eager'?"),
    ]


def test_an_unknown_vllm_variable_is_an_error_with_a_did_you_mean(tmp_path):
    text = kit.replace(
        V, "  base_env: {}\n", '  base_env:\n    VLLM_ROCM_USE_AITR: "1"\n    HF_HUB_OFFLINE: "1"\n'
    )
    diag = only(findings(tmp_path, text), "VLLM_ROCM_USE_AITR")
    assert diag.level is Level.ERROR and diag.key_path == "model.base_env.VLLM_ROCM_USE_AITR"
    assert (diag.line, diag.col) == (kit.line_of(text, "VLLM_ROCM_USE_AITR"), 5)
    assert "is not an environment variable vLLM" in diag.message
    assert diag.hint == "did you mean 'VLLM_ROCM_USE_AITER'?"


def test_vllm_omni_recipes_are_not_held_to_the_vllm_list(tmp_path):
    text = kit.replace(V, "    - text\n", "    - omni\n")
    text = kit.replace(
        text, '    - "--trust-remote-code"\n', '    - "--omni"\n    - "--usp"\n    - "2"\n'
    )
    assert [d for d in findings(tmp_path, text) if "vllm serve" in d.message] == []


# ---- the guide ---------------------------------------------------------------------------------------------


def test_a_guide_without_references_is_an_error(tmp_path):
    text = V[: V.index("  ## References")]
    diag = only(findings(tmp_path, text), "References")
    assert diag.level is Level.ERROR and diag.key_path == "guide"
    assert diag.message == "the guide has no '## References' section"
    assert diag.line == kit.line_of(text, "guide: |") and "Overview, Prerequisites" in diag.hint


def test_references_without_a_link_are_an_error_at_the_heading(tmp_path):
    text = kit.replace(V, "  - https://huggingface.co/acme/Widget-7B", "  - the model card")
    diag = only(findings(tmp_path, text), "References")
    assert diag.message == "References has no https:// link"
    assert (diag.line, diag.col) == (kit.line_of(text, "## References"), 1)


def test_guide_sections_benchmark_memory_and_checkpoints(tmp_path):
    text = kit.replace(V, "  ## Client usage", "  ## Client Usage")
    text = kit.replace(text, "`vllm bench serve --model acme/Widget-7B`", "run a benchmark")
    text = kit.replace(text, "Out of memory: lower `--max-model-len`.", "Restart it.")
    text = kit.replace(
        text,
        '    description: "BF16 weights."\n',
        '    description: "BF16 weights."\n  fp8:\n    precision: fp8\n    vram_minimum_gb: 9\n'
        '    description: "FP8"\n    model_id: "acme/Widget-7B-Dynamic"\n',
    )
    diags = findings(tmp_path, text)
    assert sorted((d.key_path, d.line, d.message, d.hint) for d in diags) == sorted(
        [
            (
                "guide",
                kit.line_of(text, "## Client Usage"),
                "guide section '## Client Usage' is not one of the catalog's sections",
                "did you mean '## Client usage'?",
            ),
            (
                "guide",
                kit.line_of(text, "guide: |"),
                "the guide has no '## Client usage' section",
                "the sections are, in order: " + ", ".join(lint.GUIDE_SECTIONS),
            ),
            (
                "guide",
                kit.line_of(text, "## Benchmarking"),
                "Benchmarking has no `vllm bench serve` command",
                "show a `vllm bench serve` run with input and output lengths like real traffic",
            ),
            (
                "guide",
                kit.line_of(text, "## Troubleshooting"),
                "Troubleshooting says nothing about memory",
                "cover the memory fixes first: KV cache, --max-model-len, --gpu-memory-utilization",
            ),
            (
                "variants.fp8.model_id",
                kit.line_of(text, "acme/Widget-7B-Dynamic"),
                "variant 'fp8' downloads acme/Widget-7B-Dynamic, which the guide does not name",
                "link https://huggingface.co/acme/Widget-7B-Dynamic under ## References",
            ),
        ]
    )


# ---- verified hardware ------------------------------------------------------------------------------------


def test_verified_hardware_without_a_source_comment_is_an_error(tmp_path):
    text = "".join(l for l in V.splitlines(keepends=True) if not l.startswith("  # Runs reported"))
    diag = only(findings(tmp_path, text), "without a source")
    assert diag.level is Level.ERROR and diag.key_path == "meta.hardware"
    assert (diag.line, diag.col) == (kit.line_of(text, "  hardware:"), 3)
    assert diag.message.startswith(
        "verified on h200 without a source: expected a comment right above `hardware:`"
    )
    assert (
        findings(tmp_path / "supported", kit.replace(text, "h200: verified", "h200: supported"))
        == []
    )


# ---- TODO placeholders ------------------------------------------------------------------------------------


def test_todo_placeholders_in_values_comments_and_the_guide_are_errors(tmp_path):
    text = kit.replace(V, '"A small dense test model."', '"TODO: one or two sentences."')
    text = kit.replace(
        text, "    vram_minimum_gb: 16\n", "    vram_minimum_gb: 16  # TODO: check the formula\n"
    )
    text = kit.replace(text, "  A test recipe.\n", "  FIXME say what it is\n")
    diags = findings(tmp_path, text)
    assert [(d.level, d.key_path, d.line, d.col, d.message) for d in diags] == [
        (
            Level.ERROR,
            "meta.description",
            kit.line_of(text, "TODO: one"),
            17,
            "placeholder left: 'TODO: one or two sentences.'",
        ),
        (
            Level.ERROR,
            "variants.default.vram_minimum_gb",
            kit.line_of(text, "# TODO"),
            28,
            "placeholder left: 'TODO: check the formula'",
        ),
        (
            Level.ERROR,
            "guide",
            kit.line_of(text, "FIXME"),
            3,
            "placeholder left: 'FIXME say what it is'",
        ),
    ]


# ---- missing facts ----------------------------------------------------------------------------------------


def test_missing_facts_are_errors_that_say_what_to_fill(tmp_path):
    text = kit.replace(V, "    vram_minimum_gb: 16\n", "    vram_minimum_gb: 0\n")
    text = kit.replace(text, "  architecture: dense\n", "")
    text = kit.replace(text, "  context_length: 32768\n", "")
    every = findings(tmp_path, text)
    assert [d.message.split(" but ")[0] for d in warnings(every)] == [
        "declares 0 GB"
    ]  # the sizing cross-check
    diags = errors(every)
    assert [(d.key_path, d.message) for d in diags] == [
        ("model.architecture", "model.architecture is missing"),
        ("model.context_length", "model.context_length is missing"),
        (
            "variants.default.vram_minimum_gb",
            "vram_minimum_gb is 0: expected the GB the weights need; the hardware and TP size are chosen from it",
        ),
    ]
    assert (
        diags[0].hint.startswith("write dense or moe")
        and "max_position_embeddings" in diags[1].hint
    )
    assert diags[2].hint.startswith("set it to 17: ceil(")  # 7B x 2 bytes x 1.2 = 16.8
    assert diags[2].line == kit.line_of(text, "vram_minimum_gb: 0")


# ---- project vs foreign roots -----------------------------------------------------------------------------


def test_severity_depends_on_strict_and_the_kind_of_root(tmp_path):
    text = kit.replace(V, '"A small dense test model."', '"TODO"')
    levels = lambda **kw: [
        d.level for d in findings(tmp_path / str(sorted(kw.items())), text, **kw)
    ]  # noqa: E731
    assert levels(strict=True, project=True) == [Level.ERROR]
    assert levels(strict=False, project=True) == [Level.WARNING]
    assert levels(strict=True, project=False) == [Level.WARNING]
    assert levels(strict=False, project=False) == [Level.WARNING]


def test_what_a_project_root_is(tmp_path):
    assert lint.is_project_root(PROJECT_ROOT) and (PROJECT_ROOT / lint.PROJECT_MARKER).is_file()
    assert not lint.is_project_root(make(tmp_path, project=False))
    assert lint.is_project_root(make(tmp_path, project=True))
    assert not lint.is_project_root(tmp_path / "does-not-exist")
    if kit.COMPAT_CORPUS.is_dir():
        assert not lint.is_project_root(kit.COMPAT_CORPUS)


def test_our_repository_is_clean_under_strict(capsys):
    assert cli.main(["validate", "--strict", str(PROJECT_ROOT)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith(": 0 errors, 0 warnings")


def test_the_compat_corpus_keeps_zero_errors_under_strict():
    if not kit.COMPAT_CORPUS.is_dir():
        pytest.skip("compat corpus not available on this machine")
    catalog, diags = load_catalog(kit.COMPAT_CORPUS, strict=True)
    assert errors(diags) == []
    contributor = [d for doc in catalog.recipes for d in lint.lint_recipe(doc, Level.WARNING)]
    assert contributor and set(contributor) <= set(warnings(diags))
    assert any(
        d.key_path.endswith("VLLM_USE_FLASHINFER_MOE_FP4") for d in contributor
    )  # removed in vLLM 0.33


def test_build_does_not_fail_on_contributor_warnings(tmp_path):
    root = make(tmp_path, kit.replace(V, '"A small dense test model."', '"TODO"'))
    result = build(root, tmp_path / "out")
    assert result.ok and (tmp_path / "out" / "api" / "v1" / "models.json").is_file()
    assert [d.message for d in result.diagnostics] == ["placeholder left: 'TODO'"]


# ---- the scaffold ---------------------------------------------------------------------------------------


def test_a_fresh_scaffold_fails_validate_strict_and_says_what_to_fill(tmp_path, capsys):
    root = make(tmp_path)
    write_scaffold(root, "acme/Thing-7B")
    assert cli.main(["validate", "--strict", str(root)]) == 1
    out = capsys.readouterr().out
    mine = [l for l in out.splitlines() if "Thing-7B.yaml" in l]
    assert mine and all(": error: " in l for l in mine)
    for expected in (
        "meta.description: placeholder left: 'TODO: one or two sentences about Thing-7B.'",
        "model.architecture: model.architecture is missing (write dense or moe",
        "model.context_length: model.context_length is missing",
        "variants.default.vram_minimum_gb: vram_minimum_gb is 0",
        "guide: References has no https:// link",
    ):
        assert any(expected in l for l in mine), expected
    assert re.search(r": [1-9]\d* errors, 0 warnings$", out.splitlines()[-1])


# ---- output formats -------------------------------------------------------------------------------------


def test_github_format_prints_workflow_annotations(tmp_path, capsys):
    text = kit.replace(V, "  base_env: {}\n", '  base_env:\n    VLLM_ROCM_USE_AITR: "1"\n')
    root = make(tmp_path, text)
    assert cli.main(["validate", "--strict", "--format", "github", str(root)]) == 1
    lines = capsys.readouterr().out.splitlines()
    path = str(root / "models" / RECIPE)
    line = kit.line_of(text, "VLLM_ROCM_USE_AITR")
    assert lines == [
        f"::error file={escape_property(path)},line={line},col=5,title=model.base_env.VLLM_ROCM_USE_AITR::"
        "'VLLM_ROCM_USE_AITR' is not an environment variable vLLM 0.33.0 reads; expected a name from "
        "recipes_site/data/vllm_flags.json (did you mean 'VLLM_ROCM_USE_AITER'?)",
        "7 files checked: 1 error, 0 warnings",
    ]


def test_github_annotations_escape_what_the_spec_says():
    # actions/toolkit packages/core/src/command.ts: data escapes % CR LF; properties also : and ,
    assert escape_data("50%\r\nx:y,z") == "50%25%0D%0Ax:y,z"
    assert escape_property("50%\r\nx:y,z") == "50%25%0D%0Ax%3Ay%2Cz"
    d = Diagnostic("models/a,b:c.yaml", 3, 9, Level.WARNING, "x:y", "100% wrong", "a, b: c")
    assert (
        github_annotation(d)
        == "::warning file=models/a%2Cb%3Ac.yaml,line=3,col=9,title=x%3Ay::100%25 wrong (a, b: c)"
    )
    whole_file = Diagnostic("m.yaml", 0, 0, Level.ERROR, "", "no position")
    assert github_annotation(whole_file) == "::error file=m.yaml,title=<document>::no position"


def test_json_format_is_machine_readable_and_stable(tmp_path, capsys):
    text = kit.replace(V, '"A small dense test model."', '"TODO: describe"')
    text = kit.replace(text, "  base_env: {}\n", '  base_env:\n    VLLM_ROCM_USE_AITR: "1"\n')
    root = make(tmp_path, text)
    assert cli.main(["validate", "--format", "json", str(root)]) == 0
    first = capsys.readouterr().out
    cli.main(["validate", "--format", "json", str(root)])
    assert capsys.readouterr().out == first  # byte-identical across runs
    doc = json.loads(first)
    assert doc["summary"] == {"files": 7, "errors": 0, "warnings": 2, "root_kind": "project"}
    items = doc["diagnostics"]
    assert all(
        list(item) == ["path", "line", "col", "level", "key_path", "message", "hint"]
        for item in items
    )
    assert [(i["key_path"], i["level"], i["line"]) for i in items] == [
        ("meta.description", "warning", kit.line_of(text, "TODO")),
        ("model.base_env.VLLM_ROCM_USE_AITR", "warning", kit.line_of(text, "VLLM_ROCM_USE_AITR")),
    ]
    assert items[1]["hint"] == "did you mean 'VLLM_ROCM_USE_AITER'?"


def test_every_format_uses_one_order():
    diags = [
        Diagnostic("b.yaml", 1, 1, Level.WARNING, "k", "m"),
        Diagnostic("a.yaml", 9, 1, Level.ERROR, "k", "m"),
        Diagnostic("a.yaml", 2, 5, Level.WARNING, "k", "m"),
        Diagnostic("a.yaml", 2, 5, Level.ERROR, "k", "m"),
    ]
    expected = [
        "a.yaml:2:5: error",
        "a.yaml:2:5: warning",
        "a.yaml:9:1: error",
        "b.yaml:1:1: warning",
    ]
    assert [l.rsplit(": k:", 1)[0] for l in render(diags, 2).splitlines()[:-1]] == expected
    assert [
        (i["path"], i["line"], i["level"])
        for i in json.loads(render(diags, 2, "json"))["diagnostics"]
    ] == [
        ("a.yaml", 2, "error"),
        ("a.yaml", 2, "warning"),
        ("a.yaml", 9, "error"),
        ("b.yaml", 1, "warning"),
    ]
    assert [
        l.split(" ")[0] for l in render(list(reversed(diags)), 2, "github").splitlines()[:-1]
    ] == ["::error", "::warning", "::error", "::warning"]


def test_a_crashing_rule_becomes_an_error_not_a_traceback(tmp_path, monkeypatch):
    def boom(subject):
        raise RuntimeError("kaput")

    monkeypatch.setattr(lint, "LINT_RULES", (boom,))
    diags = findings(tmp_path, V, strict=False)
    assert [(d.level, d.message) for d in diags] == [
        (Level.ERROR, "internal error in check boom: RuntimeError: kaput")
    ]


def test_did_you_mean_lookups_are_bounded_per_recipe(tmp_path):
    """Each suggestion is a difflib pass over the flag list: a recipe of made-up flags gets the
    first 50 suggested and the rest the plain hint, so its cost stays linear."""
    flags = "".join(f'    - "--reasoning-parsr{i}"\n' for i in range(60))
    text = kit.replace(V, '    - "--trust-remote-code"\n', '    - "--trust-remote-code"\n' + flags)
    hints = [d.hint for d in findings(tmp_path, text) if "vllm serve" in d.message]
    assert len(hints) == 60
    assert hints[:50] == ["did you mean '--reasoning-parser'?"] * 50
    assert all(h.startswith("see `vllm serve --help`") for h in hints[50:])
