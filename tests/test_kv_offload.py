"""render/kv_offload.py: the KV-offload row's options as command pieces and the host tier's size."""

from __future__ import annotations

import json
import shlex

import pytest

from recipes_site.render.advanced import API_PATH
from recipes_site.render.kv_offload import (
    BYTES,
    host_bytes,
    options_doc,
    recipe_blocks,
    sized_args,
)

GIB = 1 << 30


def _config(extra: dict, connector: str = "OffloadingConnector") -> list:
    return [
        "--kv-transfer-config",
        json.dumps(
            {"kv_connector": connector, "kv_role": "kv_both", "kv_connector_extra_config": extra},
            separators=(",", ":"),
        ),
    ]


def test_a_host_tier_is_found_per_engine_or_per_rank():
    args, size = sized_args(_config({"cpu_bytes_to_use": 512 * GIB, "blocks_per_chunk": 4}))
    assert size == {"key": "cpu_bytes_to_use", "per": "engine", "floor_bytes": 512 * GIB}
    assert f'"cpu_bytes_to_use":{BYTES},' in args[1]
    _, size = sized_args(
        _config({"cpu_bytes_to_use_per_rank": 220 * GIB}, "SimpleCPUOffloadConnector")
    )
    assert size and size["per"] == "rank"


def test_a_staging_tier_and_a_server_pool_keep_their_size():
    staged = _config({"cpu_bytes_to_use": 32 * GIB, "secondary_tiers": [{"type": "fs"}]})
    assert sized_args(staged) == (staged, None)
    lmcache = _config({"lmcache.mp.port": 5555}, "LMCacheMPConnector")
    assert sized_args(lmcache) == (lmcache, None)
    assert sized_args(["--kv-transfer-config", "not json"])[1] is None


def test_the_host_tier_stays_above_the_gpu_kv_cache():
    rank = {"per": "rank", "floor_bytes": 220 * GIB}
    engine = {"per": "engine", "floor_bytes": 512 * GIB}
    assert host_bytes(rank, 50 * GIB, 8) == 220 * GIB  # the vocabulary's budget is enough
    assert host_bytes(rank, int(230.5 * GIB), 1) == 231 * GIB  # raised above the GPU KV cache
    assert host_bytes(engine, 50 * GIB, 8) == 512 * GIB  # 8 x 51 GiB = 408 GiB: the budget wins
    assert host_bytes(engine, 70 * GIB, 8) == 8 * 71 * GIB  # 568 GiB > 512 GiB: raised
    assert host_bytes(engine, None, 8) == 512 * GIB


def test_the_project_taxonomy_gives_ordered_options_with_shell_safe_lines(catalog, ctx):
    doc = options_doc(catalog.taxonomy, "0.33.0", ctx.strategies)
    ids = [o["id"] for o in doc["options"]]
    assert ids == ["simple", "offloading_cpu", "offloading_fs", "lmcache"]
    by = {o["id"]: o for o in doc["options"]}
    assert by["offloading_cpu"]["label"] == "Offloading: CPU"
    assert by["offloading_fs"]["size"] is None and by["offloading_fs"]["exports"] == (
        "export PYTHONHASHSEED=0\n"
    )
    assert by["offloading_fs"]["docker_env"] == ["-e PYTHONHASHSEED=0"]
    assert by["lmcache"]["tab"]["label"] == "LMCache Server"
    assert "lmcache server" in by["lmcache"]["tab"]["text"]
    assert "Tensor Parallel" in by["lmcache"]["why_strategy"]
    assert by["offloading_cpu"]["why_brand"] == "CPU runs on NVIDIA and AMD GPUs only."
    for o in doc["options"]:
        for line in o["lines"]:
            words = shlex.split(line.replace(BYTES, "123"))
            assert words[0] == "--kv-transfer-config" and json.loads(words[1])["kv_role"]


@pytest.mark.parametrize(
    ("support", "blocked"),
    [
        ({}, {"offloading_cpu", "offloading_fs"}),
        ({"offloading_cpu": "verified"}, {"offloading_fs"}),
        ({"simple": "unsupported"}, {"simple", "offloading_cpu", "offloading_fs"}),
    ],
)
def test_a_recipe_opts_in_or_out(catalog, support, blocked):
    got = recipe_blocks({"kv_offload_support": support}, catalog.taxonomy)
    assert set(got) == blocked


def test_model_pages_carry_the_closed_row_and_its_files_exist(project_site):
    out, _ = project_site
    page = (out / "Qwen/Qwen3-8B/index.html").read_text()
    row = page[page.index('<details class="more"') :]
    row = row[: row.index("</details>")]
    assert " open" not in row.split(">", 1)[0]  # closed: its script loads when it opens
    more_js = (out / "static/more.js").read_text()  # fetches advanced.API_PATH under the root
    assert f'T.root + "{API_PATH}"' in more_js
    script = row.split('data-script="', 1)[1].split('"', 1)[0]
    assert script.startswith("/static/more.js?v=") and (out / "static/more.js").is_file()
    assert "more.js" not in page.replace(row, "")  # no other reference: not loaded up front
    doc = json.loads((out / "api/v1/picker-options.json").read_text())
    assert [o["id"] for o in doc["kv_offload"]][0] == "simple"
    assert doc["max_model_len_auto"]["line"] == "--max-model-len auto"
