"""The speed roofline (recipes_site/speed.py) and its calibration against public measurements."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from recipes_site import speed, speed_calibration

ROOT = Path(__file__).resolve().parent.parent
PROFILES = yaml.safe_load((ROOT / "taxonomy.yaml").read_text())["hardware_profiles"]
DATA = speed_calibration.load()

DENSE_8B = {
    "num_hidden_layers": 36,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "hidden_size": 4096,
    "intermediate_size": 12288,
    "vocab_size": 151936,
}
MOE = DATA["shapes"]["gpt_oss_120b"]["hf_config"]


def _inputs(cfg=DENSE_8B, precision="bf16", hw="h100", tp=1, **layout):
    shape = speed.model_shape(cfg, precision)
    gpu = speed.gpu_speed(PROFILES[hw], precision)
    assert shape is not None and gpu is not None
    return shape, gpu, speed.Layout(tp=tp, kv_bytes_per_token_per_gpu=73728 / tp, **layout)


# -- the formulas -----------------------------------------------------------------------------


def test_per_user_speed_falls_and_total_rises_with_concurrency():
    shape, gpu, layout = _inputs(kv_tokens=400_000, max_num_seqs=1024)
    est = speed.estimate(shape, gpu, layout)
    assert est.levels[:4] == (1, 8, 32, 128)
    assert list(est.per_user) == sorted(est.per_user, reverse=True)
    assert list(est.total) == sorted(est.total)
    assert est.total[0] == pytest.approx(est.per_user[0])


def test_kv_bounded_maximum_is_the_requests_the_cache_holds():
    shape, gpu, layout = _inputs(kv_tokens=100_000)
    est = speed.estimate(shape, gpu, layout)
    assert est.kv_max == 100_000 // (speed.PROMPT_TOKENS + speed.OUTPUT_TOKENS)
    assert est.levels[-1] == est.kv_max
    # 128 requests do not all fit: the batch stops at what the cache holds, the rest wait
    assert est.total[est.levels.index(128)] == pytest.approx(est.total[-1])


def test_moe_streams_only_the_experts_its_tokens_use():
    shape = speed.model_shape(MOE, "mxfp4")
    assert shape is not None and shape.experts == 128 and shape.experts_per_token == 4
    assert shape.active_params < 0.1 * (shape.expert_bytes / 0.53125)  # 5B of 117B per token
    one = speed.experts_touched(shape, 1)
    assert one == pytest.approx(4 / 128)
    assert speed.experts_touched(shape, 64) > 0.8  # a large batch touches nearly every expert
    gpu = speed.gpu_speed(PROFILES["h100"], "mxfp4")
    assert gpu is not None
    layout = speed.Layout(tp=8)
    assert speed.decode_step_s(shape, gpu, layout, 1, 1024) < speed.decode_step_s(
        shape, gpu, layout, 64, 1024
    )


def test_moe_decode_is_faster_than_a_dense_model_of_its_total_size():
    moe = speed.model_shape(MOE, "mxfp4")
    assert moe is not None
    dense = replace(moe, dense_bytes=moe.dense_bytes + moe.expert_bytes, expert_bytes=0, experts=0)
    gpu = speed.gpu_speed(PROFILES["h100"], "mxfp4")
    assert gpu is not None
    layout = speed.Layout(tp=1)
    assert speed.decode_step_s(moe, gpu, layout, 1, 1024) < 0.3 * speed.decode_step_s(
        dense, gpu, layout, 1, 1024
    )


def test_tensor_parallel_adds_all_reduces_at_interconnect_bandwidth():
    shape, gpu, _ = _inputs()
    free = replace(gpu, link_gbps=1e12)
    cal = replace(speed.CALIBRATION, allreduce_latency_s=0.0)
    tp1 = speed.Layout(tp=1)
    tp2 = speed.Layout(tp=2)
    # without communication cost TP=2 halves the bytes each GPU reads
    no_comm = speed.decode_step_s(shape, free, tp2, 1, 1024, cal)
    with_comm = speed.decode_step_s(shape, gpu, tp2, 1, 1024)
    assert with_comm > no_comm
    # 2 all-reduces per layer, each at least the per-call latency
    assert with_comm - speed.decode_step_s(shape, gpu, tp2, 1, 1024, cal) == pytest.approx(
        2 * shape.layers * speed.CALIBRATION.allreduce_latency_s
    )
    assert speed.decode_step_s(shape, gpu, tp1, 1, 1024, cal) > no_comm
    # a slower link costs more at a larger batch
    pcie = replace(gpu, link_gbps=64.0)
    assert speed.decode_step_s(shape, pcie, tp2, 128, 1024) > speed.decode_step_s(
        shape, gpu, tp2, 128, 1024
    )


def test_prefill_is_compute_bound_at_the_formats_peak():
    shape, gpu, layout = _inputs()
    fp8_shape, fp8_gpu, _ = _inputs(precision="fp8")
    assert fp8_gpu.tflops == 2 * gpu.tflops  # H100 lists FP8 as native
    long = speed.prefill_s(shape, gpu, layout, 8192)
    assert speed.prefill_s(fp8_shape, fp8_gpu, layout, 8192) < 0.6 * long
    assert long > 6 * speed.prefill_s(shape, gpu, layout, 1024)  # the attention term grows as L^2
    a100 = speed.gpu_speed(PROFILES["a100_80gb"], "fp8")  # Ampere: FP8 is weight-only
    assert a100 is not None and a100.tflops == PROFILES["a100_80gb"]["tflops"]["bf16"]


def test_replicas_share_the_requests_and_add_up():
    shape, gpu, _ = _inputs()
    kv = {"kv_tokens": 200_000, "kv_bytes_per_token_per_gpu": 147456.0, "max_num_seqs": 256}
    one = speed.estimate(shape, gpu, speed.Layout(tp=1, **kv))
    four = speed.estimate(shape, gpu, speed.Layout(tp=1, replicas=4, **kv))
    assert four.kv_max == 4 * one.kv_max
    at_128 = one.levels.index(128)
    assert four.per_user[at_128] > one.per_user[at_128]  # 32 requests per replica, not 128
    assert four.ttft_s == one.ttft_s


def test_every_range_contains_its_point_estimate():
    shape, gpu, layout = _inputs(kv_tokens=300_000)
    est = speed.estimate(shape, gpu, layout)
    for i in range(len(est.levels)):
        lo, hi = est.per_user_range(i)
        assert lo <= est.per_user[i] <= hi and lo < hi
        lo, hi = est.total_range(i)
        assert lo <= est.total[i] <= hi
    for i in range(len(speed.TTFT_PROMPTS)):
        lo, hi = est.ttft_range(i)
        assert lo <= est.ttft_s[i] <= hi and lo < hi


def test_no_estimate_without_the_facts():
    assert speed.model_shape(None, "bf16") is None
    assert speed.model_shape({"num_hidden_layers": 2}, "bf16") is None
    assert speed.gpu_speed({"tflops": {"bf16": 100}}, "bf16") is None  # no bandwidth
    # routed experts without the count a token uses: every expert would look active
    assert (
        speed.model_shape({k: v for k, v in MOE.items() if k != "experts_per_token"}, "mxfp4")
        is None
    )


# -- the calibration ------------------------------------------------------------------------------


def test_each_point_has_its_provenance():
    points = DATA["points"]
    assert len([p for p in points if not p.get("excluded")]) >= 15
    ids = [p["id"] for p in points]
    assert len(ids) == len(set(ids))
    for p in points:
        for key in speed_calibration.REQUIRED_FIELDS:
            assert p.get(key) not in (None, ""), (p.get("id"), key)
        assert p["source"].startswith("https://"), p["id"]
        assert p["metric"] in speed_calibration.METRICS
        assert p["hardware"] in PROFILES, p["id"]
        assert p["shape"] in DATA["shapes"]
        # the value is quoted from the source, not rounded
        assert str(p["value"]) in p["excerpt"], p["id"]
        if p["metric"] == "itl_ms":
            assert p["context"] >= p["input_tokens"]
    for shape in DATA["shapes"].values():
        assert shape["config_source"].startswith("https://")


def test_committed_constants_reproduce_the_stated_errors():
    cal = speed.CALIBRATION
    rows = speed_calibration.rows(DATA, PROFILES, cal)
    median, worst, low, high = speed_calibration.summary(rows)
    assert cal.points == len(rows)
    assert median == pytest.approx(cal.median_error, abs=5e-4)
    assert worst == pytest.approx(cal.worst_error, abs=5e-4)
    assert low == pytest.approx(cal.low, abs=5e-4)
    assert high == pytest.approx(cal.high, abs=5e-4)
    # every fitted point lies inside its own range
    for r in rows:
        lo, hi = speed.time_range(r.predicted, cal)
        assert lo * (1 - 1e-3) <= r.measured <= hi * (1 + 1e-3), r.id


def test_the_fit_does_not_beat_the_committed_constants_by_much():
    fitted = speed_calibration.fit(DATA, PROFILES, rounds=3, steps=12)
    committed = speed_calibration.rows(DATA, PROFILES, speed.CALIBRATION)
    refit = speed_calibration.rows(DATA, PROFILES, fitted)

    def loss(rows):
        return sum(math.log(r.ratio) ** 2 for r in rows)

    assert loss(committed) <= loss(refit) * 1.05
