"""The memory budget model, `recipes-site fit`, the engine's use of it and the hf_config checks."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml
from cli_kit import run

from recipes_site import fit, fit_report
from recipes_site.catalog import PROJECT_ROOT, load_catalog
from recipes_site.catalog.diagnostics import Level
from recipes_site.synthesis import ChoiceError, render_choice

GIB = 2**30
H100 = {
    "brand": "NVIDIA",
    "generation": "hopper",
    "gpu_count": 8,
    "vram_gb": 640,
    "vram_per_gpu_gb": 80,
}


LLAMA = "meta-llama/Llama-3.3-70B-Instruct"


# -- reading a command ------------------------------------------------------------------------------------


def test_shape_from_argv():
    shape = fit.shape_from_argv(
        [
            "vllm",
            "serve",
            "m",
            "--tensor-parallel-size",
            "2",
            "-tp",
            "4",
            "--data-parallel-size=8",
            "--enable-expert-parallel",
            "--kv-cache-dtype",
            "fp8",
            "--gpu-memory-utilization",
            "0.95",
            "--max-model-len",
            "32k",
            "--pipeline-parallel-size",
            "2",
            "--decode-context-parallel-size",
            "2",
            "--enforce-eager",
            "--max-num-seqs",
            "64",
        ]
    )
    assert (shape.tp, shape.dp, shape.pp, shape.dcp, shape.gpus) == (4, 8, 2, 2, 64)
    assert shape.expert_parallel and shape.enforce_eager
    assert (
        shape.kv_cache_dtype,
        shape.gpu_memory_utilization,
        shape.max_model_len,
        shape.max_num_seqs,
    ) == ("fp8", 0.95, 32000, 64)


def test_shape_defaults_and_auto_length():
    shape = fit.shape_from_argv(["vllm", "serve", "m", "--max-model-len", "auto"])
    assert shape == fit.Shape()
    assert (shape.tp, shape.gpu_memory_utilization, shape.kv_cache_dtype, shape.max_model_len) == (
        1,
        0.92,
        "auto",
        None,
    )  # vLLM 0.33 default


def test_underscore_spellings_are_read_as_vllm_reads_them():
    """vLLM's FlexibleArgumentParser turns underscores in an option's name into dashes, so a recipe's
    `--max_model_len=4096` sizes the engine as `--max-model-len=4096` would; values keep theirs."""
    dashed = fit.shape_from_argv(
        [
            "vllm",
            "serve",
            "m",
            "--tensor-parallel-size",
            "4",
            "--max-model-len=4096",
            "--kv-cache-dtype",
            "fp8_e4m3",
            "--gpu-memory-utilization",
            "0.8",
            "--enable-expert-parallel",
            "--max-num-seqs",
            "64",
        ]
    )
    underscored = fit.shape_from_argv(
        [
            "vllm",
            "serve",
            "m",
            "--tensor_parallel_size",
            "4",
            "--max_model_len=4096",
            "--kv_cache_dtype",
            "fp8_e4m3",
            "--gpu_memory_utilization",
            "0.8",
            "--enable_expert_parallel",
            "--max_num_seqs",
            "64",
        ]
    )
    assert underscored == dashed
    assert (dashed.tp, dashed.max_model_len, dashed.kv_cache_dtype, dashed.expert_parallel) == (
        4,
        4096,
        "fp8_e4m3",
        True,
    )
    # the last occurrence wins, whichever spelling it has
    assert (
        fit.shape_from_argv(["--tensor-parallel-size", "8", "--tensor_parallel_size", "2"]).tp == 2
    )


def test_an_argv_of_str_subclasses_or_numbers_leaves_plain_values_in_the_shape():
    """Synthesis's Placeholder tokens are str subclasses; the shape holds plain text for them, and a
    caller's numbers are read as their text."""

    class Text(str):
        pass

    shape = fit.shape_from_argv(
        ("vllm", "serve", Text("m"), Text("--kv-cache-dtype"), Text("fp8"), "-tp", Text("2"))
    )
    assert (shape.kv_cache_dtype, shape.tp) == ("fp8", 2) and type(shape.kv_cache_dtype) is str
    assert fit.shape_from_argv(("--max-model-len", 4096, "-tp", 2)) == fit.Shape(
        tp=2, max_model_len=4096
    )


# -- the overhead model ------------------------------------------------------------------------------------


def test_overhead_of_llama_tp8_on_h100_by_hand(recipes):
    cfg = recipes[LLAMA]["model"]["hf_config"]
    over = fit.overhead(cfg, fit.Shape(tp=8), 80)  # >= 70 GiB: 8192 tokens, 1024 sequences
    assert (over.max_num_batched_tokens, over.max_num_seqs) == (8192, 1024)
    hidden, heads, kv_heads, head_dim, inter = 8192, 64, 8, 128, 28672
    states = 2 * 8192 * hidden * 2
    attention = 8192 * (2 * heads + 2 * kv_heads) * head_dim / 8 * 2
    mlp = 8192 * 3 * inter / 8 * 2
    assert over.activations_gib == pytest.approx((states + max(attention, mlp)) / GIB)
    sampler = 1024 * 128_256 * fit.SAMPLER_BYTES_PER_LOGIT + states
    assert over.sampler_gib == pytest.approx(sampler / GIB)
    assert over.non_torch_gib == fit.NON_TORCH_GIB  # CUDA context and NCCL are outside the budget
    sizes = [1, 2, 4] + list(range(8, 256, 8)) + list(range(256, 513, 16))  # up to 512
    assert fit.cuda_graph_sizes(1024, fit.as_gpu(80)) == sizes
    largest = fit.forward_peak_bytes(cfg, 512, 8)
    graphs = largest + fit.CUDA_GRAPH_BYTES_PER_GRAPH * (2 * len(sizes) - 1)
    assert over.cuda_graphs_gib == pytest.approx(graphs / GIB)
    assert over.total_gib == pytest.approx(
        fit.NON_TORCH_GIB + max(over.activations_gib, over.sampler_gib) + over.cuda_graphs_gib
    )


