"""A Mooncake store on a prefill/decode deployment (synthesis/pd_store.py, more_options.py): each
pool node's NixlConnector --kv-transfer-config gives way to the vocabulary's MultiConnector line,
the store's env and docker lines join every pool node, the default renderings stay as they are,
and `recipes-site command/fit --kv-offload <store>` print it with the install line, the Mooncake
steps and the host memory over both pools."""

from __future__ import annotations

import functools
import json
import shlex

import pytest
from cli_kit import run

from recipes_site import host_memory
from recipes_site.build import synthesis_context
from recipes_site.catalog import PROJECT_ROOT, load_catalog
from recipes_site.jsish import mapping
from recipes_site.pd_topology import topology_rendering
from recipes_site.render.advanced import picker_options_doc
from recipes_site.synthesis import render_choice
from recipes_site.synthesis.pd_store import companion_steps, pd_store, with_store

MODEL = "deepseek-ai/DeepSeek-V3"
DISTRIBUTED, CENTRALIZED = "kv_store_distributed_mooncake", "kv_store_centralized_mooncake"
BASE = ("command", MODEL, "--hardware", "h100", "--strategy", "pd_cluster")


@functools.cache
def _setup():
    catalog, _ = load_catalog(PROJECT_ROOT)
    ctx = synthesis_context(catalog)
    recipe = next(d.data for d in catalog.recipes if d.hf_id == MODEL)
    return catalog, ctx, recipe


def _rendering(**roles):
    _, ctx, recipe = _setup()
    r = render_choice(ctx, recipe, "default", "h100", "pd_cluster")
    return topology_rendering(ctx, recipe, r, roles) if roles else r


def _store(kv_id: str):
    _, ctx, _ = _setup()
    store = pd_store(kv_id, mapping(ctx.strategies[kv_id]))
    assert store is not None
    return store


def _nodes(r):
    for role, pool in (("prefill", r.prefill), ("decode", r.decode)):
        for p in (pool.process, *pool.workers):
            yield role, p


@pytest.mark.parametrize("kv_id", [DISTRIBUTED, CENTRALIZED])
def test_every_pool_node_swaps_nixl_for_the_multiconnector(kv_id):
    _, ctx, _ = _setup()
    r = _rendering(prefill={"nodes": 2, "mode": "tp"})
    joined = with_store(r, _store(kv_id))
    vocab = mapping(mapping(ctx.strategies[kv_id])["pd"])
    assert len(list(_nodes(joined))) == len(list(_nodes(r))) >= 3
    for (role, p), (_, old) in zip(_nodes(joined), _nodes(r), strict=True):
        want = vocab[role]["args"]
        words = [str(w) for w in p.argv]
        assert words.count("--kv-transfer-config") == 1
        at = words.index("--kv-transfer-config")
        assert words[at : at + 2] == want
        config = json.loads(words[at + 1])
        assert config["kv_connector"] == "MultiConnector"
        children = [c["kv_connector"] for c in config["kv_connector_extra_config"]["connectors"]]
        assert children == ["NixlConnector", "MooncakeStoreConnector"]
        # the rest of the command is the pool's own, the old connector line gone
        old_words = [str(w) for w in old.argv]
        i = old_words.index("--kv-transfer-config")
        assert [w for w in words if w not in want] == [
            w for w in old_words[:i] + old_words[i + 2 :] if w not in want
        ]
        assert p.env["MOONCAKE_CONFIG_PATH"] == "$MOONCAKE_CONFIG_PATH"
        assert p.env["PYTHONHASHSEED"] == 0
        assert "-v $MOONCAKE_CONFIG_PATH:$MOONCAKE_CONFIG_PATH:ro" in p.docker_command
        assert shlex.split(p.command.replace("\\\n", " "))[3:] == words[3:]
        assert p.docker_command.endswith(p.command.split(" \\\n  ", 1)[1])


def test_the_default_renderings_do_not_change():
    _, ctx, recipe = _setup()
    r = render_choice(ctx, recipe, "default", "h100", "pd_cluster")
    assert "MultiConnector" not in r.prefill.process.command + r.decode.process.command
    assert "MOONCAKE_CONFIG_PATH" not in r.prefill.process.env
    out = run(*BASE)
    assert out.returncode == 0 and "MultiConnector" not in out.stdout


