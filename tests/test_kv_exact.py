"""KV cache and weights exactly as vLLM 0.33 accounts them (issue 11), for our recipes' hf_config.

Every expected number is computed here from the vLLM source line quoted beside it (paths under
the `vllm` package of the 0.33.0 wheel) or from a published figure, never copied from our own
output. The recipes are read from models/ so their hf_config blocks are what is tested.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from recipes_site import fit, sizing
from recipes_site import kv_cache as kv
from recipes_site.parameters import parameter_count
from recipes_site.scaffold import hf_config_from, scaffold

MODELS = Path(__file__).resolve().parents[1] / "models"
GIB = 2**30
BF16, FP8 = 2, 1


def recipe(hf_id: str) -> dict:
    return yaml.safe_load((MODELS / f"{hf_id}.yaml").read_text())


def layout(hf_id: str) -> kv.KvLayout:
    return kv.kv_layout(recipe(hf_id)["model"]["hf_config"])


def gqa_bytes(heads: int, head_dim: int, dtype: int) -> int:
    # vllm/v1/kv_cache_interface.py:590  return (self.head_size + self.head_size_v) * get_dtype_size(self.dtype)
    # vllm/v1/kv_cache_interface.py:594  return self.num_heads * self.num_states * self.state_content_size_bytes
    return heads * (head_dim + head_dim) * dtype


# -- Gemma 4 ---------------------------------------------------------------------------------------------
# vllm/model_executor/models/gemma4.py:579-580  head_dim = layer_config.head_dim; num_kv_heads =
#   layer_config.num_key_value_heads  (HF per-layer config: global_head_dim on full layers, and
#   num_global_key_value_heads there when attention_k_eq_v)
# vllm/model_executor/models/gemma4.py:421-423  k_eq_v layers load K weights into both K and V slots (V is still cached)


def test_gemma4_31b_global_layers_are_4_heads_of_512():
    lay = layout("google/gemma-4-31B-it")
    full = 10 * gqa_bytes(4, 512, BF16)  # 10 full layers (5 sliding : 1 full over 60)
    assert kv.kv_bytes_per_token(lay, BF16) == full == 81_920
    assert kv.kv_bytes_per_token(lay, FP8) == full // 2
    old = 10 * gqa_bytes(16, 256, BF16)  # what the sliding-layer shape gave before
    assert old == 2 * full  # "today 31B counts double"
    # 50 sliding layers keep 1024 tokens of 16 KV heads x 256
    assert (
        kv.kv_bytes_per_sequence_window(lay, BF16)
        == 50 * gqa_bytes(16, 256, BF16) * 1024
        == 800 * 2**20
    )
    # TP 8: the 4 global KV heads are replicated, one per rank (gemma4.py:393
    #   self.num_kv_heads = max(1, self.total_num_kv_heads // tp_size)); the 16 sliding heads split 2 per rank
    assert kv.kv_bytes_per_token_per_gpu(lay, BF16, tp=8) == 10 * gqa_bytes(1, 512, BF16)
    assert kv.window_bytes_per_token_per_gpu(lay, BF16, tp=8) == [
        (1024, 50, kv.SLIDING, 50 * gqa_bytes(2, 256, BF16))
    ]


def test_gemma4_26b_a4b_global_layers_are_2_heads_of_512():
    lay = layout("google/gemma-4-26B-A4B-it")
    assert kv.kv_bytes_per_token(lay, BF16) == 5 * gqa_bytes(2, 512, BF16) == 20_480
    assert 5 * gqa_bytes(8, 256, BF16) == 2 * kv.kv_bytes_per_token(lay, BF16)  # double before
    assert kv.kv_bytes_per_sequence_window(lay, BF16) == 25 * gqa_bytes(8, 256, BF16) * 1024


def test_gemma4_e4b_shares_the_last_18_layers_caches():
    # vllm/model_executor/models/gemma4.py:404-406  first_kv_shared_layer_idx = num_hidden_layers - num_kv_shared_layers;
    #   layers from there read the target layer's cache, and the runner gives them no KV cache spec
    #   (vllm/v1/worker/gpu_model_runner.py:7096-7106)
    lay = layout("google/gemma-4-E4B-it")
    assert (lay.shared_layers, lay.full_layers, lay.windows) == (
        18,
        4,
        ((512, 20, kv.SLIDING),),
    )  # of the first 24
    full = 4 * gqa_bytes(2, 512, BF16)  # not attention_k_eq_v: num_key_value_heads on full layers
    assert kv.kv_bytes_per_token(lay, BF16) == full == 16_384
    old = 7 * gqa_bytes(2, 256, BF16)  # 7 full layers of width 256, no sharing
    assert old / full == pytest.approx(0.875)  # "E4B 12.5% low"
    assert kv.kv_bytes_per_sequence_window(lay, BF16) == 20 * gqa_bytes(2, 256, BF16) * 512


def test_gemma4_tp_must_suit_the_global_kv_heads_too():
    cfg = {
        "num_attention_heads": 16,
        "num_key_value_heads": 8,
        "num_global_key_value_heads": 2,
        "attention_k_eq_v": True,
    }
    assert kv.tp_problem(cfg, 4) is None and kv.tp_problem(cfg, 8) is None
    odd = {**cfg, "num_global_key_value_heads": 3}
    assert kv.tp_problem(odd, 8) == "TP 8 is not a multiple of the 3 global KV heads"


# -- sparse MLA: DeepSeek-V3.2, GLM-5 / 5.1 --------------------------------------------------------------------
# MLA latent: vllm/transformers_utils/model_arch_config_convertor.py:98  return kv_lora_rank + qk_rope_head_dim
#   (head_size), one head, no V: vllm/v1/kv_cache_interface.py:743  head_size_v: int = 0
MLA = 512 + 64
# vllm/models/deepseek_v32/attention.py:91,96  quant_block_size = 128;
#   head_dim=self.head_dim + self.head_dim // self.quant_block_size * 4  (uint8, one head: deepseek_v2.py:661-663)
INDEXER = 128 + 128 // 128 * 4
# vllm/model_executor/layers/attention/mla_attention.py:1386  state_content_bytes={"fp8_ds_mla": 656, ...}
FP8_DS_MLA = 512 * 1 + 4 * 4 + 64 * 2  # flashmla_sparse.py:79-86: fp8 NoPE, fp32 scales, bf16 RoPE


@pytest.mark.parametrize(
    "hf_id, layers",
    [("deepseek-ai/DeepSeek-V3.2", 61), ("zai-org/GLM-5", 78), ("zai-org/GLM-5.1", 78)],
)
def test_sparse_mla_counts_the_indexer_and_the_656_byte_fp8_row(hf_id, layers):
    lay = layout(hf_id)
    assert lay.sparse and (INDEXER, FP8_DS_MLA) == (132, 656)
    bf16 = layers * (MLA * BF16 + INDEXER)
    fp8 = layers * (FP8_DS_MLA + INDEXER)
    assert kv.kv_bytes_per_token(lay, BF16) == bf16
    assert kv.kv_bytes_per_token(lay, FP8) == fp8
    # before: the dense-MLA formula, 10% low in BF16 and 27% low in FP8 (the unsafe direction)
    assert 1 - layers * MLA * BF16 / bf16 == pytest.approx(0.103, abs=1e-3)
    assert 1 - layers * MLA * FP8 / fp8 == pytest.approx(0.269, abs=1e-3)
    # both caches are replicated on every TP rank (mla_attention.py:1377-1378 num_kv_heads=1, max_tp_shards=1;
    # deepseek_v2.py:661-662 the same for the indexer); decode context parallelism shards them
    assert kv.kv_bytes_per_token_per_gpu(lay, FP8, tp=8) == fp8
    assert kv.kv_bytes_per_token_per_gpu(lay, FP8, tp=8, dcp=8) == fp8 / 8


def test_deepseek_v32_figures():
    lay = layout("deepseek-ai/DeepSeek-V3.2")
    assert (kv.kv_bytes_per_token(lay, BF16), kv.kv_bytes_per_token(lay, FP8)) == (78_324, 48_068)


def test_glm5_shapes_as_published():
    for hf_id in ("zai-org/GLM-5", "zai-org/GLM-5.1"):
        cfg = recipe(hf_id)["model"]["hf_config"]
        # GLM-5 config.json (GlmMoeDsaForCausalLM): qk_nope_head_dim 192, DSA indexer 32 heads x 128, top-k 2048
        assert (
            cfg["qk_nope_head_dim"],
            cfg["index_n_heads"],
            cfg["index_head_dim"],
            cfg["index_topk"],
        ) == (192, 32, 128, 2048)
    assert kv.kv_bytes_per_token(layout("zai-org/GLM-5"), BF16) == 100_152


def test_dense_mla_fp8_is_not_the_sparse_row():
    lay = kv.kv_layout({"num_hidden_layers": 61, "kv_lora_rank": 512, "qk_rope_head_dim": 64})
    assert not lay.sparse and kv.kv_bytes_per_token(lay, FP8) == 61 * MLA


# -- recurrent state: Qwen3.5 / 3.6 Gated DeltaNet, Nemotron-H Mamba-2 ----------------------------------------
# vllm/model_executor/layers/mamba/mamba_utils.py:282  conv_dim = head_k_dim * num_k_heads * 2 + head_v_dim * num_v_heads
# mamba_utils.py:283-286  conv_state_shape = (divide(conv_dim, tp), conv_kernel_size - 1 + num_spec)
# mamba_utils.py:288-292  temporal_state_shape = (divide(num_v_heads, tp), head_v_dim, head_k_dim)
# conv state in the model dtype, temporal in mamba_ssm_dtype: vllm/model_executor/models/config.py:963-966 (Qwen3.5
#   reads config.json's mamba_ssm_dtype, float32); MambaSpec page = sum(prod(shape) * dtype): kv_cache_interface.py:1110-1114


def gdn_state(nk: int, nv: int, dk: int, dv: int, tp: int = 1) -> int:
    return (dk * nk * 2 + dv * nv) // tp * (4 - 1) * 2 + nv // tp * dv * dk * 4


def hybrid_page(state: int, attn_per_token: int) -> tuple[int, int]:
    # vllm/platforms/interface.py:1096-1099  attn_block_size = kernel_block_alignment_size * cdiv(mamba_page_size,
    #   kernel_block_alignment_size * attn_page_size_1_token)   (alignment 16); the state page is padded to
    #   block_size * attn_page_size_1_token (interface.py:1118)
    block = 16 * math.ceil(state / (16 * attn_per_token))
    return block, block * attn_per_token


def test_qwen35_27b_state_per_sequence():
    lay = layout("Qwen/Qwen3.5-27B")
    state = gdn_state(16, 48, 128, 128)
    assert kv.state_bytes_per_layer_per_gpu(lay.states[0]) == state == 3_207_168
    block, page = hybrid_page(state, gqa_bytes(4, 256, BF16))
    plan = kv.hybrid_pages(lay, BF16)
    assert (plan.block_size, plan.padded_state_page) == (block, page) == (784, 3_211_264)
    # 48 linear + 16 full layers: groups of 16 (kv_cache_planning.py:521-522 group_size = min_num_layers), 3 state groups
    assert (plan.group_size, plan.state_groups) == (16, 3)
    # with prefix caching (vLLM's default for hybrids) a sequence holds 2 + spec + checkpoint pages per state layer
    # (kv_cache_interface.py:1136-1138 page_size_bytes * (2 + num_speculative_blocks + num_prefill_checkpoint_blocks));
    # Gated DeltaNet exports the checkpoint block on the FlashInfer path only (qwen_gdn_linear_attn.py:741-760)
    assert kv.state_bytes_per_sequence_per_gpu(lay, BF16) == 2 * 48 * page
    assert (
        kv.state_bytes_per_sequence_per_gpu(lay, BF16, copies=kv.state_copies(prefix_caching=False))
        == 48 * page
    )
    assert kv.state_bytes_per_sequence_per_gpu(lay, BF16, padded=False) == 48 * state
    # TP 4 splits the value heads and the conv channels
    assert kv.state_bytes_per_sequence_per_gpu(lay, BF16, tp=4, padded=False) == 48 * gdn_state(
        16, 48, 128, 128, tp=4
    )


def test_gdn_on_hopper_aligns_the_block_to_64_and_keeps_a_checkpoint():
    """FlashInfer's GDN prefill (Hopper) exports checkpoints every 64 tokens: the attention block
    becomes a multiple of lcm(16, 64) (platforms/interface.py:1088-1106) and each sequence keeps a
    third state block (kv_cache_interface.py:1136-1138, qwen_gdn_linear_attn.py:692-696, 741-748)."""
    rec = recipe("Qwen/Qwen3.5-27B")
    lay = layout("Qwen/Qwen3.5-27B")
    assert kv.gdn_checkpoint_alignment(lay, rec["model"]["hf_config"], "hopper") == 64
    assert kv.gdn_checkpoint_alignment(lay, rec["model"]["hf_config"], "ada") == 1
    state = gdn_state(16, 48, 128, 128)
    per_token = gqa_bytes(4, 256, BF16)
    block = 64 * math.ceil(state / (64 * per_token))
    groups = kv.cache_groups(lay, BF16, state_alignment=64)
    assert groups.term(kv.FULL).block_size == block == 832 and groups.state_blocks == 3
    r = fit.fit_deployment(
        rec,
        "default",
        "h100",
        {"gpu_count": 8, "vram_gb": 640, "generation": "hopper"},
        fit.Shape(),
    )
    assert r.kv_block_size == 832
    assert r.state_bytes_per_sequence_per_gpu == 3 * 3 * 16 * block * per_token


def test_qwen36_35b_a3b_state():
    lay = layout("Qwen/Qwen3.6-35B-A3B")
    state = gdn_state(16, 32, 128, 128)
    assert kv.state_bytes_per_layer_per_gpu(lay.states[0]) == state == 2_146_304
    plan = kv.hybrid_pages(lay, BF16)
    assert (plan.padded_state_page, plan.group_size, plan.state_groups) == (
        hybrid_page(state, gqa_bytes(2, 256, BF16))[1],
        10,
        3,
    )


def test_the_state_limits_concurrency():
    """A 4,096-token request of Qwen3.5-27B caches 256 MiB of KV but holds 441 MiB of state."""
    lay = layout("Qwen/Qwen3.5-27B")
    # whole blocks of 784 tokens (the hybrid's attention block): 6 blocks hold 4,096 tokens
    kv_only = 16 * gqa_bytes(4, 256, BF16) * 784 * 6
    state = kv.state_bytes_per_sequence_per_gpu(lay, BF16)
    assert kv.sequence_bytes_per_gpu(lay, BF16, 4096) == kv_only + state
    budget = 20 * GIB
    fit_count = budget // (kv_only + state)
    assert fit_count < budget // kv_only
    assert kv.longest_sequence(lay, BF16, budget, sequences=fit_count, cap=4096) == 4096
    assert kv.longest_sequence(lay, BF16, budget, sequences=fit_count + 1, cap=4096) < 4096
    assert kv.sequence_bytes_per_gpu(lay, BF16, 0) == 0


def test_nemotron_h_mamba2_state_in_float32():
    # mamba_utils.py:201, 210  conv_dim = intermediate_size + 2 * n_groups * state_size (intermediate =
    #   mamba_num_heads * mamba_head_dim, nemotron_h.py:799); temporal = (num_heads // tp, head_dim, state_size)
    # vllm/model_executor/models/config.py:813  DEFAULT_MAMBA_SSM_CACHE_DTYPE = "float32" (Nemotron-H)
    lay = layout("nvidia/NVIDIA-Nemotron-Nano-9B-v2")
    conv = (128 * 80 + 2 * 8 * 128) * (4 - 1) * 2
    temporal = 128 * 80 * 128 * 4
    assert kv.state_bytes_per_layer_per_gpu(lay.states[0]) == conv + temporal == 5_316_608
    assert kv.state_bytes_per_layer_per_gpu(lay.states[0], tp=2) == (conv + temporal) // 2
    plan = kv.hybrid_pages(lay, BF16)
    # 27 Mamba-2 + 4 attention layers: groups of 4, the Mamba ones padded to 7 groups (kv_cache_planning.py:535, 542)
    assert (plan.group_size, plan.state_groups) == (4, 7)
    block, page = hybrid_page(conv + temporal, gqa_bytes(8, 128, BF16))
    assert (plan.block_size, plan.padded_state_page) == (block, page)
    assert kv.state_bytes_per_sequence_per_gpu(lay, BF16) == 3 * 28 * page


def test_mamba2_groups_are_replicated_when_tp_does_not_divide_them():
    # mamba_utils.py:261-269  extra_groups_for_head_shards: 0 when n_groups % tp == 0, else tp - n_groups
    state = kv.StateLayers("mamba2", 1, 64 * 64, 3, 64, (64, 128), 4, n_groups=1, state_size=128)
    assert (
        kv.state_bytes_per_layer_per_gpu(state, tp=4)
        == (64 * 64 + 2 * 4 * 128) // 4 * 3 * 2 + 64 // 4 * 64 * 128 * 4
    )


def test_state_heads_must_split_evenly_across_tp():
    assert (
        kv.tp_problem(
            {"num_attention_heads": 24, "linear_num_value_heads": 48, "linear_num_key_heads": 16}, 8
        )
        is None
    )
    assert (
        kv.tp_problem({"num_attention_heads": 32, "linear_num_value_heads": 36}, 8)
        == "TP 8 does not divide the 36 linear_num_value_heads"
    )


# -- mixed-precision weights: gpt-oss ----------------------------------------------------------------------------
# vllm/model_executor/layers/quantization/mxfp4.py:94-107  linear layers load unquantized, RoutedExperts get MXFP4;
# mxfp4.py:212  mxfp4_block = 32 (4-bit values + one E8M0 byte per 32)
# Published: OpenAI's gpt-oss model card (arXiv 2508.10925) lists the checkpoints as 60.8 GiB (gpt-oss-120b) and
# 12.8 GiB (gpt-oss-20b), as fitmygpu.com/models/gpt-oss-120b quotes it ("lists a 60.8 GiB checkpoint").


@pytest.mark.parametrize(
    "hf_id, published_gib", [("openai/gpt-oss-120b", 60.8), ("openai/gpt-oss-20b", 12.8)]
)
def test_gpt_oss_weights_near_the_published_checkpoint(hf_id, published_gib):
    rec = recipe(hf_id)
    default = rec["variants"]["default"]
    weights = sizing.component_weights_bytes(rec, default)
    assert weights / GIB == pytest.approx(published_gib, rel=0.01)
    assert fit.weights_bytes(rec, default) == (weights, "hf_config components")


def test_gpt_oss_120b_components():
    rec = recipe("openai/gpt-oss-120b")
    experts = 36 * 128 * 3 * 2880 * 2880  # gate, up, down of 128 experts in 36 layers
    weights = sizing.component_weights_bytes(rec, rec["variants"]["default"])
    rest = parameter_count(rec["model"]["hf_config"]).total - experts
    assert weights == experts * (0.5 + 1 / 32) + rest * 2
    old = (
        rec["variants"]["default"]["vram_minimum_gb"] / sizing.OVERHEAD * 1e9
    )  # what fit used: 71 GB / 1.2
    assert old / GIB == pytest.approx(55.1, abs=0.1) and weights / GIB > 60


def test_only_the_declared_checkpoint_is_sized_per_component():
    rec = recipe("openai/gpt-oss-120b")
    assert (
        sizing.component_weights_bytes(rec, rec["variants"]["mxfp4_fp8"]) is None
    )  # AMD's own checkpoint
    assert sizing.component_weights_bytes(rec, {"precision": "bf16"}) is None
    plain = {
        **rec,
        "model": {
            **rec["model"],
            "hf_config": {
                k: v for k, v in rec["model"]["hf_config"].items() if k != "quantization_config"
            },
        },
    }
    assert sizing.component_weights_bytes(plain, rec["variants"]["default"]) is None


# -- scaffold --------------------------------------------------------------------------------------------------------


def test_scaffold_copies_the_exact_accounting_keys():
    config = {
        "model_type": "gemma4",
        "text_config": {
            "num_hidden_layers": 6,
            "num_attention_heads": 8,
            "num_key_value_heads": 4,
            "head_dim": 256,
            "hidden_size": 1024,
            "global_head_dim": 512,
            "num_global_key_value_heads": 2,
            "attention_k_eq_v": True,
            "num_kv_shared_layers": 2,
            "sliding_window": 512,
            "layer_types": ["sliding_attention"] * 5 + ["full_attention"],
            "vocab_size": 1000,
        },
    }
    hf = hf_config_from(config)
    assert {
        k: hf[k]
        for k in (
            "global_head_dim",
            "num_global_key_value_heads",
            "attention_k_eq_v",
            "num_kv_shared_layers",
        )
    } == {
        "global_head_dim": 512,
        "num_global_key_value_heads": 2,
        "attention_k_eq_v": True,
        "num_kv_shared_layers": 2,
    }
    dsa = hf_config_from(
        {
            "num_hidden_layers": 2,
            "kv_lora_rank": 512,
            "qk_rope_head_dim": 64,
            "index_topk": 2048,
            "index_head_dim": 128,
            "index_n_heads": 64,
            "mamba_ssm_dtype": "float32",
            "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]},
        }
    )
    assert (dsa["index_topk"], dsa["index_head_dim"], dsa["index_n_heads"]) == (2048, 128, 64)
    assert dsa["quantization_config"] == {"quant_method": "fp8"}


def test_scaffold_sizes_an_mxfp4_checkpoint_per_component():
    config = {**recipe("openai/gpt-oss-120b")["model"]["hf_config"], "model_type": "gpt_oss"}
    text = scaffold("openai/gpt-oss-120b", config).text
    assert "    quantization_config:\n      quant_method: mxfp4\n" in text
    exact = sizing.component_weights_bytes(
        {"model": {"model_id": "openai/gpt-oss-120b", "hf_config": hf_config_from(config)}},
        {"precision": "mxfp4"},
    )
    assert f"vram_minimum_gb: {math.ceil(exact / 1e9 * 1.2)}\n" in text


# -- the page formulas carry the state -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "hf_id, tp",
    [("Qwen/Qwen3.5-27B", 1), ("Qwen/Qwen3.5-27B", 2), ("nvidia/NVIDIA-Nemotron-Nano-9B-v2", 1)],
)
def test_page_formulas_count_the_state_like_fit(hf_id, tp):
    """fit.panel_entry publishes the per-request state and fit.panel_figures (site.js kvFit's reference)
    adds it, so the page's requests and longest length agree with fit_deployment for hybrid models."""
    rec = recipe(hf_id)
    profile = {"gpu_count": 8, "vram_gb": 640}
    for length, concurrency in ((4096, 1), (8192, 4), (32_768, 2)):
        r = fit.fit_deployment(
            rec,
            "default",
            "h100",
            profile,
            fit.Shape(tp=tp),
            evaluate_len=length,
            concurrency=concurrency,
        )
        entry = fit.panel_entry(r)
        lay = layout(hf_id)
        assert (
            entry["state_bytes_per_sequence_per_gpu"]
            == kv.state_bytes_per_sequence_per_gpu(lay, BF16, tp)
            > 0
        )
        got = fit.panel_figures(entry, length, concurrency)
        assert (got["requests"], got["longest"]) == (
            r.max_concurrency,
            r.max_model_len_at_concurrency,
        )
        without = fit.panel_figures(
            {**entry, "state_bytes_per_sequence_per_gpu": 0}, length, concurrency
        )
        assert without["requests"] > got["requests"]


def test_entries_without_state_are_unchanged():
    r = fit.fit_deployment(
        recipe("openai/gpt-oss-120b"),
        "default",
        "h100",
        {"gpu_count": 8, "vram_gb": 640},
        fit.Shape(),
    )
    assert (
        r.state_bytes_per_sequence_per_gpu == 0
        and "state_bytes_per_sequence_per_gpu" not in fit.panel_entry(r)
    )


def test_glm5_auto_kv_is_fp8_on_sm10x_and_ds_mla_on_sm12x():
    """GlmMoeDsaForCausalLM turns `auto` into fp8_e4m3 on SM10x (models/config.py:89-101), served by
    FLASHINFER_MLA_SPARSE with the plain 576-byte row (platforms/cuda.py:97-106,
    flashinfer_mla_sparse.py:84-90); SM12x serves sparse MLA as fp8_ds_mla, 656 bytes
    (platforms/cuda.py:133-137, mla_attention.py:370-375); Hopper keeps auto (16-bit)."""
    rec = recipe("zai-org/GLM-5")
    cfg = rec["model"]["hf_config"]
    assert kv.resolved_kv_cache_dtype(cfg, "auto", 10) == "fp8_e4m3"
    assert kv.resolved_kv_cache_dtype(cfg, "auto", 12) == "fp8_ds_mla"
    assert kv.resolved_kv_cache_dtype(cfg, "auto", 9) == "auto"
    v32 = recipe("deepseek-ai/DeepSeek-V3.2")["model"]["hf_config"]
    assert kv.resolved_kv_cache_dtype(v32, "auto", 10) == "auto"  # only GLM's config turns FP8 on
    b200 = {"gpu_count": 8, "vram_gb": 1440, "generation": "blackwell", "display_name": "B200"}
    r = fit.fit_deployment(rec, "default", "b200", b200, fit.Shape(tp=8))
    assert r.kv_bytes_per_token == 78 * (576 + 132) == 55_224
    rtx = {
        "gpu_count": 8,
        "vram_gb": 768,
        "generation": "blackwell",
        "display_name": "RTX Pro 6000 8x",
    }
    r12 = fit.fit_deployment(rec, "default", "rtx_pro_6000_8x", rtx, fit.Shape(tp=8))
    assert r12.kv_bytes_per_token == 78 * (656 + 132) == 61_464
    h200 = {"gpu_count": 8, "vram_gb": 1128, "generation": "hopper", "display_name": "H200"}
    assert fit.fit_deployment(rec, "default", "h200", h200, fit.Shape(tp=8)).kv_bytes_per_token == (
        78 * (1152 + 132)
    )


def test_mtp_layers_join_the_full_attention_groups():
    """--speculative-config method mtp runs num_nextn_predict_layers more attention layers whose
    cache shares the target's groups (kv_cache_interface.py:216-218)."""
    rec = recipe("deepseek-ai/DeepSeek-V3.2")
    h200 = {"gpu_count": 8, "vram_gb": 1128, "generation": "hopper", "display_name": "H200"}
    argv = [
        "--tensor-parallel-size",
        "8",
        "--speculative-config",
        '{"method":"mtp","num_speculative_tokens":1}',
    ]
    shape = fit.shape_from_argv(argv)
    assert shape.speculative == ("mtp", 1, None)
    plain = fit.fit_deployment(rec, "default", "h200", h200, fit.Shape(tp=8))
    mtp = fit.fit_deployment(rec, "default", "h200", h200, shape)
    assert mtp.kv_bytes_per_token_per_gpu == plain.kv_bytes_per_token_per_gpu * 62 / 61


def test_speculative_tokens_add_state_blocks_to_hybrids():
    """MambaSpec keeps 2 + num_speculative_blocks + checkpoint blocks per request in align mode
    (kv_cache_interface.py:1135-1138), and the conv state grows by the speculative tokens
    (mamba_utils.py)."""
    rec = recipe("Qwen/Qwen3.5-27B")
    h100 = {"gpu_count": 8, "vram_gb": 640, "generation": "hopper", "display_name": "H100"}
    plain = fit.fit_deployment(rec, "default", "h100", h100, fit.Shape())
    spec = fit.shape_from_argv(
        ["--speculative-config", '{"method":"mtp","num_speculative_tokens":2}']
    )
    r = fit.fit_deployment(rec, "default", "h100", h100, spec)
    lay = layout("Qwen/Qwen3.5-27B")
    groups = kv.cache_groups(lay, BF16, speculative_tokens=2, state_alignment=64, draft_layers=1)
    assert groups.state_blocks == 2 + 2 + 1
    assert (
        r.state_bytes_per_sequence_per_gpu == 5 * groups.term(kv.STATE).groups * groups.block_bytes
    )
    assert r.state_bytes_per_sequence_per_gpu > plain.state_bytes_per_sequence_per_gpu


def test_a_refused_tp_is_cannot_start_in_the_plan():
    """TP 3 does not divide Qwen3-8B's 32 heads: vLLM stops at startup (vllm/config/model.py:1557-1564,
    "must be divisible by tensor parallel size"); the plan's verdict says so instead of "fits"."""
    from recipes_site import plan

    rec = recipe("Qwen/Qwen3-8B")
    h200 = {"gpu_count": 8, "vram_gb": 1128, "generation": "hopper", "display_name": "H200"}
    p = plan.plan_of(
        plan.RecipePlans(rec), "default", h200, ["--tensor-parallel-size", "3"], gpus=3, nodes=1
    )
    assert p["verdict"] == plan.REFUSED and "32 attention heads" in p["refusal"]
    assert not plan.holds(p)
    assert "will not start" in plan.expand(p, "H200", 141)["reason"]


def test_block_size_follows_the_attention_backend():
    """Without --block-size vLLM takes the backend's smallest kernel block when it does not take 16
    (platforms/interface.py:720-722, 766-778): sparse MLA 64; dense MLA on SM10x (FLASHINFER_MLA) 32."""
    h200 = {"gpu_count": 8, "vram_gb": 1128, "generation": "hopper", "display_name": "H200"}
    b200 = {"gpu_count": 8, "vram_gb": 1440, "generation": "blackwell", "display_name": "B200"}
    v32 = fit.fit_deployment(
        recipe("deepseek-ai/DeepSeek-V3.2"), "default", "h200", h200, fit.Shape(tp=8)
    )
    assert v32.kv_block_size == 64
    # vLLM's "GPU KV cache size": num_blocks / cdiv(max_model_len, 64) x max_model_len
    blocks = int(v32.kv_cache_gib_per_gpu * GIB // (64 * v32.kv_bytes_per_token_per_gpu))
    served = v32.context_length
    assert v32.max_tokens == int(blocks / -(-served // 64) * served)
    r1 = fit.fit_deployment(
        recipe("deepseek-ai/DeepSeek-R1"), "default", "b200", b200, fit.Shape(tp=8)
    )
    assert r1.kv_block_size == 32
    llama = fit.fit_deployment(
        recipe("meta-llama/Llama-3.3-70B-Instruct"), "default", "b200", b200, fit.Shape(tp=8)
    )
    assert llama.kv_block_size == 16
    explicit = fit.fit_deployment(
        recipe("deepseek-ai/DeepSeek-V3.2"),
        "default",
        "h200",
        h200,
        fit.shape_from_argv(["-tp", "8", "--block-size", "128"]),
    )
    assert explicit.kv_block_size == 128