def test_overhead_variants():
    cfg = {"hidden_size": 4096, "vocab_size": 32000, "intermediate_size": 11008}
    one = fit.overhead(cfg, fit.Shape(), 24)  # small GPU: 2048 tokens, 256 sequences
    assert (one.max_num_batched_tokens, one.max_num_seqs) == (2048, 256)
    assert one.sampler_gib == pytest.approx(
        (256 * 32000 * fit.SAMPLER_BYTES_PER_LOGIT + 2 * 2048 * 4096 * 2) / GIB
    )
    assert fit.overhead(cfg, fit.Shape(enforce_eager=True), 24).cuda_graphs_gib == 0
    assert fit.overhead(cfg, fit.Shape(), 24, version=(0, 20)).cuda_graphs_gib == 0  # not profiled
    older = fit.overhead(cfg, fit.Shape(), 24, version=(0, 10))  # the sorting sampler
    assert older.sampler_gib > one.sampler_gib
    assert fit.overhead(None, fit.Shape(), 80).activations_gib == fit.FALLBACK_ACTIVATIONS_GIB
    moe = {**cfg, "num_experts": 64, "moe_intermediate_size": 2048, "num_experts_per_tok": 8}
    # the fused-MoE workspace: 2048 tokens x 8 x (max(2048, 4096) + max(4096, 4096)) x 2 B, kept
    workspace = 2048 * 8 * (4096 + 4096) * 2
    assert fit.overhead(moe, fit.Shape(), 24).moe_workspace_gib == pytest.approx(workspace / GIB)
    o = fit.overhead(moe, fit.Shape(), 24)
    assert o.total_gib == pytest.approx(
        o.non_torch_gib
        + o.moe_workspace_gib
        + max(o.activations_gib, o.sampler_gib)
        + o.cuda_graphs_gib
    )
    # before the workspace manager the caches were part of the forward pass
    old_moe = fit.overhead(moe, fit.Shape(), 24, version=(0, 10))
    assert old_moe.moe_workspace_gib == 0 and old_moe.activations_gib > workspace / GIB
    # the token budget is capped at max_num_seqs x max_model_len, the sequences at the budget
    short = fit.overhead(cfg, fit.Shape(max_num_seqs=2), 80, max_model_len=1000)
    assert (short.max_num_batched_tokens, short.max_num_seqs) == (2000, 2)


def test_scheduler_defaults_follow_the_memory_torch_reports():
    assert fit.scheduler_defaults(fit.GpuMemory(180, 178.35)) == (16384, 1024)  # >= 160 GiB
    assert fit.scheduler_defaults(fit.GpuMemory(141, 139.7)) == (8192, 1024)
    assert fit.scheduler_defaults(fit.GpuMemory(32, 31.8)) == (2048, 256)
    gb10 = fit.GpuMemory(128, 121.69, (12, 1))  # DGX Spark keeps the small tier
    assert fit.scheduler_defaults(gb10) == (2048, 256)


def test_budget_uses_the_memory_the_driver_reports(ctx):
    h100 = fit.gpu_memory(ctx.profiles["h100"])
    assert (h100.nominal_gib, h100.total_gib, h100.compute_capability) == (80, 79.11, (9, 0))
    rtx = fit.gpu_memory(ctx.profiles["rtx_5090"])
    assert rtx.total_gib == pytest.approx(32607 / 1024)  # nvidia-smi's MiB when torch's is unknown
    assert fit.gpu_memory({"vram_per_gpu_gb": 24}).total_gib == 24  # nominal as the last resort


def test_mxfp4_experts_are_padded_per_backend(recipes):
    r = recipes["openai/gpt-oss-120b"]
    facts = fit.model_facts(r, "default")
    hopper = fit.GpuMemory(80, 79.11, (9, 0))
    blackwell = fit.GpuMemory(180, 178.35, (10, 0))
    shape = fit.Shape()
    assert (
        fit.mxfp4_padding_bytes(facts.cfg, facts.quantized_expert_bytes, shape, hopper, (0, 33))
        == 0
    )
    # TRT-LLM on SM100 (and Marlin on Hopper before 0.33): 2880 -> 2944 x 3072
    factor = 2944 * 3072 / (2880 * 2880)
    padded = facts.quantized_expert_bytes * (factor - 1)
    assert fit.mxfp4_padding_bytes(
        facts.cfg, facts.quantized_expert_bytes, shape, blackwell, (0, 33)
    ) == pytest.approx(padded)
    assert fit.mxfp4_padding_bytes(
        facts.cfg, facts.quantized_expert_bytes, shape, hopper, (0, 10)
    ) == pytest.approx(padded)


