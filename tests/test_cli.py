"""The command line: output format, exit codes, the `command` query and the schema file."""

from __future__ import annotations

import json
import re

from cli_kit import fresh_interpreter, run, run_module

from recipes_site.catalog import PROJECT_ROOT
from recipes_site.catalog.types import recipe_json_schema

LINE = re.compile(
    r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<level>error|warning): (?P<key>\S+): .+$"
)


def _root_with(tmp_path, recipe_text: str):
    import shutil

    root = tmp_path / "root"
    (root / "models" / "acme").mkdir(parents=True)
    shutil.copy(
        PROJECT_ROOT / "models" / "Qwen" / "Qwen3-8B.yaml",
        root / "models" / "acme" / "Tiny-1B.yaml",
    )
    (root / "models" / "acme" / "Tiny-1B.yaml").write_text(recipe_text)
    return root


def test_validate_project_root_strict_passes():
    r = run("validate", "--strict")
    assert r.returncode == 0, r.stdout
    assert r.stdout.strip().splitlines()[-1].endswith("0 errors, 0 warnings")


def test_validate_reports_every_problem_with_position_and_exit_1(tmp_path):
    text = (PROJECT_ROOT / "models" / "Qwen" / "Qwen3-8B.yaml").read_text()
    text = text.replace('model_id: "Qwen/Qwen3-8B"', 'model_id: "acme/Tiny-1B"')
    text = text.replace("variants:", "varaints:", 1).replace(
        "difficulty: beginner", "difficulty: hard"
    )
    root = _root_with(tmp_path, text)
    r = run("validate", str(root))
    assert r.returncode == 1
    lines = r.stdout.strip().splitlines()
    problems = [LINE.match(l) for l in lines[:-1]]
    assert all(problems), lines
    assert {m["key"] for m in problems} >= {"varaints", "meta.difficulty"}
    assert any(m["level"] == "warning" for m in problems)
    assert re.match(r"^\d+ files? checked: [1-9]\d* errors?, [1-9]\d* warnings?$", lines[-1])


def test_strict_turns_warnings_into_failure(tmp_path):
    text = (PROJECT_ROOT / "models" / "Qwen" / "Qwen3-8B.yaml").read_text()
    text = text.replace('model_id: "Qwen/Qwen3-8B"', 'model_id: "acme/Tiny-1B"').replace(
        "difficulty: beginner", "difficulty: hard"
    )
    root = _root_with(tmp_path, text)
    assert run("validate", str(root)).returncode == 0
    assert run("validate", str(root), "--strict").returncode == 1


def test_bad_usage_exits_2():
    assert (
        run_module("validate", "--no-such-flag").returncode == 2
    )  # the `python -m recipes_site` entry too
    assert run("frobnicate").returncode == 2
    assert run_module(
        "command", "meta-llama/Llama-3.3-70B-Instruct", "--hardware", "h100"
    ).stdout.startswith("vllm serve meta-llama/Llama-3.3-70B-Instruct \\\n")


def test_command_prints_the_recommended_command():
    r = run("command", "meta-llama/Llama-3.3-70B-Instruct", "--hardware", "h100")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("vllm serve meta-llama/Llama-3.3-70B-Instruct \\\n")
    assert "--tensor-parallel-size" in r.stdout


def test_command_json_and_docker_and_checkpoint_lookup():
    r = run("command", "nvidia/Llama-3.3-70B-Instruct-FP8", "--json")
    doc = json.loads(r.stdout)
    assert doc["variant"] == "fp8" and doc["argv"][2] == "nvidia/Llama-3.3-70B-Instruct-FP8"
    d = run("command", "meta-llama/Llama-3.3-70B-Instruct", "--docker", "--hardware", "mi300x")
    assert d.stdout.startswith("docker run --device=/dev/kfd --device=/dev/dri \\\n")


def test_command_multi_node_prints_head_and_workers():
    r = run(
        "command",
        "deepseek-ai/DeepSeek-R1-0528",
        "--hardware",
        "h200",
        "--strategy",
        "multi_node_tp",
        "--nodes",
        "4",
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("--node-rank") == 4 and r.stdout.count("--headless") == 3
    assert "--tensor-parallel-size 32" in r.stdout
    # 3 nodes would be TP 24, which does not divide DeepSeek's 128 attention heads: refused, with the counts that work
    r = run(
        "command",
        "deepseek-ai/DeepSeek-R1-0528",
        "--hardware",
        "h200",
        "--strategy",
        "multi_node_tp",
        "--nodes",
        "3",
    )
    assert r.returncode == 1 and r.stdout == ""
    assert "TP 24 does not divide the 128 attention heads" in r.stderr
    assert "node counts that work: 2, 4, 8, 16" in r.stderr
    r = run("command", "meta-llama/Llama-3.3-70B-Instruct", "--strategy", "multi_node_tp")
    assert r.returncode == 1 and "offered: single_node_tp" in r.stderr


def test_command_rejects_unknown_choices_with_a_reason():
    r = run("command", "meta-llama/Llama-3.3-70B-Instruct", "--hardware", "h999")
    assert r.returncode == 1 and "unknown hardware 'h999'" in r.stderr
    r = run(
        "command", "meta-llama/Llama-3.3-70B-Instruct", "--hardware", "trillium"
    )  # a profile it does not run on
    assert r.returncode == 1 and "available:" in r.stderr
    r = run("command", "nobody/Nothing")
    assert r.returncode == 1 and "no recipe" in r.stderr


def test_recipe_schema_file_is_up_to_date():
    """Byte for byte (key order included): a build publishes this file as the recipe schema."""
    on_disk = (PROJECT_ROOT / "schema" / "recipe.schema.json").read_text(encoding="utf-8")
    assert on_disk == json.dumps(recipe_json_schema(), indent=2, ensure_ascii=False) + "\n", (
        "schema/recipe.schema.json is stale: run `recipes-site schema`"
    )


def test_version_and_help_do_not_load_the_recipe_models():
    """`--version` and `--help` answer without importing pydantic and the recipe models (the
    catalog package imports its loader on first use): they are most of a command's start-up."""
    probe = (
        "import sys; from recipes_site.cli import main\n"
        "for argv in (['--version'], ['--help'], ['build', '--help']):\n"
        "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'jinja2', 'yaml')"
        " or m in ('recipes_site.catalog.loader', 'recipes_site.catalog.types')))"
    )
    assert fresh_interpreter(probe)[-1] == "[]"
    from recipes_site.catalog import load_catalog  # still importable from the package

    assert callable(load_catalog)