def test_the_companion_steps_follow_the_topology():
    distributed = [i for i, _, _ in companion_steps(_store(DISTRIBUTED))]
    centralized = [i for i, _, text in companion_steps(_store(CENTRALIZED))]
    assert distributed == ["mooncake-config", "mooncake-master"]
    assert centralized == ["mooncake-config", "mooncake-master", "mooncake-store"]
    store_text = companion_steps(_store(CENTRALIZED))[2][2]
    assert "cat > $MOONCAKE_STORE_CONFIG_PATH <<EOF" in store_text
    assert store_text.endswith("mooncake_store_service --config $MOONCAKE_STORE_CONFIG_PATH")


def test_picker_options_publish_the_pieces_the_cli_uses():
    catalog, ctx, _ = _setup()
    doc = picker_options_doc(catalog.taxonomy, "0.33.0", ctx.strategies)
    for kv_id in (DISTRIBUTED, CENTRALIZED):
        pd = doc["kv_stores"][kv_id]["pd"]
        store = _store(kv_id)
        assert pd["lines"] == {role: list(lines) for role, lines in store.lines.items()}
        assert pd["tabs"] == [
            {"id": i, "label": label, "text": text} for i, label, text in companion_steps(store)
        ]
        assert pd["install"]["nvidia"].startswith("uv pip install 'mooncake-transfer-engine")


def test_the_cli_prints_the_steps_then_the_pools_and_json_carries_them():
    out = run(*BASE, "--prefill-nodes", "2", "--kv-offload", CENTRALIZED)
    assert out.returncode == 0, out.stderr
    headings = [section.split("\n", 1)[0] for section in out.stdout.split("\n\n")]
    assert headings[:4] == [
        "# install first (every pool node)",
        "# mooncake config (every pool node)",
        "# mooncake master",
        "# mooncake store",
    ]
    assert "# prefill pool, node 2 of 2" in out.stdout
    assert out.stdout.count("MultiConnector") == 4  # two prefill nodes, two decode nodes
    assert "Host memory it registers" in out.stderr
    got = json.loads(run(*BASE, "--kv-offload", DISTRIBUTED, "--json").stdout)
    piece = got["more_options"]["kv_store"]
    assert piece["id"] == DISTRIBUTED
    assert [c["id"] for c in piece["companions"]] == ["mooncake-config", "mooncake-master"]
    assert "MultiConnector" in got["prefill"]["command"]
    assert got["decode"]["env"]["PYTHONHASHSEED"] == 0
    r = _rendering()
    gpus = r.prefill.pool_gpus + r.decode.pool_gpus
    assert piece["host_memory"]["gpus"] == gpus
    assert piece["host_memory"]["total_bytes"] == gpus * (100 + 4) * host_memory.GIB


def test_fit_reports_the_store_over_both_pools():
    base = ("fit", MODEL, "--hardware", "h200", "--strategy", "pd_cluster")
    text = run(*base, "--kv-offload", CENTRALIZED)
    assert text.returncode == 0, text.stderr
    assert f"Mooncake store {CENTRALIZED} on both pools" in text.stdout
    assert "The store service registers 500.0 GiB on each store node." in text.stdout
    found = json.loads(run(*base, "--kv-offload", CENTRALIZED, "--json").stdout)["host_memory"]
    assert found["kv_store"]["id"] == CENTRALIZED
    assert found["kv_store"]["segment_bytes"] == 0
    assert found["kv_store"]["per_gpu_bytes"] == 4 * host_memory.GIB


def test_an_offload_option_stays_refused_on_pd():
    out = run(*BASE, "--kv-offload", "simple")
    assert out.returncode == 1 and "not offered here" in out.stderr


def test_the_other_row_options_reach_every_pool_node_with_the_store():
    out = run(*BASE, "--prefill-nodes", "2", "--kv-offload", DISTRIBUTED, "--max-model-len", "auto")
    assert out.returncode == 0, out.stderr
    nodes = out.stdout.count("vllm serve ")
    assert nodes >= 3
    assert out.stdout.count("--max-model-len auto") == nodes
    assert out.stdout.count("MultiConnector") == nodes
    for section in out.stdout.split("\n\n"):
        if "vllm serve " in section:  # the page's order: the store's line, then the length
            assert section.index("MultiConnector") < section.index("--max-model-len auto")