# -- the budget ---------------------------------------------------------------------------------------------


def test_llama_bf16_tp8_on_h100(recipes):
    r = fit.fit_deployment(recipes[LLAMA], "default", "h100", H100, fit.Shape(tp=8))
    # 70.6B parameters in BF16 counted from hf_config (more than the declared 168 GB / 1.2), over 8 GPUs
    weights = fit.component_bytes(recipes[LLAMA], "bf16") / 8 / GIB
    assert weights * 8 * GIB > 168 / 1.2 * 1e9
    assert r.budget_gib_per_gpu == pytest.approx(73.6)  # 80 GiB x vLLM's default 0.92
    assert r.weights_gib_per_gpu == pytest.approx(weights)
    kv_gib = 73.6 - weights - r.overhead.total_gib
    assert r.kv_cache_gib_per_gpu == pytest.approx(kv_gib)
    assert (r.kv_bytes_per_token, r.kv_bytes_per_token_per_gpu, r.kv_bytes_per_sequence_window) == (
        327_680,
        40_960,
        0,
    )
    # "GPU KV cache size": whole blocks of 16 tokens (kv_cache_utils.py:1132-1150; 131,072 is 8,192 blocks)
    assert r.max_tokens == int(kv_gib * GIB // (16 * 40_960)) * 16
    assert (
        r.max_concurrency == int(kv_gib * GIB // (40_960 * 131_072)) == r.max_concurrency_per_rank
    )
    assert r.context_fits and r.max_model_len == r.safe_max_model_len == 131_072


def test_gpu_memory_utilization_and_fp8_kv(recipes):
    base = fit.fit_deployment(recipes[LLAMA], "default", "h100", H100, fit.Shape(tp=8))
    more = fit.fit_deployment(
        recipes[LLAMA], "default", "h100", H100, fit.Shape(tp=8, gpu_memory_utilization=0.97)
    )
    assert more.kv_cache_gib_per_gpu == pytest.approx(
        base.kv_cache_gib_per_gpu + 4.0
    )  # 0.05 more of 80 GiB
    fp8 = fit.fit_deployment(
        recipes[LLAMA], "default", "h100", H100, fit.Shape(tp=8, kv_cache_dtype="fp8")
    )
    assert fp8.kv_bytes_per_token == 163_840
    assert 2 * base.max_tokens <= fp8.max_tokens <= 2 * base.max_tokens + 16


def test_context_that_does_not_fit_one_request(recipes):
    r = fit.fit_deployment(recipes[LLAMA], "default", "h100", H100, fit.Shape(tp=2))
    assert r.kv_cache_gib_per_gpu > 0 and not r.context_fits
    # whole blocks, less the one the block pool holds back (kv_cache_planning.py:1533-1556)
    longest = (int(r.kv_cache_gib_per_gpu * GIB // (16 * 163_840)) - 1) * 16
    assert r.max_model_len == longest and r.null_block_bytes == 16 * 163_840
    assert r.safe_max_model_len == longest // 1024 * 1024
    assert (
        r.evaluated_len == r.safe_max_model_len and r.max_concurrency == 1
    )  # at the length the engine renders
    asked = fit.fit_deployment(
        recipes[LLAMA], "default", "h100", H100, fit.Shape(tp=2), evaluate_len=131_072
    )
    assert asked.max_concurrency == 0


def test_weights_that_leave_no_room(recipes):
    r = fit.fit_deployment(recipes[LLAMA], "default", "h100", H100, fit.Shape(tp=1))
    assert r.kv_cache_gib_per_gpu < 0
    assert (r.max_tokens, r.max_model_len, r.safe_max_model_len, r.context_fits) == (0, 0, 0, False)
    assert "no room for a KV cache" in r.notes[-1]


def test_concurrency_question(recipes):
    r = fit.fit_deployment(recipes[LLAMA], "default", "h100", H100, fit.Shape(tp=8), concurrency=32)
    per_gpu = r.kv_cache_gib_per_gpu * GIB

    def need(length: int) -> int:  # whole blocks of 16 tokens
        return 32 * 40_960 * 16 * -(-length // 16)

    assert (
        need(r.max_model_len_at_concurrency) <= per_gpu < need(r.max_model_len_at_concurrency + 1)
    )
    short = fit.fit_deployment(
        recipes[LLAMA], "default", "h100", H100, fit.Shape(tp=8), evaluate_len=8192
    )
    assert short.max_concurrency == int(per_gpu // (40_960 * 8192))


def test_mla_keeps_the_whole_latent_per_gpu(recipes):
    r = fit.fit_deployment(
        recipes["deepseek-ai/DeepSeek-R1-0528"],
        "default",
        "h200",
        {"gpu_count": 8, "vram_gb": 1128, "vram_per_gpu_gb": 141},
        fit.Shape(tp=8),
    )
    assert r.kv_bytes_per_token == r.kv_bytes_per_token_per_gpu == 70_272
    assert any("whole latent" in n for n in r.notes)


def test_data_parallel_ranks_multiply_concurrency_and_split_experts(recipes):
    recipe = recipes["Qwen/Qwen3-30B-A3B"]
    dep = fit.fit_deployment(recipe, "default", "h100", H100, fit.Shape(dp=8, expert_parallel=True))
    total = 74 / 1.2 * 1e9
    share = fit.expert_fraction(recipe["model"]["hf_config"])
    assert 0.9 < share < 1
    assert dep.weights_gib_per_gpu == pytest.approx((total * (1 - share) + total * share / 8) / GIB)
    assert dep.kv_bytes_per_token_per_gpu == 98_304  # attention is data parallel: all KV heads
    assert dep.max_concurrency == 8 * dep.max_concurrency_per_rank > 0
    plain_dp = fit.fit_deployment(recipe, "default", "h100", H100, fit.Shape(dp=8))
    assert plain_dp.weights_gib_per_gpu == pytest.approx(
        total / GIB
    )  # no expert parallelism: a full copy per rank


def test_windowed_model_reserves_the_window_and_the_tokens_in_flight(recipes):
    """gemma-3: 52 sliding layers fill 6 groups of 10 (kv_cache_planning.py:521-542); each keeps
    cdiv(1023 + 2 x 8192, 16) + 1 blocks per request under async scheduling (vllm/config/vllm.py:587-609,
    kv_cache_interface.py:938-944)."""
    r = fit.fit_deployment(recipes["google/gemma-3-27b-it"], "default", "h100", H100, fit.Shape())
    assert r.kv_bytes_per_sequence_window == 52 * 8192 * 1024 and r.prefill_chunk == 8192
    page = 16 * 8192
    assert r.windows_per_gpu == [
        {
            "window": 1024,
            "layers": 52,
            "kind": "sliding_attention",
            "tokens": 1023 + 2 * 8192,
            "block_size": 16,
            "block_bytes": 6 * 10 * page,
            "extra_blocks": 1,
            "bytes_per_token": 60 * 8192,
        }
    ]
    length = r.evaluated_len
    blocks = -(-length // 16) + 6 * (-(-(1023 + 2 * 8192) // 16) + 1)
    assert r.max_concurrency == int(r.kv_cache_gib_per_gpu * GIB // (blocks * 10 * page))
    eager = fit.fit_deployment(
        recipes["google/gemma-3-27b-it"],
        "default",
        "h100",
        H100,
        fit.Shape(async_scheduling=False),
    )
    assert eager.windows_per_gpu[0]["tokens"] == 1023 + 8192
    # PP keeps PP + 1 batches in flight with the V2 model runner; Ray does not schedule asynchronously
    for argv, batches in (
        (["--pipeline-parallel-size", "2"], 3),
        (["--distributed-executor-backend", "ray"], 1),
        (["--no-async-scheduling"], 1),
        (["--async-scheduling"], 2),
    ):
        shape = fit.shape_from_argv(argv)
        assert fit.max_concurrent_batches(shape) == batches, argv


def test_without_hf_config_it_is_weights_only(recipes):
    recipe = copy.deepcopy(recipes[LLAMA])
    del recipe["model"]["hf_config"]
    r = fit.fit_deployment(recipe, "default", "h100", H100, fit.Shape(tp=8))
    assert r.missing_facts and r.missing_facts[0].startswith("model.hf_config")
    assert r.kv_bytes_per_token is None and r.max_tokens is None and r.max_model_len is None
    assert r.weights_gib_per_gpu == pytest.approx(168 / 1.2 * 1e9 / 8 / GIB)
    assert r.overhead.activations_gib == fit.FALLBACK_ACTIVATIONS_GIB
    assert "weights-only" in r.notes[-1]


# -- the engine ---------------------------------------------------------------------------------------------


def _flag(argv, flag):
    return argv[argv.index(flag) + 1] if flag in argv else None


def test_engine_adds_a_safe_max_model_len_when_the_context_does_not_fit(ctx, recipes):
    # BF16 Llama on one B200 GPU (the reference's auto-fit TP 1): 131,072 tokens need 40 GiB of KV
    r = render_choice(ctx, recipes[LLAMA], "default", "b200", "single_node_tp")
    argv = r.single.argv
    assert _flag(argv, "--tensor-parallel-size") == "1"
    safe = int(_flag(argv, "--max-model-len"))
    # sized with the recipe's speculative-decoding feature on, so that toggling it keeps a command
    # that starts (fit.recipe_speculatives: the recipe has one, its EAGLE-3 head)
    specs = fit.recipe_speculatives(recipes[LLAMA])
    assert len(specs) == 1
    spec = specs[0]
    assert spec and spec[0] == "eagle3"
    result = fit.fit_deployment(
        recipes[LLAMA], "default", "b200", ctx.profiles["b200"], fit.Shape(speculative=spec)
    )
    assert not result.context_fits
    assert safe % 1024 == 0 and safe <= result.max_model_len < safe + 1024
    assert len(r.notes) == 1 and r.notes[0].startswith(
        f"--max-model-len {safe}: one 131,072-token request"
    )


def test_engine_leaves_fitting_commands_alone(ctx, recipes):
    r = render_choice(ctx, recipes[LLAMA], "default", "h100", "single_node_tp")
    assert "--max-model-len" not in r.single.argv and r.notes == ()


def _without(argv: tuple, flag: str) -> tuple:
    if flag not in argv:
        return argv
    i = argv.index(flag)
    return argv[:i] + argv[i + 2 :]


def test_engine_only_ever_adds_max_model_len_or_a_raised_utilization(ctx, recipes):
    """The engine adds `--max-model-len` where the context does not fit, and
    `--gpu-memory-utilization 0.95` only where vLLM's default cannot start at all: a verdict that
    needs a non-default utilization passes it."""
    from recipes_site.synthesis import synthesize_recipe

    ids = set(recipes)
    added = raised = 0
    for hf_id, recipe in recipes.items():
        plain = fit_report._strip_hf_config(recipe)
        a, b = synthesize_recipe(ctx, hf_id, plain, ids), synthesize_recipe(ctx, hf_id, recipe, ids)
        for ta, tb in zip(a.trees, b.trees, strict=True):
            for ha, hb in zip(ta.by_hardware, tb.by_hardware, strict=True):
                for ra, rb in zip(
                    (ha.recommended,) + ha.alternatives,
                    (hb.recommended,) + hb.alternatives,
                    strict=True,
                ):
                    pa, pb = ra.main_process, rb.main_process
                    if pa.argv != pb.argv:
                        added += 1
                        if "--gpu-memory-utilization" not in pa.argv:
                            raised += "--gpu-memory-utilization" in pb.argv
                            assert _flag(pb.argv, "--gpu-memory-utilization") in (None, "0.95")
                            stripped = _without(pb.argv, "--gpu-memory-utilization")
                        else:
                            stripped = pb.argv
                        assert _without(stripped, "--max-model-len") == pa.argv
                        assert rb.notes
    assert added > 0 and raised > 0


def test_engine_raises_utilization_only_when_the_default_cannot_start(ctx, recipes):
    kimi = recipes["moonshotai/Kimi-K2.6"]
    r = render_choice(ctx, kimi, "default", "h100", "single_node_tp")
    assert _flag(r.single.argv, "--gpu-memory-utilization") == "0.95"
    assert any("no request fits" in note for note in r.notes)
    # the plan reads the command as rendered: it starts at 0.95
    plain = fit.fit_deployment(kimi, "default", "h100", ctx.profiles["h100"], fit.Shape(tp=8))
    assert plain.max_model_len is not None and plain.max_model_len < 1024
    # a command that sets its own utilization is left alone
    own = copy.deepcopy(kimi)
    own["model"]["base_args"] = [
        *own["model"].get("base_args", []),
        "--gpu-memory-utilization",
        "0.9",
    ]
    r = render_choice(ctx, own, "default", "h100", "single_node_tp")
    assert r.single.argv.count("--gpu-memory-utilization") == 1
    assert _flag(r.single.argv, "--gpu-memory-utilization") == "0.9"
    assert fit.sets_flag(
        ("vllm", "serve", "m", "--gpu_memory_utilization=0.8"), "--gpu-memory-utilization"
    )


def test_engine_respects_a_recipe_max_model_len_that_fits(ctx, recipes):
    recipe = copy.deepcopy(recipes[LLAMA])
    recipe["model"]["base_args"] = ["--max-model-len", "32768"]
    r = render_choice(ctx, recipe, "default", "b200", "single_node_tp")
    assert _flag(r.single.argv, "--max-model-len") == "32768" and r.notes == ()
    recipe["model"]["base_args"] = ["--max-model-len", "131072"]
    r = render_choice(ctx, recipe, "default", "b200", "single_node_tp")
    assert int(_flag(r.single.argv, "--max-model-len")) < 131072
    assert r.single.argv.count("--max-model-len") == 1


ODD_HF = {
    "num_hidden_layers": 28,
    "num_attention_heads": 28,
    "num_key_value_heads": 4,
    "head_dim": 128,
    "hidden_size": 3584,
    "vocab_size": 152064,
    "intermediate_size": 18944,
    "max_position_embeddings": 32768,
}


def odd_recipe(recipes) -> dict:
    recipe = copy.deepcopy(recipes["Qwen/Qwen3-8B"])
    recipe["model"].update(model_id="acme/Odd-7B", context_length=32768, hf_config=dict(ODD_HF))
    recipe["variants"]["default"]["vram_minimum_gb"] = (
        100  # more than one H100: auto-fit TP = 8 GPUs
    )
    recipe["compatible_strategies"] = ["single_node_tp", "single_node_tep"]
    return recipe


def test_engine_never_renders_a_tp_the_heads_do_not_allow(ctx, recipes):
    recipe = odd_recipe(recipes)
    assert (
        _flag(
            render_choice(ctx, recipe, "default", "h100", "single_node_tp").single.argv,
            "--tensor-parallel-size",
        )
        == "4"
    )
    assert (
        _flag(
            render_choice(ctx, recipe, "default", "h100", "single_node_tep").single.argv,
            "--tensor-parallel-size",
        )
        == "4"
    )
    plain = fit_report._strip_hf_config(recipe)
    assert (
        _flag(
            render_choice(ctx, plain, "default", "h100", "single_node_tp").single.argv,
            "--tensor-parallel-size",
        )
        == "8"
    )


def test_fit_choice_reports_the_tp_correction(ctx, recipes):
    r = fit_report.fit_choice(
        ctx, odd_recipe(recipes), "default", "h100", "single_node_tp", with_plan=False
    )
    assert (
        r.tp == 4
        and r.notes[0] == "TP 8 does not divide the 28 attention heads: the engine renders TP 4"
    )


# -- fit_choice and the throughput plan ---------------------------------------------------------------------


def test_fit_choice_reads_the_rendered_command(ctx, recipes):
    r = fit_report.fit_choice(
        ctx,
        recipes["deepseek-ai/DeepSeek-R1-0528"],
        "default",
        "h100",
        "multi_node_dep",
        2,
        with_plan=False,
    )
    assert (r.strategy, r.nodes, r.shape.dp, r.tp, r.shape.expert_parallel) == (
        "multi_node_dep",
        2,
        16,
        1,
        True,
    )
    over = fit_report.fit_choice(
        ctx,
        recipes[LLAMA],
        "default",
        "h100",
        tp=4,
        kv_cache_dtype="fp8",
        gpu_memory_utilization=0.8,
        with_plan=False,
    )
    assert (over.tp, over.shape.kv_cache_dtype, over.budget_gib_per_gpu) == (
        4,
        "fp8",
        pytest.approx(79.11 * 0.8),  # the H100's reported total, not its nominal 80 GiB
    )


def test_fit_choice_plans_the_command_it_describes(ctx, recipes):
    """`recipes-site fit` reports the plan (plan.py) of the command `recipes-site command` prints:
    Llama BF16 at TP 8 uses the whole H100 node, so there are no replicas to add."""
    r = fit_report.fit_choice(ctx, recipes[LLAMA], "default", "h100")
    assert (r.plan["gpus"], r.plan.get("nodes", 1), r.plan["tp"], r.plan["verdict"]) == (
        8,
        1,
        8,
        "fits",
    )
    assert r.replicas is None


def test_fit_choice_replicas_of_a_one_gpu_command(ctx, recipes):
    r = fit_report.fit_choice(ctx, recipes["Qwen/Qwen3-8B"], "default", "h100")
    assert (r.plan["gpus"], r.plan["tp"], len(r.replicas)) == (1, 1, 8)
    assert [c["port"] for c in r.replicas] == list(range(8000, 8008))
    for i, c in enumerate(r.replicas):
        assert c["gpus"] == str(i)
        assert c["command"].startswith(f"export CUDA_VISIBLE_DEVICES={i}\nvllm serve Qwen/Qwen3-8B")
        assert c["command"].endswith(f" \\\n  --port {c['port']}")


def test_fit_choice_says_when_the_weights_do_not_fit(ctx, recipes):
    r = fit_report.fit_choice(
        ctx, recipes["deepseek-ai/DeepSeek-R1-0528"], "default", "h100", "single_node_tp"
    )
    assert r.plan["verdict"] == "over" and r.replicas is None
    assert r.plan["weights_gib_per_gpu"] > r.plan["budget_gib_per_gpu"]
    assert "cannot load the model" in r.plan_reason


# -- the command line ---------------------------------------------------------------------------------------

REQUIRED = {
    "kv_bytes_per_token",
    "kv_bytes_per_sequence_window",
    "tp",
    "kv_bytes_per_token_per_gpu",
    "weights_gib_per_gpu",
    "kv_cache_gib_per_gpu",
    "max_tokens",
    "max_concurrency",
    "max_model_len",
}


def test_cli_fit_json():
    r = run("fit", "openai/gpt-oss-120b", "--hardware", "h100", "--json", "--concurrency", "16")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert REQUIRED <= set(doc)
    assert (doc["kv_bytes_per_token"], doc["kv_bytes_per_sequence_window"], doc["tp"]) == (
        36_864,
        4_718_592,
        1,
    )
    assert doc["concurrency"] == 16 and doc["max_model_len_at_concurrency"] > 0
    assert (doc["plan"]["gpus"], doc["plan"]["verdict"], len(doc["replicas"])) == (1, "fits", 8)


def test_cli_fit_sizes_with_the_budget_the_command_raises():
    """The engine raised --gpu-memory-utilization to 0.95 so a KV cache fits; fit reports that
    budget, not vLLM's default, so its verdict agrees with the plan line."""
    r = run("fit", "Qwen/Qwen3-32B", "--hardware", "rtx_5090_2x", "--variant", "nvfp4", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["gpu_memory_utilization"] == 0.95
    assert doc["kv_cache_gib_per_gpu"] > 0 and doc["safe_max_model_len"] > 0


def test_cli_fit_text_and_overrides():
    r = run(
        "fit",
        LLAMA,
        "--hardware",
        "h100",
        "--tp",
        "2",
        "--kv-cache-dtype",
        "fp8",
        "--max-model-len",
        "8192",
    )
    assert r.returncode == 0, r.stderr
    first = r.stdout.splitlines()[0]
    assert first.startswith(f"{LLAMA} · default (bf16) · h100 · single_node_tp") and first.endswith(
        "TP 2"
    )
    assert "163,840 B (GQA, fp8 KV)" in r.stdout and "requests of 8,192 tokens at once" in r.stdout
    # the plan is the overridden command's: TP 2 leaves too little KV cache for the recipe's 131,072 tokens
    assert "plan: 2 GPUs on 1 node, TP 2: cannot start." in r.stdout


def test_cli_fit_without_hf_config_names_the_missing_facts(tmp_path):
    root = tmp_path / "root"
    (root / "models" / "acme").mkdir(parents=True)
    data = yaml.safe_load((PROJECT_ROOT / "models" / "Qwen" / "Qwen3-8B.yaml").read_text())
    text = (PROJECT_ROOT / "models" / "Qwen" / "Qwen3-8B.yaml").read_text()
    start = text.index("  # config.json facts")
    end = text.index("\nvariants:")
    (root / "models" / "acme" / "Tiny-8B.yaml").write_text(
        text[:start].replace('model_id: "Qwen/Qwen3-8B"', 'model_id: "acme/Tiny-8B"') + text[end:]
    )
    assert data["model"]["hf_config"]
    r = run("fit", "acme/Tiny-8B", "--root", str(root), "--hardware", "h100", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["kv_bytes_per_token"] is None and doc["missing_facts"][0].startswith(
        "model.hf_config"
    )
    assert doc["weights_only"]["tensor_parallel"] == 1 and doc["kv_cache_gib_per_gpu"] > 0
    text_out = run("fit", "acme/Tiny-8B", "--root", str(root), "--hardware", "h100")
    assert (
        "missing facts          model.hf_config" in text_out.stdout
        and "weights-only sizing" in text_out.stdout
    )


@pytest.mark.parametrize(
    "args, code, message",
    [
        (("fit", "acme/Nothing"), 1, "no recipe or checkpoint"),
        (("fit", LLAMA, "--hardware", "tpu9"), 1, "unknown hardware"),
        (("fit", LLAMA, "--gpu-memory-utilization", "1.5"), 2, "fraction"),
        (("fit", LLAMA, "--kv-cache-dtype", "int4"), 2, "invalid choice"),
        (("fit", LLAMA, "--tp", "0"), 2, "positive"),
    ],
)
def test_cli_fit_errors(args, code, message):
    r = run(*args)
    assert r.returncode == code and message in r.stderr


def test_cli_command_prints_the_engine_note_on_stderr():
    r = run("command", LLAMA, "--hardware", "b200", "--strategy", "single_node_tp")
    assert r.returncode == 0
    assert r.stderr.startswith("# note: --max-model-len ")
    assert r.stdout.startswith("vllm serve") and "--max-model-len" in r.stdout
    assert run("command", LLAMA, "--hardware", "h100").stderr == ""


def test_fit_refuses_a_multi_node_tp_the_heads_do_not_allow(ctx, recipes):
    # 3 nodes of 8 GPUs: TP 24 does not divide DeepSeek's 128 heads; the engine does not re-shape
    # multi-node deployments, so the choice is refused (render_choice), naming the counts that work
    with pytest.raises(
        ChoiceError,
        match=r"TP 24 does not divide the 128 attention heads; node counts that work: 2, 4, 8, 16",
    ):
        fit_report.fit_choice(
            ctx,
            recipes["deepseek-ai/DeepSeek-R1-0528"],
            "default",
            "h200",
            "multi_node_tp",
            3,
            with_plan=False,
        )
    # an explicit --tp is taken as asked, and fit says vLLM would refuse it
    r = fit_report.fit_choice(
        ctx,
        recipes["deepseek-ai/DeepSeek-R1-0528"],
        "default",
        "h200",
        "multi_node_tp",
        4,
        tp=24,
        with_plan=False,
    )
    assert "TP 24 does not divide the 128 attention heads: vLLM refuses this TP size" in r.notes


# -- validate: model.hf_config -------------------------------------------------------------------------------


def _root(tmp_path, mutate) -> Path:
    root = tmp_path / "root"
    (root / "models" / "acme").mkdir(parents=True)
    text = (
        (PROJECT_ROOT / "models" / "Qwen" / "Qwen3-8B.yaml")
        .read_text()
        .replace('model_id: "Qwen/Qwen3-8B"', 'model_id: "acme/Tiny-8B"')
    )
    (root / "models" / "acme" / "Tiny-8B.yaml").write_text(mutate(text))
    return root


def diags_for(tmp_path, mutate):
    """The recipe's diagnostics about its model and variants (the copy's related_recipes dangle)."""
    _, diags = load_catalog(_root(tmp_path, mutate))
    return [
        d for d in diags if d.path.endswith("Tiny-8B.yaml") and not d.key_path.startswith("meta.")
    ]


def _warn(diags, key):
    found = [d for d in diags if d.key_path == key and d.level is Level.WARNING]
    assert len(found) == 1, [d.format() for d in diags]
    return found[0]


def test_validate_clean_hf_config(tmp_path):
    assert diags_for(tmp_path, lambda t: t) == []


def test_validate_unknown_hf_config_key(tmp_path):
    d = _warn(
        diags_for(
            tmp_path,
            lambda t: t.replace(
                "    head_dim: 128\n",
                "    head_dim: 128\n    rope_theta: 1000000\n    hiden_size: 1\n",
            ),
        ),
        "model.hf_config.hiden_size",
    )
    assert (
        d.message == "hf_config key 'hiden_size' is not read by recipes-site"
        and "hidden_size" in d.hint
    )


def test_validate_context_contradiction(tmp_path):
    d = _warn(
        diags_for(
            tmp_path, lambda t: t.replace("  context_length: 40960", "  context_length: 131072")
        ),
        "model.context_length",
    )
    assert d.message == "context_length 131072 contradicts hf_config.max_position_embeddings 40960"


def test_validate_architecture_contradiction(tmp_path):
    d = _warn(
        diags_for(
            tmp_path,
            lambda t: t.replace("    head_dim: 128\n", "    head_dim: 128\n    num_experts: 64\n"),
        ),
        "model.architecture",
    )
    assert "dense but hf_config has 64 routed experts" in d.message


def test_validate_missing_facts(tmp_path):
    d = _warn(
        diags_for(tmp_path, lambda t: t.replace("    num_hidden_layers: 36\n", "")),
        "model.hf_config",
    )
    assert d.message == "hf_config lacks num_hidden_layers" and "weights only" in d.hint


def test_validate_layer_types(tmp_path):
    diags = diags_for(
        tmp_path,
        lambda t: t.replace(
            "    head_dim: 128\n",
            "    head_dim: 128\n    layer_types: ["
            + ", ".join(["sliding_attention"] * 35 + ["fancy_attention"])
            + "]\n",
        ),
    )
    assert (
        "unknown layer type 'fancy_attention'"
        in _warn(diags, "model.hf_config.layer_types[35]").message
    )
    assert (
        _warn(diags, "model.hf_config.layer_types").message
        == "sliding_attention layers but no sliding_window"
    )


def test_validate_bad_type_is_an_error(tmp_path):
    diags = diags_for(
        tmp_path, lambda t: t.replace("    num_hidden_layers: 36", '    num_hidden_layers: "36"')
    )
    assert [d.key_path for d in diags if d.level is Level.ERROR] == [
        "model.hf_config.num_hidden_layers"
    ]


def test_validate_tp_the_heads_do_not_allow(tmp_path):
    def odd(text):
        text = text.replace(
            "    num_attention_heads: 32\n", "    num_attention_heads: 28\n"
        ).replace("    num_key_value_heads: 8\n", "    num_key_value_heads: 4\n")
        text = text.replace("    vram_minimum_gb: 20\n", "    vram_minimum_gb: 20\n    tp: 8\n", 1)
        return text.replace(
            "vram_minimum_gb: 20", "vram_minimum_gb: 150", 1
        )  # > one H100 and one H200

    diags = diags_for(tmp_path, odd)
    pinned = _warn(diags, "variants.default.tp")
    assert (
        pinned.message == "TP 8 does not divide the 28 attention heads; vLLM refuses this TP size"
    )
    assert pinned.hint == "use TP 4"
    node = _warn(diags, "model.hf_config.num_attention_heads")
    assert (
        node.message
        == "on h100, h200, h100_pcie, h20, a100_80gb, a100_40gb, a100_80gb_pcie, a100_40gb_pcie, "
        "l40s, l4, a10g, rtx_pro_6000_8x, mi250x the command would need TP 8: TP 8 does not "
        "divide the 28 attention heads"
    )
    assert node.hint.startswith("the engine renders TP 4 there instead")


def test_validate_multi_node_tp_the_heads_do_not_allow(tmp_path):
    def odd(text):
        text = text.replace("    num_attention_heads: 32\n", "    num_attention_heads: 40\n")
        return text.replace("  - single_node_tp\n", "  - single_node_tp\n  - multi_node_tp\n", 1)

    node = _warn(diags_for(tmp_path, odd), "model.hf_config.num_attention_heads")
    # 40 heads: TP 8 on one node is fine, TP 16 on two nodes of 8 GPUs is not
    assert node.message.startswith("multi-node TP on 2 nodes of h100, h200, h20, a100_80gb")
    assert node.message.endswith("would need TP 16: TP 16 does not divide the 40 attention heads")


def test_cli_fit_a_refused_tp_cannot_start():
    """`fit --tp 3` for 32 attention heads: vLLM stops at startup (vllm/config/model.py:1557-1564), so
    the plan, the text and the JSON say "cannot start", never "fits"."""
    r = run("fit", "Qwen/Qwen3-8B", "--hardware", "h100", "--tp", "3")
    assert r.returncode == 0, r.stderr
    assert "TP 3: cannot start. TP 3 does not divide the 32 attention heads" in r.stdout
    assert "TP 3: fits" not in r.stdout and "tokens: cannot start: TP 3 does not divide" in r.stdout
    assert ": fits" not in r.stdout
    j = run("fit", "Qwen/Qwen3-8B", "--hardware", "h100", "--tp", "3", "--json")
    doc = json.loads(j.stdout)
    assert doc["plan"]["verdict"] == "refused" and "will not start" in doc["plan_reason"]


def test_engine_length_holds_with_the_speculative_feature_on_or_off(recipes):
    """Draft layers cost KV cache, and the page toggles speculative decoding without re-sizing the
    command: the engine's --max-model-len is the one that fits with the tightest draft a reader
    can switch on (synthesis passes them as `drafts`)."""
    rec = recipes["Qwen/Qwen3.5-27B"]
    profile = {"gpu_count": 8, "vram_gb": 640, "generation": "hopper", "display_name": "H100"}
    base = ("--tensor-parallel-size", "1", "--gpu-memory-utilization", "0.85")
    draft = '{"method":"mtp","num_speculative_tokens":1}'
    heavier = '{"method":"mtp","num_speculative_tokens":3}'
    on = fit.engine_sizing(rec, "default", "h100", profile, base + ("--speculative-config", draft))
    off = fit.engine_sizing(rec, "default", "h100", profile, base, (draft,))
    assert off.args == on.args and on.args[0] == "--max-model-len"
    both = fit.engine_sizing(rec, "default", "h100", profile, base, (draft, heavier))
    assert int(both.args[1]) < int(on.args[1])  # sized for the heavier of the two
    # with no draft to switch on, the draft-free command gets a longer length
    bare = fit.engine_sizing(rec, "default", "h100", profile, base)
    assert int(bare.args[1]) > int(on.args[1])
