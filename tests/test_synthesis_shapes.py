"""Deployment shapes (REFERENCE-BEHAVIOUR §4): multi-node head/workers, prefill/decode pools with a
router, and Mooncake kv-store instances."""

from __future__ import annotations

import synthesis_kit as H

from recipes_site.render.rendering_json import rendering_json
from recipes_site.synthesis import render_strategy

ctx = H.context()
MODEL = "acme/Big-MoE"
SOCKET = {"GLOO_SOCKET_IFNAME": "$IFACE_NAME", "NCCL_SOCKET_IFNAME": "$IFACE_NAME"}
PRODUCER = (
    '{"kv_connector":"NixlConnector","kv_role":"kv_producer","kv_load_failure_policy":"fail"}'
)
CONSUMER = (
    '{"kv_connector":"NixlConnector","kv_role":"kv_consumer","kv_load_failure_policy":"fail"}'
)
MOONCAKE = '{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}'


def big(vram=805, **top):
    r = H.recipe(
        model_id=MODEL,
        vram=vram,
        precision="fp8",
        compatible_strategies=[
            "single_node_tp",
            "single_node_dep",
            "multi_node_tp",
            "multi_node_tep",
            "multi_node_dep",
            "multi_node_tp_pp",
            "multi_node_tp_dp",
            "pd_cluster",
        ],
    )
    r["model"]["base_args"] = ["--trust-remote-code"]
    r["features"] = {"tool_calling": {"args": ["--tool-call-parser", "x"]}}
    r.update(top)
    return r


def render(recipe, hw_id, strategy, nodes=None):
    return render_strategy(ctx, recipe, "default", strategy, H.hw(hw_id), nodes)


HEAD = ["vllm", "serve", MODEL, "--trust-remote-code"]
TAIL = ["--tool-call-parser", "x"]
PREFILL = HEAD + ["--port", "8001", "--kv-transfer-config", PRODUCER]
DECODE = HEAD + [
    "--port",
    "8002",
    "--kv-transfer-config",
    CONSUMER,
    "--compilation-config",
    '{"cudagraph_mode":"FULL_DECODE_ONLY"}',
]


# -- multi-node (§4.1) ---------------------------------------------------------------------------------


def test_multi_node_tp_head_and_worker():
    r = render(big(), "h200", "multi_node_tp")
    assert (r.deploy_type, r.node_count, len(r.workers)) == ("multi_node", 2, 1)
    assert (
        list(r.head.argv)
        == HEAD
        + [
            "--tensor-parallel-size",
            "16",
            "--nnodes",
            "2",
            "--node-rank",
            "0",
            "--master-addr",
            "$HEAD_IP",
        ]
        + TAIL
    )
    assert (
        list(r.workers[0].argv)
        == HEAD
        + [
            "--tensor-parallel-size",
            "16",
            "--nnodes",
            "2",
            "--node-rank",
            "1",
            "--master-addr",
            "$HEAD_IP",
            "--headless",
        ]
        + TAIL
    )
    assert r.env == SOCKET and r.workers[0].env == SOCKET
    assert "  --master-addr $HEAD_IP \\\n" in r.head.command


def test_multi_node_tp_three_nodes_on_four_gpu_trays():
    r = render(big(), "gb200", "multi_node_tp", nodes=3)
    assert r.head.argv[4:6] == ("--tensor-parallel-size", "12")
    assert [w.argv[9] for w in r.workers] == ["1", "2"]  # --node-rank value
    assert all(w.argv[12] == "--headless" for w in r.workers)


def test_multi_node_tep():
    r = render(big(), "h200", "multi_node_tep")
    assert list(r.head.argv[4:14]) == [
        "--enable-expert-parallel",
        "--tensor-parallel-size",
        "16",
        "--nnodes",
        "2",
        "--node-rank",
        "0",
        "--master-addr",
        "$HEAD_IP",
        "--tool-call-parser",
    ]


