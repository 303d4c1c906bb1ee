"""KV bytes per token from config.json facts, against hand-derived values (MODEL-FACTS.md).

The configs are hand-written excerpts under tests/fixtures/configs/; `hf_config_from` is what
`recipes-site new` copies into a recipe, so these also test the scaffold's extraction.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recipes_site import kv_cache as kv
from recipes_site.scaffold import hf_config_from

CONFIGS = Path(__file__).resolve().parent / "fixtures" / "configs"


def cfg(name: str) -> dict:
    return hf_config_from(json.loads((CONFIGS / f"{name}.json").read_text()))


def layout(name: str) -> kv.KvLayout:
    return kv.kv_layout(cfg(name))


# -- whole-model bytes per token (acceptance values) --------------------------------------------------


@pytest.mark.parametrize(
    "name, per_token, window_bytes, windows",
    [
        # 2 (K,V) x 80 layers x 8 KV heads x 128 x 2 B
        ("Llama-3.3-70B-Instruct", 327_680, 0, ()),
        # 2 x 36 x 8 x 128 x 2 B
        ("Qwen3-8B", 147_456, 0, ()),
        # 2 x 48 x 4 x 128 x 2 B
        ("Qwen3-30B-A3B", 98_304, 0, ()),
        # MLA latent (512 + 64) x 61 layers x 2 B
        ("DeepSeek-V3", 70_272, 0, ()),
        # 18 full layers x 2 x 8 x 64 x 2 B; 18 sliding layers keep 128 tokens: 18 x 2048 B x 128
        ("gpt-oss-120b", 36_864, 18 * 2_048 * 128, ((128, 18, kv.SLIDING),)),
        # 10 global layers x 2 x 16 x 128 x 2 B; 52 local layers keep 1024 tokens: 52 x 8192 B x 1024
        ("gemma-3-27b-it", 81_920, 52 * 8_192 * 1_024, ((1024, 52, kv.SLIDING),)),
    ],
)
def test_bf16_bytes_per_token_and_window(name, per_token, window_bytes, windows):
    lay = layout(name)
    assert kv.kv_bytes_per_token(lay, 2) == per_token
    assert kv.kv_bytes_per_sequence_window(lay, 2) == window_bytes
    assert lay.windows == windows
    assert lay.notes == ()


def test_window_sizes_match_model_facts():
    assert kv.kv_bytes_per_sequence_window(layout("gpt-oss-120b"), 2) == 4.5 * 2**20  # 4.5 MiB
    assert kv.kv_bytes_per_sequence_window(layout("gemma-3-27b-it"), 2) / 2**30 == pytest.approx(
        0.406, abs=1e-3
    )


@pytest.mark.parametrize(
    "name", ["Llama-3.3-70B-Instruct", "Qwen3-8B", "DeepSeek-V3", "gpt-oss-120b", "gemma-3-27b-it"]
)
def test_fp8_kv_cache_halves_everything(name):
    lay = layout(name)
    fp8, auto = kv.kv_dtype_bytes("fp8"), kv.kv_dtype_bytes("auto")
    assert (fp8, auto) == (1, 2)
    assert kv.kv_bytes_per_token(lay, fp8) * 2 == kv.kv_bytes_per_token(lay, auto)
    assert kv.kv_bytes_per_sequence_window(lay, fp8) * 2 == kv.kv_bytes_per_sequence_window(
        lay, auto
    )


def test_mla_is_recognised():
    lay = layout("DeepSeek-V3")
    assert (lay.attention, lay.elements_per_layer, lay.full_layers) == ("mla", 576, 61)


@pytest.mark.parametrize(
    "value, width",
    [
        (None, 2),
        ("auto", 2),
        ("bfloat16", 2),
        ("fp8", 1),
        ("fp8_e4m3", 1),
        ("FP8_E5M2", 1),
        ("fp8_ds_mla", 1),
    ],
)
def test_kv_dtype_widths(value, width):
    assert kv.kv_dtype_bytes(value) == width


def test_unknown_kv_dtype_is_an_error():
    with pytest.raises(ValueError):
        kv.kv_dtype_bytes("int3")


def test_head_dim_defaults_to_hidden_over_heads_and_mha_without_kv_heads():
    lay = kv.kv_layout({"num_hidden_layers": 2, "num_attention_heads": 16, "hidden_size": 2048})
    assert (lay.kv_heads, lay.head_dim) == (16, 128)
    assert kv.kv_bytes_per_token(lay, 2) == 2 * 2 * 16 * 128 * 2


# -- per GPU ---------------------------------------------------------------------------------------------


def test_gqa_heads_split_across_tp_ranks():
    lay = layout("Llama-3.3-70B-Instruct")
    assert kv.kv_bytes_per_token_per_gpu(lay, 2, tp=1) == 327_680
    assert kv.kv_bytes_per_token_per_gpu(lay, 2, tp=2) == 163_840
    assert kv.kv_bytes_per_token_per_gpu(lay, 2, tp=8) == 40_960


def test_gqa_heads_replicated_beyond_kv_heads():
    lay = layout("Qwen3-30B-A3B")  # 4 KV heads
    assert kv.kv_bytes_per_token_per_gpu(lay, 2, tp=4) == 98_304 // 4
    assert (
        kv.kv_bytes_per_token_per_gpu(lay, 2, tp=8) == 98_304 // 4
    )  # one head per rank, not half a head
    llama = layout("Llama-3.3-70B-Instruct")
    assert kv.kv_bytes_per_token_per_gpu(llama, 2, tp=16) == 40_960


def test_mla_latent_is_replicated_on_every_tp_rank_and_sharded_by_dcp():
    lay = layout("DeepSeek-V3")
    assert kv.kv_bytes_per_token_per_gpu(lay, 2, tp=8) == 70_272
    assert kv.kv_bytes_per_token_per_gpu(lay, 2, tp=8, dcp=8) == 70_272 / 8


def test_pipeline_parallelism_splits_layers():
    lay = layout("Llama-3.3-70B-Instruct")
    assert kv.kv_bytes_per_token_per_gpu(lay, 2, tp=8, pp=2) == 20_480
    odd = kv.kv_layout(
        {"num_hidden_layers": 3, "num_attention_heads": 8, "num_key_value_heads": 8, "head_dim": 64}
    )
    assert (
        kv.kv_bytes_per_token_per_gpu(odd, 2, pp=2) == 2 * 2 * 8 * 64 * 2
    )  # the busier stage: 2 of 3 layers


def test_sequence_bytes_are_whole_blocks_of_the_groups():
    """gpt-oss-120b: 18 full + 18 sliding layers make two groups of 18 (kv_cache_planning.py:521-532);
    a request takes cdiv(L, 16) full blocks and cdiv(min(127 + in_flight, L), 16) + 1 sliding ones
    (kv_cache_interface.py:643-648, 938-944), each block 18 pages of 16 tokens."""
    lay = layout("gpt-oss-120b")
    page = 16 * 2 * 8 * 64 * 2
    groups = kv.cache_groups(lay, 2)
    assert (groups.group_size, groups.block_bytes) == (18, 18 * page)
    assert kv.sequence_bytes_per_gpu(lay, 2, 100) == (7 + 8) * 18 * page
    assert kv.sequence_bytes_per_gpu(lay, 2, 100_000) == (6250 + 8 + 1) * 18 * page
    # in flight under async scheduling: 2 x max_num_batched_tokens (vllm/config/vllm.py:587-609)
    assert (
        kv.sequence_bytes_per_gpu(lay, 2, 100_000, in_flight=2 * 8192)
        == (6250 + (-(-(127 + 16384) // 16) + 1)) * 18 * page
    )


def test_gemma3_sliding_layers_fill_six_groups_of_ten():
    """52 sliding + 10 full layers: groups of 10, the sliding ones 6 groups (60 layers' worth)."""
    lay = layout("gemma-3-27b-it")
    page = 16 * 2 * 16 * 128 * 2
    groups = kv.cache_groups(lay, 2, in_flight=16_384)
    assert groups.group_size == 10 and groups.block_bytes == 10 * page
    assert [(t.kind, t.groups) for t in groups.terms] == [
        (kv.FULL, 1),
        (kv.SLIDING, 6),
    ]
    blocks = 8192 + 6 * (-(-(1023 + 16_384) // 16) + 1)
    assert groups.blocks_per_request(131_072) == blocks
    # "GPU KV cache size: N tokens" = num_blocks / blocks per request x max_model_len (kv_cache_utils.py:1132-1150)
    kv_bytes = 20 * 2**30
    assert groups.tokens(kv_bytes, 131_072) == int(kv_bytes // (10 * page) / blocks * 131_072)


def test_longest_sequence_is_the_exact_boundary():
    lay = layout("gemma-3-27b-it")
    budget = 10 * 2**30
    longest = kv.longest_sequence(lay, 2, budget, in_flight=16_384)
    assert kv.sequence_bytes_per_gpu(lay, 2, longest, in_flight=16_384) <= budget
    assert kv.sequence_bytes_per_gpu(lay, 2, longest + 1, in_flight=16_384) > budget
    four = kv.longest_sequence(lay, 2, budget, sequences=4)
    assert (
        4 * kv.sequence_bytes_per_gpu(lay, 2, four)
        <= budget
        < 4 * kv.sequence_bytes_per_gpu(lay, 2, four + 1)
    )
    assert kv.longest_sequence(lay, 2, budget, cap=4096) == 4096
    assert kv.longest_sequence(lay, 2, 0) == 0


# -- layer types and missing facts ----------------------------------------------------------------------


def test_layer_types_without_their_window_count_as_full():
    base = {
        "num_hidden_layers": 4,
        "num_attention_heads": 8,
        "num_key_value_heads": 8,
        "head_dim": 64,
    }
    lay = kv.kv_layout({**base, "layer_types": ["sliding_attention", "full_attention"] * 2})
    assert (lay.full_layers, lay.windows) == (4, ())
    assert "sliding_attention layers without sliding_window" in lay.notes[0]
    chunked = kv.kv_layout(
        {
            **base,
            "attention_chunk_size": 8192,
            "layer_types": ["chunked_attention"] * 3 + ["full_attention"],
        }
    )
    assert (chunked.full_layers, chunked.windows) == (1, ((8192, 3, kv.CHUNKED),))
    odd = kv.kv_layout({**base, "layer_types": ["mystery_attention"] * 4})
    assert odd.full_layers == 4 and "not known" in odd.notes[0]


def test_linear_attention_layers_hold_no_kv():
    # Qwen3.5-27B: 48 Gated DeltaNet + 16 full layers; only the full ones cache 2 x 4 x 256 x 2 B
    qwen = {
        "num_hidden_layers": 64,
        "num_attention_heads": 24,
        "num_key_value_heads": 4,
        "head_dim": 256,
        "layer_types": ["linear_attention"] * 3 + ["full_attention"],
    }
    qwen["layer_types"] = qwen["layer_types"] * 16
    lay = kv.kv_layout(qwen)
    assert (lay.full_layers, lay.windows) == (16, ())
    assert lay.notes == (
        "linear_attention state not counted: needs linear_num_key_heads, linear_num_value_heads, "
        "linear_key_head_dim, linear_value_head_dim",
    )
    assert kv.kv_bytes_per_token(lay, 2) == 16 * 2 * 4 * 256 * 2
    assert kv.kv_layout({**qwen, "layer_types": ["linear_attention"] * 64}).full_layers == 0


def test_hybrid_override_pattern_marks_mamba_and_mlp_blocks():
    # Nemotron-Nano-9B-v2: 27 Mamba-2, 25 MLP, 4 attention blocks; only the 4 cache K and V
    nemo = {
        "num_hidden_layers": 56,
        "num_attention_heads": 40,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "hybrid_override_pattern": "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-",
    }
    assert (
        kv.layer_kinds(nemo).count(kv.MAMBA) == 27 and kv.layer_kinds(nemo).count(kv.MLP_ONLY) == 25
    )
    lay = kv.kv_layout(nemo)
    assert lay.full_layers == 4 and kv.kv_bytes_per_token(lay, 2) == 4 * 2 * 8 * 128 * 2 == 16_384
    short = {**nemo, "hybrid_override_pattern": "M*"}
    assert any(
        m.startswith("hybrid_override_pattern with one entry per layer")
        for m in kv.missing_facts(short)
    )


def test_mamba_and_mlp_layer_types_hold_no_kv():
    base = {
        "num_hidden_layers": 4,
        "num_attention_heads": 8,
        "num_key_value_heads": 8,
        "head_dim": 64,
    }
    lay = kv.kv_layout({**base, "layer_types": ["mamba", "mlp", "moe", "full_attention"]})
    assert lay.full_layers == 1 and lay.states == ()
    assert lay.notes == (
        "mamba state not counted: needs mamba_num_heads, mamba_head_dim, ssm_state_size, n_groups",
    )


def test_window_without_layer_types_is_an_upper_bound():
    lay = kv.kv_layout(
        {"num_hidden_layers": 4, "num_attention_heads": 8, "head_dim": 64, "sliding_window": 4096}
    )
    assert lay.full_layers == 4 and lay.windows == ()
    assert "upper bound" in lay.notes[0]


@pytest.mark.parametrize(
    "config, missing",
    [
        (None, "model.hf_config"),
        ({}, "model.hf_config"),
        ({"num_attention_heads": 8, "head_dim": 64}, "num_hidden_layers"),
        (
            {"num_hidden_layers": 4, "num_attention_heads": 8},
            "head_dim (or hidden_size and num_attention_heads)",
        ),
        ({"num_hidden_layers": 4, "kv_lora_rank": 512}, "qk_rope_head_dim"),
        (
            {
                "num_hidden_layers": 4,
                "num_attention_heads": 8,
                "head_dim": 64,
                "layer_types": ["full_attention"],
            },
            "layer_types with one entry per layer (1 given for 4 layers)",
        ),
    ],
)
def test_missing_facts(config, missing):
    found = kv.missing_facts(config)
    assert any(m.startswith(missing) for m in found), found
    with pytest.raises(kv.KvFactsError):
        kv.kv_layout(config or {})


def test_complete_configs_miss_nothing():
    for path in CONFIGS.glob("*.json"):
        assert kv.missing_facts(cfg(path.stem)) == [], path.name


# -- tensor-parallel sizes ------------------------------------------------------------------------------

ODD = {"num_attention_heads": 28, "num_key_value_heads": 4}  # Qwen2.5-7B's head counts


@pytest.mark.parametrize(
    "tp, problem",
    [
        (1, None),
        (2, None),
        (4, None),
        (28, None),
        (8, "TP 8 does not divide the 28 attention heads"),
        (3, "TP 3 does not divide the 28 attention heads"),
        (14, "TP 14 is not a multiple of the 4 KV heads"),
    ],
)
def test_tp_problem(tp, problem):
    assert kv.tp_problem(ODD, tp) == problem


def test_tp_below_kv_heads_must_divide_them():
    assert (
        kv.tp_problem({"num_attention_heads": 48, "num_key_value_heads": 12}, 8)
        == "TP 8 does not divide the 12 KV heads"
    )


def test_mla_tp_only_needs_to_divide_attention_heads():
    assert kv.tp_problem(cfg("DeepSeek-V3"), 16) is None
    assert (
        kv.tp_problem(
            {"num_attention_heads": 128, "num_key_value_heads": 12, "kv_lora_rank": 512}, 8
        )
        is None
    )


def test_largest_valid_tp():
    assert kv.largest_valid_tp(ODD, 8) == 4
    assert kv.largest_valid_tp(ODD, 4) == 4
    assert kv.largest_valid_tp(cfg("Llama-3.3-70B-Instruct"), 8) == 8
    assert kv.largest_valid_tp(None, 8) == 8
