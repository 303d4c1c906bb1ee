"""`recipes-site new`: parameter counts from config.json, hf_config extraction, the recipe skeleton."""
from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from recipes_site.catalog import PROJECT_ROOT, load_catalog
from recipes_site.scaffold import (
    format_count,
    hf_config_from,
    moe_layer_indices,
    parameter_count,
    precision_from,
    scaffold,
    write_scaffold,
)

CONFIGS = Path(__file__).resolve().parent / "fixtures" / "configs"


def config(name: str) -> dict:
    return json.loads((CONFIGS / f"{name}.json").read_text())


# -- parameter counts against published totals --------------------------------------------------------

@pytest.mark.parametrize("name, published", [
    ("Llama-3.3-70B-Instruct", 70e9),      # Meta: 70B
    ("Qwen3-8B", 8.2e9),                   # Qwen: 8.2B
    ("Qwen3-30B-A3B", 30.5e9),             # Qwen: 30.5B
    ("DeepSeek-V3", 671e9),                # DeepSeek: 671B (685B with the MTP module, not counted)
    ("gpt-oss-120b", 116.8e9),             # OpenAI: 116.8B
    ("gemma-3-27b-it", 27e9),              # Google: 27B (language model)
])
def test_total_within_two_percent_of_published(name, published):
    assert parameter_count(config(name)).total == pytest.approx(published, rel=0.02)


@pytest.mark.parametrize("name, published", [
    ("Qwen3-30B-A3B", 3.3e9),              # Qwen counts the embedding as active
    ("DeepSeek-V3", 37e9),
])
def test_moe_active_within_two_percent_of_published(name, published):
    assert parameter_count(config(name)).active == pytest.approx(published, rel=0.02)


def test_gpt_oss_active_matches_openai_without_the_input_embedding():
    c = config("gpt-oss-120b")
    count = parameter_count(c)
    assert count.active - c["vocab_size"] * c["hidden_size"] == pytest.approx(5.13e9, rel=0.02)


def test_dense_models_are_all_active():
    count = parameter_count(config("Llama-3.3-70B-Instruct"))
    assert count.active == count.total and count.routed_experts == 0 and count.expert_fraction == 0


def test_exact_llama_breakdown():
    count = parameter_count(config("Llama-3.3-70B-Instruct"))
    assert count.embedding == 2 * 128_256 * 8192                      # untied output head
    assert count.attention == 80 * (8192 * (64 + 16) * 128 + 64 * 128 * 8192)
    assert count.dense_mlp == 80 * 3 * 8192 * 28_672


def test_deepseek_has_three_dense_layers_and_mla_attention():
    c = config("DeepSeek-V3")
    assert moe_layer_indices(c) == list(range(3, 61))
    count = parameter_count(c)
    assert count.dense_mlp == 3 * 3 * 7168 * 18_432
    assert count.routed_experts == 58 * 256 * 3 * 7168 * 2048
    q = 7168 * 1536 + 1536 + 1536 * 128 * 192
    kv = 7168 * 576 + 512 + 512 * 128 * 256
    assert count.attention == 61 * (q + kv + 128 * 128 * 7168)
    assert "multi-token-prediction layers not counted" in count.notes


def test_gemma_counts_the_language_model_with_tied_embeddings():
    count = parameter_count(config("gemma-3-27b-it"))
    assert count.embedding == 262_208 * 5376
    assert "vision encoder not counted" in count.notes


def test_missing_shape_raises():
    with pytest.raises(KeyError):
        parameter_count({"num_hidden_layers": 2})


@pytest.mark.parametrize("n, text", [(70_553_706_496, "70.6B"), (8_190_726_144, "8.19B"), (671_026_404_352, "671B"),
                                     (30_532_110_336, "30.5B"), (27e9, "27B"), (1.03e12, "1.03T"), (5.1e8, "510M")])
def test_format_count(n, text):
    assert format_count(n) == text


# -- hf_config and precision ----------------------------------------------------------------------------

def test_hf_config_keeps_only_read_keys_and_derives_gemma_layer_types():
    hf = hf_config_from(config("gemma-3-27b-it"))
    assert "sliding_window_pattern" not in hf and "model_type" not in hf
    assert hf["num_hidden_layers"] == 62 and hf["sliding_window"] == 1024
    assert hf["layer_types"].count("sliding_attention") == 52
    assert [i for i, t in enumerate(hf["layer_types"]) if t == "full_attention"] == list(range(5, 62, 6))