def test_multi_node_dep():
    r = render(big(), "h200", "multi_node_dep", nodes=3)
    block = [
        "--enable-expert-parallel",
        "--data-parallel-hybrid-lb",
        "--data-parallel-size",
        "24",
        "--data-parallel-size-local",
        "8",
        "--data-parallel-address",
        "$HEAD_IP",
    ]
    assert list(r.head.argv) == HEAD + block + TAIL
    assert [list(w.argv) for w in r.workers] == [
        HEAD + block + ["--data-parallel-start-rank", "8"] + TAIL,
        HEAD + block + ["--data-parallel-start-rank", "16"] + TAIL,
    ]


def test_multi_node_dep_start_rank_follows_overridden_local_size():
    r = big(
        strategy_overrides={"multi_node_dep": {"extra_args": ["--data-parallel-size-local", "4"]}}
    )
    out = render(r, "h200", "multi_node_dep")
    worker = list(out.workers[0].argv)
    assert worker[worker.index("--data-parallel-start-rank") + 1] == "4"
    # the override's --data-parallel-size-local comes later and wins de-duplication
    assert worker.count("--data-parallel-size-local") == 1
    assert worker[worker.index("--data-parallel-size-local") + 1] == "4"


def test_multi_node_tp_pp():
    r = render(big(), "h200", "multi_node_tp_pp")
    assert (
        list(r.head.argv)
        == HEAD
        + [
            "--tensor-parallel-size",
            "8",
            "--pipeline-parallel-size",
            "2",
            "--nnodes",
            "2",
            "--node-rank",
            "0",
            "--master-addr",
            "$HEAD_IP",
        ]
        + TAIL
    )
    assert (
        list(r.workers[0].argv)
        == HEAD
        + [
            "--tensor-parallel-size",
            "8",
            "--pipeline-parallel-size",
            "2",
            "--nnodes",
            "2",
            "--node-rank",
            "1",
            "--master-addr",
            "$HEAD_IP",
            "--headless",
        ]
        + TAIL
    )


def test_multi_node_tp_dp():
    r = render(big(), "gb200", "multi_node_tp_dp", nodes=4)
    block = [
        "--tensor-parallel-size",
        "4",
        "--data-parallel-size",
        "4",
        "--data-parallel-size-local",
        "1",
        "--data-parallel-address",
        "$HEAD_IP",
    ]
    assert list(r.head.argv) == HEAD + block + TAIL
    assert [list(w.argv[-4:-2]) for w in r.workers] == [
        ["--data-parallel-start-rank", str(i)] for i in (1, 2, 3)
    ]


def test_multi_node_rendering_json_fields():
    out = rendering_json(render(big(), "h200", "multi_node_tp", nodes=3))
    assert out["deploy_type"] == "multi_node" and out["node_count"] == 3
    assert out["worker_command"] == out["worker_commands"][0]
    assert len(out["worker_argvs"]) == 2 and out["worker_argv"] == out["worker_argvs"][0]
    assert out["head_docker_argv"][:4] == ["docker", "run", "--gpus", "all"]
    assert "-e GLOO_SOCKET_IFNAME=$IFACE_NAME" in out["worker_docker_commands"][1]
    assert "command" not in out and "argv" not in out


# -- prefill / decode (§4.2) ----------------------------------------------------------------------------


def test_pd_co_located_on_one_eight_gpu_node():
    r = render(big(vram=300), "b200", "pd_cluster")  # 1440 >= 2 x 300 -> both pools on one node
    assert (r.deploy_type, r.node_count, r.env) == ("pd_cluster", 1, {})
    p, d = r.prefill, r.decode
    assert (
        list(p.process.argv)
        == HEAD
        + ["--port", "8001", "--kv-transfer-config", PRODUCER, "--tensor-parallel-size", "4"]
        + TAIL
    )
    assert (
        list(d.process.argv)
        == HEAD
        + [
            "--port",
            "8002",
            "--kv-transfer-config",
            CONSUMER,
            "--compilation-config",
            '{"cudagraph_mode":"FULL_DECODE_ONLY"}',
            "--tensor-parallel-size",
            "4",
        ]
        + TAIL
    )
    # NCCL/UCX switches only matter on NVL trays: stripped on b200
    assert p.process.env == {
        "VLLM_NIXL_SIDE_CHANNEL_PORT": "5557",
        "VLLM_NIXL_SIDE_CHANNEL_HOST": "$PREFILL_NODE_1",
        "CUDA_VISIBLE_DEVICES": "0,1,2,3",
    }
    assert d.process.env == {
        "VLLM_NIXL_SIDE_CHANNEL_PORT": "5558",
        "VLLM_NIXL_SIDE_CHANNEL_HOST": "$DECODE_NODE_1",
        "CUDA_VISIBLE_DEVICES": "4,5,6,7",
    }
    assert (p.nodes, p.parallelism, p.tp, p.dp_local, p.dp_size, p.pool_gpus) == (
        0,
        "tp",
        4,
        0,
        1,
        4,
    )
    assert "-p 8001:8001" in p.process.docker_command and "-p 8002:8002" in d.process.docker_command
    assert f"--kv-transfer-config '{PRODUCER}'" in p.process.command


