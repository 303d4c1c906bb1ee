"""Issue 25 point 7: the two commands that read or write a file the command line names.

`new --config FILE` reads a config.json from the internet: deep nesting, NaN, 1e300, a device or
a FIFO each end in one line that names the file, never a traceback or a hang. `schema --output
FILE` replaces only a recipe schema without --force, and never writes through a symlink."""

from __future__ import annotations

import json
import os
import threading

import pytest
from cli_kit import run

from recipes_site.scaffold import MAX_CONFIG_BYTES

SHAPE = {
    "model_type": "llama",
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "intermediate_size": 14336,
    "max_position_embeddings": 8192,
    "torch_dtype": "bfloat16",
}


def _shape_with(key: str, raw: str) -> str:
    return json.dumps(SHAPE)[:-1] + f', "{key}": {raw}}}'


@pytest.mark.parametrize(
    "text, says",
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"a": ' * 100_000 + "1" + "}" * 100_000, "nested too deeply"),
        (_shape_with("hidden_size", "NaN"), "NaN is not a number"),
        (_shape_with("num_hidden_layers", "Infinity"), "Infinity is not a number"),
        (_shape_with("vocab_size", "-Infinity"), "-Infinity is not a number"),
        (_shape_with("hidden_size", "1e300"), "hidden_size: a number beyond"),
        (_shape_with("num_hidden_layers", "-1e300"), "num_hidden_layers: a number beyond"),
        (_shape_with("vision_config", '{"depth": 1e300}'), "vision_config.depth: a number beyond"),
        ("[1, 2]", "expected a JSON object"),
        ('{"a": 1', "not valid JSON"),
    ],
)
def test_a_hostile_config_is_one_line_naming_the_file(tmp_path, text, says):
    config = tmp_path / "config.json"
    config.write_text(text)
    got = run("new", "acme/Thing-1B", "--root", tmp_path, "--config", config)
    assert got.returncode == 1
    assert got.stderr.count("\n") == 1 and str(config) in got.stderr and says in got.stderr, (
        got.stderr
    )
    assert "Traceback" not in got.stderr
    assert not (tmp_path / "models").exists()


def test_a_config_over_the_cap_is_refused_without_reading_it_whole(tmp_path):
    config = tmp_path / "config.json"
    with config.open("wb") as f:
        f.truncate(MAX_CONFIG_BYTES + 1)  # sparse: no disk used
    got = run("new", "acme/Thing-1B", "--root", tmp_path, "--config", config)
    assert got.returncode == 1 and "too large" in got.stderr and str(config) in got.stderr


@pytest.mark.parametrize("kind", ["device", "fifo", "folder"])
def test_a_config_that_is_not_a_regular_file_is_refused_at_once(tmp_path, kind):
    if kind == "device":
        config = "/dev/zero"
    elif kind == "fifo":
        config = str(tmp_path / "config.json")
        os.mkfifo(config)
    else:
        config = str(tmp_path)
    result: list = []
    worker = threading.Thread(
        target=lambda: result.append(
            run("new", "acme/Thing-1B", "--root", tmp_path, "--config", config)
        ),
        daemon=True,
    )
    worker.start()
    worker.join(20)
    if worker.is_alive() and kind == "fifo":  # let the blocked open return before failing
        with open(config, "w"):
            pass
    assert result, f"--config {config} did not return"
    got = result[0]
    assert got.returncode == 1 and config in got.stderr, got.stderr
    assert "not a regular file" in got.stderr, got.stderr


def test_a_real_config_still_scaffolds(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({**SHAPE, "rope_theta": 500000.0, "rms_norm_eps": 1e-05}))
    got = run("new", "acme/Thing-1B", "--root", tmp_path, "--config", config)
    assert got.returncode == 0, got.stderr
    assert "hidden_size: 4096" in (tmp_path / "models" / "acme" / "Thing-1B.yaml").read_text()


# -- schema --output ------------------------------------------------------------------------------


def test_schema_refuses_to_overwrite_a_file_that_is_not_a_schema(tmp_path):
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text("model: {}\n")
    got = run("schema", "--output", recipe)
    assert got.returncode == 1 and "--force" in got.stderr and str(recipe) in got.stderr
    assert recipe.read_text() == "model: {}\n"
    assert run("schema", "--output", recipe, "--force").returncode == 0
    assert json.loads(recipe.read_text())["title"] == "vLLM serving recipe"


def test_schema_regenerates_its_own_file_without_force(tmp_path):
    out = tmp_path / "schema" / "recipe.schema.json"
    assert run("schema", "--output", out).returncode == 0
    first = out.read_text()
    out.write_text(first.replace('"description"', '"descriptionX"', 1))  # a stale schema
    got = run("schema", "--output", out)
    assert got.returncode == 0, got.stderr
    assert out.read_text() == first


@pytest.mark.parametrize("force", [False, True])
def test_schema_never_writes_through_a_symlink(tmp_path, force):
    target = tmp_path / "precious.txt"
    target.write_text("keep me\n")
    link = tmp_path / "recipe.schema.json"
    link.symlink_to(target)
    got = run("schema", "--output", link, *(["--force"] if force else []))
    assert got.returncode == 1 and "symbolic link" in got.stderr and str(link) in got.stderr
    assert target.read_text() == "keep me\n" and link.is_symlink()
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "elsewhere.json")
    assert run("schema", "--output", dangling, *(["--force"] if force else [])).returncode == 1
    assert not (tmp_path / "elsewhere.json").exists()


def test_new_never_writes_through_a_symlinked_recipe_or_org_folder(tmp_path):
    """`new --force` replaces a recipe file, never the file a link at its path points to, and
    refuses an ORG folder that is a link out of models/."""
    victim = tmp_path / "victim.txt"
    victim.write_text("keep", encoding="utf-8")
    (tmp_path / "models" / "acme").mkdir(parents=True)
    (tmp_path / "models" / "acme" / "Thing-1B.yaml").symlink_to(victim)
    got = run("new", "acme/Thing-1B", "--root", tmp_path, "--force")
    assert got.returncode != 0 and "symbolic link" in got.stderr
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "models" / "evil").symlink_to(outside)
    got = run("new", "evil/Thing-1B", "--root", tmp_path, "--force")
    assert got.returncode != 0 and "outside" in got.stderr
    assert victim.read_text(encoding="utf-8") == "keep" and list(outside.iterdir()) == []
    assert run("new", "acme/Other-1B", "--root", tmp_path).returncode == 0