def test_hf_config_drops_nulls_and_all_full_layer_lists():
    hf = hf_config_from(config("Qwen3-8B"))
    assert "sliding_window" not in hf and "layer_types" not in hf
    assert hf == {"num_hidden_layers": 36, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
                  "hidden_size": 4096, "max_position_embeddings": 40960, "vocab_size": 151936,
                  "intermediate_size": 12288}


@pytest.mark.parametrize("name, precision", [("Llama-3.3-70B-Instruct", "bf16"), ("DeepSeek-V3", "fp8"),
                                             ("gpt-oss-120b", "mxfp4")])
def test_precision_from_config(name, precision):
    assert precision_from(config(name)) == precision


def test_modelopt_precision():
    assert precision_from({"quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4"}}) == "nvfp4"
    assert precision_from({"torch_dtype": "float16"}) == "fp16"


# -- the skeleton ---------------------------------------------------------------------------------------

DAY = dt.date(2026, 1, 2)


def test_skeleton_from_deepseek_config():
    text = scaffold("deepseek-ai/DeepSeek-V3", config("DeepSeek-V3"), DAY).text
    data = yaml.safe_load(text)
    model = data["model"]
    assert model["model_id"] == "deepseek-ai/DeepSeek-V3"
    assert (model["architecture"], model["parameter_count"], model["active_parameters"]) == ("moe", "671B", "37.6B")
    assert model["context_length"] == 163_840
    assert model["hf_config"]["kv_lora_rank"] == 512 and model["hf_config"]["n_routed_experts"] == 256
    assert data["variants"]["default"] == {"precision": "fp8", "vram_minimum_gb": 806,
                                           "description": "Original FP8 weights"}
    assert data["compatible_strategies"] == ["single_node_tp", "single_node_tep", "single_node_dep"]
    assert "  date_added: 2026-01-02\n" in text and text.startswith("# yaml-language-server: $schema=")


def test_skeleton_without_config_has_todo_vram():
    s = scaffold("acme/Thing-1B", None, DAY)
    data = yaml.safe_load(s.text)
    assert data["variants"]["default"]["vram_minimum_gb"] == 0
    assert "hf_config" not in data["model"] and "architecture" not in data["model"]
    assert any("vram_minimum_gb" in n for n in s.notes)


@pytest.mark.parametrize("bad", ["nothing", "a/b/c", "/repo", "org/"])
def test_skeleton_needs_org_and_repo(bad):
    with pytest.raises(ValueError):
        scaffold(bad)


@pytest.mark.parametrize("name, hf_id", [("DeepSeek-V3", "deepseek-ai/DeepSeek-V3"), ("gemma-3-27b-it", "google/gemma-3-27b-it"),
                                         ("gpt-oss-120b", "openai/gpt-oss-120b"), (None, "acme/Thing-1B")])
def test_scaffolded_recipe_validates_strictly(tmp_path, name, hf_id):
    root = tmp_path / "root"
    path, _ = write_scaffold(root, hf_id, CONFIGS / f"{name}.json" if name else None)
    assert path == root / "models" / f"{hf_id}.yaml"
    catalog, diags = load_catalog(root)
    mine = [d.format() for d in diags if d.path.endswith(f"{hf_id}.yaml")]
    assert mine == []
    assert [d.hf_id for d in catalog.recipes] == [hf_id]


def test_write_refuses_to_overwrite(tmp_path):
    write_scaffold(tmp_path, "acme/Thing-1B")
    with pytest.raises(FileExistsError):
        write_scaffold(tmp_path, "acme/Thing-1B")
    write_scaffold(tmp_path, "acme/Thing-1B", force=True)


def run(*args, cwd=PROJECT_ROOT):
    return subprocess.run([sys.executable, "-m", "recipes_site", *args], cwd=cwd, capture_output=True, text=True)


def test_cli_new(tmp_path):
    r = run("new", "Qwen/Qwen3-30B-A3B", "--config", str(CONFIGS / "Qwen3-30B-A3B.json"), "--root", str(tmp_path))
    assert r.returncode == 0, r.stderr
    written = tmp_path / "models" / "Qwen" / "Qwen3-30B-A3B.yaml"
    assert r.stdout.startswith(f"wrote {written}")
    model = yaml.safe_load(written.read_text())["model"]
    assert (model["parameter_count"], model["active_parameters"]) == ("30.5B", "3.35B")
    again = run("new", "Qwen/Qwen3-30B-A3B", "--root", str(tmp_path))
    assert again.returncode == 1 and "--force" in again.stderr
    bad = run("new", "Qwen/Qwen3-30B-A3B", "--config", str(tmp_path / "missing.json"), "--root", str(tmp_path), "--force")
    assert bad.returncode == 1 and "missing.json" in bad.stderr