def test_pd_keeps_nvl_env_on_gb200():
    r = render(big(vram=300), "gb200", "pd_cluster")
    assert list(r.prefill.process.env.items()) == [
        ("NCCL_CUMEM_ENABLE", "1"),
        ("NCCL_MNNVL_ENABLE", "1"),
        ("NCCL_NVLS_ENABLE", "1"),
        ("UCX_NET_DEVICES", "all"),
        ("VLLM_NIXL_SIDE_CHANNEL_PORT", "5557"),
        ("VLLM_NIXL_SIDE_CHANNEL_HOST", "$PREFILL_NODE_1"),
        ("CUDA_VISIBLE_DEVICES", "0,1"),
    ]
    assert r.decode.process.env["CUDA_VISIBLE_DEVICES"] == "2,3"


def test_pd_env_strip_applies_to_recipe_env_too():
    r = big(vram=300)
    r["model"]["base_env"] = {"NCCL_NVLS_ENABLE": "0", "KEEP": "1"}
    out = render(r, "b200", "pd_cluster")
    assert (
        "NCCL_NVLS_ENABLE" not in out.prefill.process.env and out.prefill.process.env["KEEP"] == "1"
    )
    single = render(r, "b200", "single_node_tp")
    assert single.env == {"NCCL_NVLS_ENABLE": "0", "KEEP": "1"}  # only PD roles are stripped


def test_pd_one_node_per_pool():
    r = render(big(), "h200", "pd_cluster")  # 805 > 1128 / 2 -> ceil(805 / 1128) = 1 node each
    p = r.prefill
    assert (
        list(p.process.argv)
        == HEAD
        + ["--port", "8001", "--kv-transfer-config", PRODUCER, "--tensor-parallel-size", "8"]
        + TAIL
    )
    assert p.process.env == {
        "VLLM_NIXL_SIDE_CHANNEL_PORT": "5557",
        "VLLM_NIXL_SIDE_CHANNEL_HOST": "$PREFILL_NODE_1",
        "CUDA_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7",
    }
    assert (p.nodes, p.tp, p.pool_gpus) == (1, 8, 8)


