"""host_memory.py: the host memory of a KV-offload tier and of a Mooncake kv-store layout."""

from __future__ import annotations

import json

import pytest

from recipes_site.host_memory import (
    GIB,
    config_bytes,
    host_tier,
    kv_store_host_memory,
    kv_store_sizes,
    kv_store_text,
    mooncake_size,
    offload_host_memory,
    offload_text,
    ram_note,
)


def _args(extra: dict, connector: str = "OffloadingConnector") -> list:
    config = {"kv_connector": connector, "kv_role": "kv_both", "kv_connector_extra_config": extra}
    return ["--kv-transfer-config", json.dumps(config, separators=(",", ":"))]


RANK = {"key": "cpu_bytes_to_use_per_rank", "per": "rank", "floor_bytes": 220 * GIB}
ENGINE = {"key": "cpu_bytes_to_use", "per": "engine", "floor_bytes": 512 * GIB}


def test_the_tier_is_read_per_rank_per_engine_or_as_a_staging_tier():
    assert host_tier(_args({"cpu_bytes_to_use_per_rank": 5, "cpu_bytes_to_use": 9})) == {
        "key": "cpu_bytes_to_use_per_rank",
        "per": "rank",
        "floor_bytes": 5,
        "staging": False,
    }
    staged = host_tier(_args({"cpu_bytes_to_use": 32 * GIB, "secondary_tiers": [{"type": "fs"}]}))
    assert staged and staged["staging"] and staged["per"] == "engine"
    assert host_tier(_args({"lmcache.mp.port": 5555}, "LMCacheMPConnector")) is None
    assert host_tier(_args({"cpu_bytes_to_use": True})) is None  # not a byte count
    assert host_tier(["--kv-transfer-config", "{not json"]) is None


def test_a_host_only_tier_is_raised_above_the_gpu_kv_cache():
    assert config_bytes(RANK, 50 * GIB, 8) == 220 * GIB
    assert config_bytes(RANK, int(230.5 * GIB), 1) == 231 * GIB
    assert config_bytes(ENGINE, 50 * GIB, 8) == 512 * GIB  # 8 x 51 GiB = 408 GiB < 512 GiB
    assert config_bytes(ENGINE, 70 * GIB, 8) == 8 * 71 * GIB
    assert config_bytes(ENGINE, None, 8) == 512 * GIB
    assert config_bytes({**ENGINE, "staging": True}, 900 * GIB, 8) == 512 * GIB


def test_per_gpu_per_node_and_total_follow_the_plan():
    # TP 4 x PP 2 over two nodes of 4 GPUs: the engine's total splits over its 8 workers
    plan = {"gpus": 8, "nodes": 2, "tp": 4, "pp": 2, "kv_cache_bytes_per_gpu": 70 * GIB}
    found = offload_host_memory(plan, ENGINE)
    assert found["config_bytes"] == 8 * 71 * GIB and found["raised"]
    assert found["per_gpu_bytes"] == 71 * GIB
    assert found["per_node_bytes"] == 4 * 71 * GIB
    assert found["total_bytes"] == 8 * 71 * GIB
    # per rank: every GPU takes the whole value; a data-parallel deployment counts every GPU
    found = offload_host_memory({"gpus": 4, "dp": 4, "kv_cache_bytes_per_gpu": GIB}, RANK)
    assert found["per_gpu_bytes"] == 220 * GIB and found["total_bytes"] == 4 * 220 * GIB
    assert not found["raised"]
    text = offload_text(found)
    assert "220.0 GiB per GPU, 880.0 GiB on each node" in text
    assert "the vocabulary's budget" in text and "in all" not in text


def test_the_text_says_why_the_value_was_raised_and_what_a_node_needs():
    plan = {"gpus": 8, "nodes": 2, "tp": 4, "pp": 2, "kv_cache_bytes_per_gpu": 70 * GIB}
    found = offload_host_memory(plan, ENGINE)
    text = offload_text(found)
    assert f"cpu_bytes_to_use = {8 * 71 * GIB}" in text
    assert "raised from the vocabulary's 512.0 GiB" in text and "568.0 GiB in all" in text
    assert ram_note(found["per_node_bytes"]).startswith("Each node needs 284 GiB of host RAM")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("100GB", 100 * GIB),
        ("4GB", 4 * GIB),
        (" 512 mb ", 512 << 20),
        (0, 0),
        ("1.5gb", 3 * GIB // 2),
    ],
)
def test_mooncake_sizes_read_as_vllm_reads_them(value, expected):
    assert mooncake_size(value) == expected


def test_mooncake_refused_sizes_are_none():
    assert mooncake_size("100 GiB") is None and mooncake_size(True) is None


def test_an_embedded_store_lends_its_segment_per_gpu(ctx):
    sizes = kv_store_sizes(ctx.strategies["kv_store_distributed_mooncake"])
    assert sizes == {
        "mode": "embedded",
        "segment_bytes": 100 * GIB,
        "local_buffer_bytes": 4 * GIB,
        "store_segment_bytes": None,
    }
    # one TP-2 instance per node, 1 instance by default, 3 asked
    found = kv_store_host_memory({"gpus": 2, "tp": 2}, sizes, 1, 3)
    assert (found["gpus"], found["nodes"], found["instances"]) == (6, 3, 3)
    assert found["per_gpu_bytes"] == 104 * GIB
    assert found["per_node_bytes"] == 208 * GIB and found["total_bytes"] == 624 * GIB
    assert "100.0 GiB global_segment_size" in kv_store_text(found)


def test_a_standalone_store_lends_nothing_from_the_gpus(ctx):
    sizes = kv_store_sizes(ctx.strategies["kv_store_centralized_mooncake"])
    assert sizes and sizes["segment_bytes"] == 0 and sizes["store_segment_bytes"] == 500 * GIB
    found = kv_store_host_memory({"gpus": 2, "nodes": 2}, sizes, 2)  # its default: 2 instances
    assert found["per_gpu_bytes"] == 4 * GIB and found["total_bytes"] == 8 * GIB
    text = kv_store_text(found)
    assert "global_segment_size 0" in text and "500.0 GiB on each store node" in text
    assert kv_store_sizes(ctx.strategies["single_node_tp"]) is None
