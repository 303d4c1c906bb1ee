"""Issue 10, resource limits: a document's size is capped after alias expansion, per-recipe costs
stay linear (guides full of brackets or headings), numbers and dates are bounded so that a recipe
that passes `validate` also builds. Each case is a real build, then a look at the disk and the
commands. Nothing here is timed: the pathological inputs are big enough to hang for minutes
before the fix, and run in a subprocess whose generous timeout only trips on that."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
import security_kit as kit

from recipes_site.catalog import load_catalog
from recipes_site.catalog.types import JS_SAFE, MAX_DIM, MAX_GPUS, MAX_TOKENS, MAX_VRAM_GB
from recipes_site.catalog.yaml import MAX_EXPANDED_CHARS, load_yaml_text


def _with_guide(guide: str) -> str:
    head, _ = kit.recipe().split("guide: |\n")
    return head + "guide: |\n" + textwrap.indent(guide, "  ") + "\n"


def _build_in_subprocess(tmp_path, root, out, timeout=120):
    """`build` in a child process (a hang becomes a failed test, not a stuck suite)."""
    code = (
        "import sys, json; from pathlib import Path; from recipes_site.build import build; "
        "r = build(Path(sys.argv[1]), Path(sys.argv[2])); "
        "print(json.dumps([r.ok, [d.format() for d in r.diagnostics if d.level == 'error']]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(root), str(out)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={"RECIPES_SITE_JOBS": "1", "PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


# ---- expanded size ----------------------------------------------------------------------------------


def test_an_alias_bomb_of_a_10kb_string_is_refused_and_nothing_is_written(tmp_path):
    root, out = kit.sandbox(tmp_path)
    blob = "x" * 10_000
    args = "\n".join("    - *blob" for _ in range(1000))
    text = kit.replace(
        kit.recipe(),
        '  base_args:\n    - "--trust-remote-code"\n',
        f'  base_args:\n    - &blob "{blob}"\n{args}\n',
    )
    assert len(text.encode()) < 30_000
    kit.write(root, "acme/Widget-7B.yaml", text)
    att = kit.attempt(tmp_path, root, out)
    kit.assert_refused(att)
    [err] = att.errors
    assert "expands to more than" in err.message and err.key_path.startswith("model.base_args[")
    first = text.splitlines().index("  base_args:") + 2
    assert first < err.line < first + 1000  # the alias where the cap was crossed


def test_nested_alias_growth_is_counted_too():
    """Each level doubles: 20 levels of 2 aliases expand a 64-character string past a megabyte."""
    lines = ['a0: &a0 "' + "y" * 64 + '"'] + [
        f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}]" for i in range(1, 21)
    ]
    loaded = load_yaml_text("\n".join(lines) + "\n", "bomb.yaml")
    assert loaded.data is None
    assert any(
        "expands to more than" in d.message or "too many aliased nodes" in d.message
        for d in loaded.diagnostics
    )


def test_a_modest_alias_still_builds_and_its_value_reaches_the_commands(tmp_path):
    root, out = kit.sandbox(tmp_path)
    text = kit.replace(
        kit.recipe(),
        '  base_args:\n    - "--trust-remote-code"\n',
        '  base_args:\n    - "--max-model-len"\n    - &len "8192"\n'
        '    - "--max-num-batched-tokens"\n    - *len\n',
    )
    kit.write(root, "acme/Widget-7B.yaml", text)
    att = kit.attempt(tmp_path, root, out)
    assert att.result.ok, att.text()
    cmds = kit.commands(out, "acme/Widget-7B")
    assert cmds and all(
        "--max-model-len 8192" in c and "--max-num-batched-tokens 8192" in c for c in cmds
    )
    assert MAX_EXPANDED_CHARS >= 1 << 20


# ---- linear guides ----------------------------------------------------------------------------------


def test_a_guide_of_450k_brackets_builds(tmp_path):
    root, out = kit.sandbox(tmp_path)
    kit.write(
        root, "acme/Widget-7B.yaml", _with_guide("## Overview\n\n" + "[" * 450_000 + "]" * 450_000)
    )
    ok, errs = _build_in_subprocess(tmp_path, root, out)
    assert ok, errs
    md = (out / "acme" / "Widget-7B.md").read_text(encoding="utf-8")
    assert "[" * 450_000 + "]" * 450_000 in md  # no link there: the text is kept as written


def test_a_guide_of_60k_headings_builds_with_unique_ids(tmp_path):
    root, out = kit.sandbox(tmp_path)
    kit.write(root, "acme/Widget-7B.yaml", _with_guide("## Overview\n\n" + "### Step\n\n" * 60_000))
    ok, errs = _build_in_subprocess(tmp_path, root, out)
    assert ok, errs
    page = (out / "acme" / "Widget-7B" / "index.html").read_text(encoding="utf-8")
    assert 'id="step-60000"' in page and page.count('id="step') == 60_000


def test_rewrite_links_keeps_working_on_links_with_brackets_around():
    from recipes_site.render.markdown import rewrite_links

    out = rewrite_links("see [a [b](x.md) and [c](y) `[d](z)`\n", lambda href: href.upper())
    assert out == "see [a [b](X.MD) and [c](Y) `[d](Z)`\n"
    assert rewrite_links("[a [b](x)", lambda href: None) == "[a b"


# ---- numbers and dates ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "where, value, key",
    [
        ("vram", "9" * 400, "variants.default.vram_minimum_gb"),
        (
            "vram",
            "9" * 5000,
            "variants.default.vram_minimum_gb",
        ),  # past Python's 4,300-digit int/str limit
        ("vram", "0x" + "f" * 3000, "variants.default.vram_minimum_gb"),
        ("vram", str(MAX_VRAM_GB + 1), "variants.default.vram_minimum_gb"),
        ("context", str(MAX_TOKENS + 1), "model.context_length"),
        ("context", ".inf", "model.context_length"),
        ("tp", str(MAX_GPUS + 1), "variants.default.tp"),
        ("env", str(JS_SAFE + 1), "model.base_env.BIG"),
        ("env", ".nan", "model.base_env.BIG"),
        ("hf", str(MAX_DIM + 1), "model.hf_config.num_hidden_layers"),
        ("date", "2026-02-30", "meta.date_added"),
        ("date", "2025-13-01", "meta.date_added"),
        ("date", "2023-02-29", "meta.date_added"),
    ],
)
def test_out_of_range_numbers_and_unreal_dates_are_errors_at_their_line(
    tmp_path, where, value, key
):
    root, out = kit.sandbox(tmp_path)
    text = kit.recipe()
    if where == "vram":
        text = kit.replace(text, "vram_minimum_gb: 16", f"vram_minimum_gb: {value}")
    elif where == "context":
        text = kit.replace(text, "context_length: 32768", f"context_length: {value}")
    elif where == "tp":
        text = kit.replace(text, "vram_minimum_gb: 16\n", f"vram_minimum_gb: 16\n    tp: {value}\n")
    elif where == "env":
        text = kit.replace(text, "  base_env: {}", f"  base_env:\n    BIG: {value}")
    elif where == "hf":
        text = kit.replace(
            text,
            "  base_env: {}",
            f"  base_env: {{}}\n  hf_config:\n    num_hidden_layers: {value}",
        )
    else:
        text = kit.replace(text, "date_added: 2025-01-02", f"date_added: {value}")
    kit.write(root, "acme/Widget-7B.yaml", text)
    att = kit.attempt(tmp_path, root, out)
    kit.assert_refused(att)
    [err] = att.errors
    assert err.key_path == key
    assert err.line == next(i for i, line in enumerate(text.splitlines(), 1) if value in line)
    assert len(err.format()) < 500


def test_an_infinite_vram_in_the_taxonomy_is_an_error(tmp_path):
    att = kit.refused(
        tmp_path, {"acme/Widget-7B.yaml": kit.recipe()}, taxonomy=("vram_gb: 640", "vram_gb: .inf")
    )
    assert [e.key_path.endswith(".vram_gb") for e in att.errors] == [True]


def test_a_recipe_at_every_bound_passes_validate_and_builds(tmp_path):
    """The largest values validate accepts must also build, and reach the commands unchanged."""
    root, out = kit.sandbox(tmp_path)
    text = kit.recipe()
    text = kit.replace(text, "date_added: 2025-01-02", "date_added: 2024-02-29")
    text = kit.replace(text, "context_length: 32768", f"context_length: {MAX_TOKENS}")
    text = kit.replace(
        text,
        "  base_env: {}",
        f"  base_env:\n    BIG: {JS_SAFE}\n    SMALL: {-JS_SAFE}\n"
        + "  hf_config:\n"
        + f"    max_position_embeddings: {MAX_TOKENS}\n"
        + "".join(
            f"    {k}: {MAX_DIM}\n"
            for k in (
                "num_hidden_layers",
                "num_attention_heads",
                "num_key_value_heads",
                "head_dim",
                "hidden_size",
                "vocab_size",
                "intermediate_size",
            )
        ),
    )
    text = kit.replace(
        text, "vram_minimum_gb: 16\n", f"vram_minimum_gb: {MAX_VRAM_GB}\n    tp: {MAX_GPUS}\n"
    )
    text = kit.replace(
        text,
        "  - single_node_tp\n",
        f"  - single_node_tp\n  - multi_node_tp\n  - pd_cluster\nstrategy_min_gpus: {MAX_GPUS}\n",
    )
    text = kit.replace(text, '  parameter_count: "7B"', '  parameter_count: "' + "9" * 31 + 'B"')
    kit.write(root, "acme/Widget-7B.yaml", text)
    catalog, diags = load_catalog(root)
    assert [d.format() for d in diags if d.level == "error"] == []
    att = kit.attempt(tmp_path, root, out)
    assert att.result.ok, att.text()
    assert "2024-02-29" in (out / "api" / "v1" / "models" / "acme" / "Widget-7B.json").read_text()
    cmds = kit.commands(out, "acme/Widget-7B")
    assert cmds and all("acme/Widget-7B" in c for c in cmds)
    docs = kit.hw_docs(out, "acme/Widget-7B")
    envs = [r.get("env") for d in docs for r in d["renderings"] if r.get("env")]
    assert envs and all(e.get("BIG") == JS_SAFE and e.get("SMALL") == -JS_SAFE for e in envs)


def test_a_real_leap_day_is_published_as_written(tmp_path):
    root, out = kit.sandbox(tmp_path)
    kit.write(
        root,
        "acme/Widget-7B.yaml",
        kit.replace(kit.recipe(), "date_added: 2025-01-02", "date_added: 2024-02-29"),
    )
    att = kit.attempt(tmp_path, root, out)
    assert att.result.ok, att.text()
    index = json.loads((out / "api" / "v1" / "models.json").read_text())
    assert "2024-02-29" in json.dumps(index) and "2024-03-01" not in json.dumps(index)