def test_pd_multi_node_pools_and_dep_decode():
    r = big(strategy_overrides={"pd_cluster": {"decode": {"parallelism": "dep", "tp": 2}}})
    out = render(r, "h100", "pd_cluster")  # ceil(805 / 640) = 2 nodes per pool
    p, d = out.prefill, out.decode
    assert (
        list(p.process.argv)
        == PREFILL
        + [
            "--tensor-parallel-size",
            "16",
            "--nnodes",
            "2",
            "--node-rank",
            "0",
            "--master-addr",
            "$PREFILL_NODE_1",
        ]
        + TAIL
    )
    assert p.process.env == {
        "VLLM_NIXL_SIDE_CHANNEL_PORT": "5557",
        "VLLM_NIXL_SIDE_CHANNEL_HOST": "$PREFILL_NODE_1",
        "CUDA_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7",
        **SOCKET,
    }
    assert (
        list(d.process.argv)
        == DECODE
        + [
            "--tensor-parallel-size",
            "2",
            "--data-parallel-size",
            "8",
            "--data-parallel-size-local",
            "4",
            "--data-parallel-start-rank",
            "0",
            "--data-parallel-address",
            "$DECODE_NODE_1",
            "--data-parallel-rpc-port",
            "$DECODE_DP_RPC_PORT",
            "--data-parallel-hybrid-lb",
            "--enable-expert-parallel",
        ]
        + TAIL
    )
    assert (d.nodes, d.parallelism, d.tp, d.dp_local, d.dp_size, d.pool_gpus) == (
        2,
        "dep",
        2,
        4,
        8,
        16,
    )
    assert out.router.command == (
        "vllm-router --policy round_robin \\\n"
        "    --vllm-pd-disaggregation \\\n"
        "    --prefill http://$PREFILL_NODE_1:8001 \\\n"
        "    --decode http://$DECODE_NODE_1:8002 \\\n"
        "    --decode http://$DECODE_NODE_2:8002 \\\n"
        "    --host $ROUTER_HOST \\\n"
        "    --port $ROUTER_PORT \\\n"
        "    --intra-node-data-parallel-size 4"
    )
    assert out.router.install == "uv pip install vllm-router"
    assert out.router_config == {"policy": "round_robin"}


def test_pd_router_co_located_and_override():
    out = render(big(vram=300), "b200", "pd_cluster")
    assert out.router.command.splitlines()[2:4] == [
        "    --prefill http://$PREFILL_NODE_1:8001 \\",
        "    --decode http://$DECODE_NODE_1:8002 \\",
    ]
    assert out.router.command.endswith("--intra-node-data-parallel-size 1")
    r = big(
        vram=300,
        strategy_overrides={"pd_cluster": {"router": {"intra_node_data_parallel_size": 2}}},
    )
    assert render(r, "b200", "pd_cluster").router.command.endswith(
        "--intra-node-data-parallel-size 2"
    )


def test_pd_pool_mode_snapped_to_recipe_strategies_but_reported_as_declared():
    r = big(
        compatible_strategies=["single_node_tp", "pd_cluster"],
        strategy_overrides={"pd_cluster": {"decode": {"parallelism": "dep"}}},
    )
    d = render(r, "h200", "pd_cluster").decode
    assert list(d.process.argv) == DECODE + ["--tensor-parallel-size", "8"] + TAIL
    assert d.parallelism == "dep"


def test_pd_pool_modes_narrowing():
    r = big(
        strategy_overrides={"pd_cluster": {"pool_modes": ["tep"], "prefill": {"parallelism": "tp"}}}
    )
    p = render(r, "h200", "pd_cluster").prefill
    assert (
        list(p.process.argv)
        == PREFILL + ["--tensor-parallel-size", "8", "--enable-expert-parallel"] + TAIL
    )


def test_pd_role_overrides():
    r = big(
        vram=300,
        strategy_overrides={
            "pd_cluster": {
                "extra_args": ["--not-for-roles"],
                "env": {"ALL_ROLES": "1"},
                "prefill": {
                    "vllm_args": ["--max-num-batched-tokens", "8192"],
                    "env": {"ROLE": "p"},
                    "hardware_overrides": {"b200": {"extra_args": ["--role-exact"]}},
                },
            }
        },
    )
    out = render(r, "b200", "pd_cluster")
    assert (
        list(out.prefill.process.argv)
        == PREFILL
        + ["--tensor-parallel-size", "4", "--max-num-batched-tokens", "8192", "--role-exact"]
        + TAIL
    )
    assert "--not-for-roles" not in out.prefill.process.argv
    assert list(out.prefill.process.env)[-2:] == ["ALL_ROLES", "ROLE"]
    assert "ROLE" not in out.decode.process.env and out.decode.process.env["ALL_ROLES"] == "1"


def test_pd_pools_beyond_four_nodes_are_not_rendered():
    assert render(big(vram=3000), "h100", "pd_cluster") is None  # ceil(3000 / 640) = 5
    assert render(big(vram=2560), "h100", "pd_cluster").prefill.nodes == 4


