"""Benchmark result files: loading, validation errors at file:line, the command check, import."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from recipes_site.benchmark_check import differences, serve_arguments
from recipes_site.catalog import load_catalog
from recipes_site.catalog.documents import PROJECT_ROOT
from recipes_site.cli import main

RECIPE = "Qwen/Qwen3-8B"


def _result(**extra) -> dict:
    return {
        "date": "20261207-101500",
        "model_id": "Qwen/Qwen3-8B-FP8",
        "max_concurrency": 32,
        "num_prompts": 320,
        "output_throughput": 5354.2,
        "mean_ttft_ms": 210.1,
        "input_lens": [1024, 1024],
        "output_lens": [512, 512],
        **extra,
    }


def _provenance(**extra) -> dict:
    return {
        "label": "community",
        "run_by": "tester",
        "source_url": "https://example.org/result",
        "date": "2026-12-07",
        "vllm_version": "0.33.0",
        "variant": "fp8",
        "command": "vllm serve Qwen/Qwen3-8B-FP8 --tensor-parallel-size 1",
        "workload": {"dataset": "random", "input_len": 1024, "output_len": 512},
        **extra,
    }


@pytest.fixture()
def root(tmp_path: Path) -> Path:
    (tmp_path / "models/Qwen").mkdir(parents=True)
    shutil.copy(PROJECT_ROOT / f"models/{RECIPE}.yaml", tmp_path / f"models/{RECIPE}.yaml")
    return tmp_path


def _write(root: Path, document: dict, hardware: str = "h100", name: str = "run") -> Path:
    path = root / "benchmarks" / RECIPE / hardware / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2))
    return path


def _messages(root: Path) -> list[str]:
    """The diagnostics of the result files (the copied recipe warns of related recipes)."""
    _, diags = load_catalog(root)
    return [d.format() for d in diags if "/benchmarks/" in d.path.replace("\\", "/")]


def test_a_valid_result_loads_with_its_folder_ids(root):
    _write(root, {"provenance": _provenance(), "result": _result()})
    catalog, _ = load_catalog(root)
    assert _messages(root) == []
    (doc,) = catalog.benchmarks
    assert (doc.hf_id, doc.hardware, doc.name) == (RECIPE, "h100", "run")
    assert doc.spec is not None and doc.spec.result.output_throughput == 5354.2


def test_an_unknown_variant_is_an_error_at_its_line_with_the_choices(root):
    path = _write(root, {"provenance": _provenance(variant="fp9"), "result": _result()})
    (message,) = _messages(root)
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if '"fp9"' in t)
    assert f"run.json:{line}:" in message
    assert "no variant 'fp9'" in message and "fp8" in message


@pytest.mark.parametrize(
    ("provenance", "expected"),
    [
        ({"source_url": None}, "needs source_url"),
        ({"label": "published"}, "names its publisher"),
        ({"label": "verified"}, "image digest"),
        ({"date": "07/12/2026"}, "provenance.date"),
    ],
)
def test_provenance_rules(root, provenance, expected):
    _write(root, {"provenance": _provenance(**provenance), "result": _result()})
    assert any(expected in m for m in _messages(root)), _messages(root)


def test_a_result_without_any_number_is_refused(root):
    result = {"model_id": "Qwen/Qwen3-8B-FP8", "max_concurrency": 4}
    _write(root, {"provenance": _provenance(), "result": result})
    assert any("at least one measured number" in m for m in _messages(root))


def test_unknown_hardware_and_recipe_folders_are_errors(root):
    _write(root, {"provenance": _provenance(), "result": _result()}, hardware="h1000")
    other = root / "benchmarks/acme/none/h100/x.json"
    other.parent.mkdir(parents=True)
    other.write_text(json.dumps({"provenance": _provenance(), "result": _result()}))
    messages = "\n".join(_messages(root))
    assert "unknown hardware profile 'h1000'" in messages
    assert "no recipe models/acme/none.yaml" in messages


def test_stray_files_are_reported_but_speed_scripts_are_not(root):
    (root / "benchmarks").mkdir()
    (root / "benchmarks/build_bench.py").write_text("print()\n")
    (root / "benchmarks/__pycache__").mkdir()
    _write(root, {"provenance": _provenance(), "result": _result()})
    (root / "benchmarks" / RECIPE / "h100" / "notes.txt").write_text("x")
    (message,) = _messages(root)
    assert "notes.txt" in message and "not a benchmark result" in message


def test_serve_arguments_read_both_flag_spellings():
    argv = ["vllm", "serve", "m", "--a=1", "--b", "2", "3", "--flag"]
    assert serve_arguments(argv) == ("m", {"--a": ("1",), "--b": ("2", "3"), "--flag": ()})
    assert serve_arguments(["python", "x.py"]) is None


def test_differences_name_each_flag():
    ours = ["vllm", "serve", "m", "--tensor-parallel-size", "1", "--max-model-len", "8192"]
    theirs = ["vllm", "serve", "m2", "--tensor-parallel-size", "2", "--max-num-seqs", "64"]
    assert differences(ours, theirs) == (
        "serves m2, the rendering serves m",
        "sets --tensor-parallel-size 2, the rendering --tensor-parallel-size 1",
        "adds --max-num-seqs 64",
        "omits --max-model-len 8192",
    )
    assert differences(ours, ours) == ()


def test_validate_warns_where_the_command_differs(root, capsys):
    command = "vllm serve Qwen/Qwen3-8B-FP8 --tensor-parallel-size 1 --max-num-seqs 64"
    _write(root, {"provenance": _provenance(command=command), "result": _result()})
    assert main(["validate", str(root)]) == 0
    out = capsys.readouterr().out
    assert "warning: provenance.command" in out and "adds --max-num-seqs 64" in out


def test_import_writes_a_valid_file_under_the_recipe_and_hardware(root, tmp_path, capsys):
    source = tmp_path / "result.json"
    source.write_text(json.dumps(_result()))
    args = ["bench", "import", str(source), "--root", str(root), "--hardware", "h100"]
    args += ["--label", "community", "--run-by", "tester", "--vllm-version", "0.33.0"]
    args += ["--source-url", "https://example.org/r"]
    assert main(args) == 0
    written = root / "benchmarks" / RECIPE / "h100" / "c32-20261207-101500.json"
    assert capsys.readouterr().out.strip() == str(written)
    document = json.loads(written.read_text())
    assert document["provenance"]["variant"] == "fp8"  # the variant serving model_id
    assert document["provenance"]["workload"] == {
        "dataset": "random",
        "input_len": 1024,
        "output_len": 512,
    }
    assert "input_lens" not in document["result"]  # per-request lists stay out of the root
    assert main(["validate", str(root)]) == 0
    assert main(args) == 1  # never overwritten without --force
    assert "exists" in capsys.readouterr().err


def test_import_refuses_a_name_that_leaves_the_folder(root, tmp_path, capsys):
    source = tmp_path / "result.json"
    source.write_text(json.dumps(_result()))
    args = ["bench", "import", str(source), "--root", str(root), "--hardware", "h100"]
    args += ["--label", "community", "--run-by", "t", "--vllm-version", "0.33.0"]
    args += ["--source-url", "https://example.org/r", "--name", "../../escape"]
    assert main(args) == 1
    assert "result name" in capsys.readouterr().err
    assert not (root / "benchmarks" / RECIPE / "escape.json").exists()


def test_the_build_publishes_results_with_provenance_and_differences(root, tmp_path):
    from recipes_site.build import build

    command = "vllm serve Qwen/Qwen3-8B-FP8 --tensor-parallel-size 1 --max-num-seqs 64"
    _write(root, {"provenance": _provenance(command=command), "result": _result()})
    out = tmp_path / "site"
    build(root, out, incremental=False)
    doc = json.loads((out / "api/v1/models" / RECIPE / "benchmarks.json").read_text())
    (entry,) = doc["results"]
    assert entry["hardware"] == "h100" and entry["label"] == "community"
    assert entry["source_url"] == "https://example.org/result"
    assert entry["metrics"]["output_throughput"] == 5354.2
    assert entry["metrics"]["max_concurrency"] == 32
    assert "input_lens" not in entry["metrics"]
    assert entry["differences"] == ["adds --max-num-seqs 64"]


def test_the_published_document_satisfies_its_schema(root, tmp_path):
    import jsonschema

    from recipes_site.build import build
    from recipes_site.render.schemas import schema_for, schema_name_for_path

    _write(root, {"provenance": _provenance(), "result": _result()})
    out = tmp_path / "site"
    build(root, out, incremental=False)
    rel = f"api/v1/models/{RECIPE}/benchmarks.json"
    assert schema_name_for_path(rel) == "model-benchmarks"
    jsonschema.validate(json.loads((out / rel).read_text()), schema_for("model-benchmarks"))


def test_recorded_differences_are_not_reported_but_new_and_stale_ones_are(root, capsys):
    command = "vllm serve Qwen/Qwen3-8B-FP8 --tensor-parallel-size 1 --max-num-seqs 64"
    recorded = ["adds --max-num-seqs 64"]
    _write(
        root,
        {"provenance": _provenance(command=command, differences=recorded), "result": _result()},
    )
    assert main(["validate", str(root)]) == 0
    assert "provenance.command" not in capsys.readouterr().out
    stale = recorded + ["adds --seed 1"]
    _write(
        root, {"provenance": _provenance(command=command, differences=stale), "result": _result()}
    )
    main(["validate", str(root)])
    out = capsys.readouterr().out
    assert "provenance.differences" in out and "no longer has: adds --seed 1" in out


def test_the_bundled_results_are_real_and_cite_their_source():
    catalog, diags = load_catalog(PROJECT_ROOT)
    results = [b for b in catalog.benchmarks if b.spec is not None]
    assert len(results) >= 20
    for doc in results:
        prov = doc.spec.provenance
        assert prov.source_url and prov.source_url.startswith("https://"), doc.display_path
        assert prov.excerpt and prov.terms, doc.display_path
    assert not [d for d in diags if "/benchmarks/" in d.path.replace("\\", "/")]


def test_import_records_how_the_run_command_differs(root, tmp_path, capsys):
    source = tmp_path / "result.json"
    source.write_text(json.dumps(_result()))
    args = ["bench", "import", str(source), "--root", str(root), "--hardware", "h100"]
    args += ["--label", "community", "--run-by", "t", "--vllm-version", "0.33.0"]
    args += ["--source-url", "https://example.org/r", "--name", "run"]
    args += ["--command", "vllm serve Qwen/Qwen3-8B-FP8 --tensor-parallel-size 1 --seed 7"]
    assert main(args) == 0
    assert "differs from the rendering: adds --seed 7" in capsys.readouterr().err
    written = json.loads((root / "benchmarks" / RECIPE / "h100" / "run.json").read_text())
    assert written["provenance"]["differences"] == ["adds --seed 7"]
    assert main(["validate", str(root)]) == 0
    assert "provenance.command" not in capsys.readouterr().out


def test_bundled_numbers_are_the_sources_numbers():
    catalog, _ = load_catalog(PROJECT_ROOT)
    for doc in catalog.benchmarks:
        assert doc.spec is not None
        excerpt = doc.spec.provenance.excerpt or ""
        result = doc.spec.result
        for value in (result.output_throughput, result.total_token_throughput):
            if value is not None:
                assert repr(value) in excerpt or f"{value:g}" in excerpt, doc.display_path


def test_bench_plan_prints_the_server_the_sweep_and_the_import(capsys):
    assert main(["bench", "plan", RECIPE, "--root", str(PROJECT_ROOT), "--hardware", "h100"]) == 0
    out = capsys.readouterr().out
    assert "vllm serve Qwen/Qwen3-8B" in out and "--reasoning-parser" not in out
    assert "vllm bench serve" in out and '--result-filename "bench-c$c.json"' in out
    levels = out.split("for c in ", 1)[1].split(";", 1)[0].split()
    assert levels[0] == "1" and int(levels[-1]) > 1
    assert 'recipes-site bench import "bench-c$c.json" --hardware h100 --variant default' in out


def test_the_model_page_plots_results_with_the_estimate_and_escapes_their_text(root, tmp_path):
    import xml.etree.ElementTree as ET

    from recipes_site.build import build

    hostile = '<script>alert("x")</script>'
    for c in (1, 8, 32):
        prov = _provenance(
            run_by=hostile, workload={"dataset": hostile, "input_len": 1024, "output_len": 512}
        )
        result = _result(max_concurrency=c, output_throughput=100.0 * c, median_itl_ms=7.0 + c / 10)
        _write(root, {"provenance": prov, "result": result}, name=f"c{c}")
    out = tmp_path / "site"
    build(root, out, incremental=False)
    page = (out / RECIPE / "index.html").read_text()
    assert 'id="measured"' in page and "<script>alert" not in page
    svgs = [s.split("</svg>")[0] + "</svg>" for s in page.split('<svg class="plot"')[1:]]
    assert len(svgs) == 3  # throughput, latency, per GPU against per user
    titles = []
    for text in svgs:
        root_el = ET.fromstring('<svg class="plot"' + text)
        titles += [t.text or "" for t in root_el.iter("{http://www.w3.org/2000/svg}title")]
    assert any(t.startswith("estimate") for t in titles)  # the speed estimate is overlaid
    assert any(t.startswith("measured output tokens/s: 32, 3.2k") for t in titles)
    assert page.count("<summary>Table</summary>") == 3  # each chart has its table