def test_pd_rendering_json():
    out = rendering_json(render(big(vram=300), "b200", "pd_cluster"))
    assert out["prefill"]["currentNode"] == 0 and out["prefill"]["startRank"] == 0
    assert (out["decode"]["dpLocal"], out["decode"]["poolGpus"]) == (0, 4)
    assert out["router"] == {
        "command": out["router"]["command"],
        "install": "uv pip install vllm-router",
    }
    assert out["router_config"] == {"policy": "round_robin"}


# -- kv store (§4.3) -----------------------------------------------------------------------------------


def small():
    r = H.recipe(
        model_id="acme/Small", vram=40, compatible_strategies=["single_node_tp", "multi_node_tp"]
    )
    r["features"] = {"tool_calling": {"args": ["--tool-call-parser", "x"]}}
    r["model"]["base_args"] = ["--kv-transfer-config", '{"mine":1}']
    return r


def test_kv_distributed_single_instance():
    out = render(small(), "h200", "kv_store_distributed_mooncake")
    kv = out.kv
    assert (out.deploy_type, out.node_count, kv.instances, kv.serving_strategy) == (
        "kv_store_lb",
        1,
        1,
        "single_node_tp",
    )
    # Mooncake's --kv-transfer-config comes last (after features) and wins over the recipe's
    assert list(kv.head.argv) == [
        "vllm",
        "serve",
        "acme/Small",
        "--tensor-parallel-size",
        "1",
        "--tool-call-parser",
        "x",
        "--kv-transfer-config",
        MOONCAKE,
    ]
    assert kv.head.env == {"MOONCAKE_CONFIG_PATH": "$MOONCAKE_CONFIG_PATH", "PYTHONHASHSEED": 0}
    assert type(kv.head.env["PYTHONHASHSEED"]) is int
    assert kv.router is None and kv.store is None and kv.workers == ()
    assert kv.min_vllm_version == "0.21.0"
    assert kv.install == "uv pip install 'mooncake-transfer-engine>=0.3.10'"
    d = list(kv.head.docker_argv)
    assert d[d.index("-v", 9) : d.index("-v", 9) + 2] == [
        "-v",
        "$MOONCAKE_CONFIG_PATH:$MOONCAKE_CONFIG_PATH:ro",
    ]
    assert d[12:20] == [
        "-e",
        "MOONCAKE_CONFIG_PATH=$MOONCAKE_CONFIG_PATH",
        "-e",
        "PYTHONHASHSEED=0",
        "vllm/vllm-openai:latest",
        "acme/Small",
        "--tensor-parallel-size",
        "1",
    ]


def test_kv_centralized_two_instances_with_router():
    out = render(small(), "mi300x", "kv_store_centralized_mooncake")
    kv = out.kv
    assert kv.instances == 2
    assert kv.install == "uv pip install 'mooncake-transfer-engine-non-cuda>=0.3.10'"
    assert kv.router.command == (
        "vllm-router --policy cache_aware \\\n"
        "    --backend-url http://$VLLM_INSTANCE_1:8000 \\\n"
        "    --backend-url http://$VLLM_INSTANCE_2:8000 \\\n"
        "    --host $ROUTER_HOST \\\n"
        "    --port $ROUTER_PORT \\\n"
        "    --cache-threshold 0.5 \\\n"
        "    --balance-abs-threshold 4 \\\n"
        "    --balance-rel-threshold 1.1"
    )
    assert (kv.router.install, kv.router.port) == ("uv pip install vllm-router", 30080)
    assert isinstance(kv.store, dict) and "command" in kv.store
    assert isinstance(kv.master, dict) and "mooncake_master" in kv.master["command"]


def test_kv_multi_node_instance_addresses():
    r = big(
        vram=1680,
        default_strategy="single_node_tp",
        strategy_min_gpus={"single_node_tp": 8, "multi_node_tp": 8, "h100": 32},
    )
    r["model"]["base_env"] = {}
    r["hardware_overrides"] = {"hopper": {"extra_env": {"VLLM_ENGINE_READY_TIMEOUT_S": "3600"}}}
    central = render(r, "h100", "kv_store_centralized_mooncake")
    assert (central.node_count, central.kv.serving_strategy, len(central.kv.workers)) == (
        4,
        "multi_node_tp",
        3,
    )
    head = list(central.kv.head.argv)
    assert head[4:12] == [
        "--tensor-parallel-size",
        "32",
        "--nnodes",
        "4",
        "--node-rank",
        "0",
        "--master-addr",
        "$VLLM_INSTANCE_1",
    ]
    assert head[-2:] == ["--kv-transfer-config", MOONCAKE]
    # strategy env -> Mooncake env -> recipe generation env
    assert list(central.env.items()) == [
        *SOCKET.items(),
        ("MOONCAKE_CONFIG_PATH", "$MOONCAKE_CONFIG_PATH"),
        ("PYTHONHASHSEED", 0),
        ("VLLM_ENGINE_READY_TIMEOUT_S", "3600"),
    ]
    as_json = rendering_json(central)
    assert (
        len(as_json["vllm_worker_argvs"]) == 3
        and as_json["vllm_worker_argv"] == as_json["vllm_worker_argvs"][0]
    )
    assert as_json["vllm_worker_argv"][9] == "1"  # --node-rank of the first worker
    distributed = render(r, "h100", "kv_store_distributed_mooncake")
    assert (
        "$HEAD_IP" in distributed.kv.head.argv
        and "$VLLM_INSTANCE_1" not in distributed.kv.head.argv
    )
    worker = list(distributed.kv.workers[0].argv)
    assert worker[4:13] == [
        "--tensor-parallel-size",
        "32",
        "--nnodes",
        "4",
        "--node-rank",
        "1",
        "--master-addr",
        "$HEAD_IP",
        "--headless",
    ]
    assert worker[-2:] == ["--kv-transfer-config", MOONCAKE]


def test_kv_without_multi_node_strategy_retries_on_one_node():
    r = H.recipe(vram=1680, compatible_strategies=["single_node_tep"])
    out = render(r, "h100", "kv_store_distributed_mooncake")
    assert (out.node_count, out.kv.serving_strategy) == (1, "single_node_tep")
    assert list(out.kv.head.argv[3:6]) == [
        "--enable-expert-parallel",
        "--tensor-parallel-size",
        "8",
    ]


def test_kv_rendering_json_fields():
    out = rendering_json(render(small(), "h200", "kv_store_distributed_mooncake"))
    assert out["strategy"] == "kv_store_distributed_mooncake"
    assert out["serving_strategy"] == "single_node_tp"
    assert out["kv_min_vllm_version"] == "0.21.0"
    assert out["env"]["PYTHONHASHSEED"] == 0
    assert out["vllm_worker_command"] is None and out["vllm_worker_argvs"] is None
    assert out["router"] is None and out["store"] is None
    assert out["vllm_argv"][-1] == MOONCAKE


def test_pd_pool_nodes_raised_by_strategy_min_gpus_of_the_role_layout():
    r = big(strategy_min_gpus={"h100": {"multi_node_tp": 24}})
    out = render(
        r, "h100", "pd_cluster"
    )  # ceil(805 / 640) = 2, but tp pools need 24 GPUs = 3 nodes
    assert (out.prefill.nodes, out.prefill.tp, out.decode.nodes) == (3, 24, 3)
    assert (
        list(out.prefill.process.argv)
        == PREFILL
        + [
            "--tensor-parallel-size",
            "24",
            "--nnodes",
            "3",
            "--node-rank",
            "0",
            "--master-addr",
            "$PREFILL_NODE_1",
        ]
        + TAIL
    )
    assert (
        render(r, "h200", "pd_cluster").prefill.nodes == 1
    )  # the h100 entry does not apply to h200


def test_main_process_per_shape():
    r = big(vram=300)
    assert render(r, "b200", "single_node_tp").main_process.argv[3:5] == (
        "--trust-remote-code",
        "--tensor-parallel-size",
    )
    multi = render(r, "b200", "multi_node_tp")
    assert multi.main_process is multi.head
    pd = render(r, "b200", "pd_cluster")
    assert pd.main_process is pd.prefill.process
    kv = render(r, "b200", "kv_store_distributed_mooncake")
    assert kv.main_process is kv.kv.head
