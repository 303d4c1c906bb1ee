"""Issue 24 point 6: commands that do what the recipe means.

A recipe env value that is one variable expands (tests/test_shell.py and test_security_shell.py
hold the quoting to it); every rendering lists the variables a user sets before pasting
(`user_variables`); `diff` prints exports as the page does; the throughput plan counts its copies
from 1 and names GPUs as people do."""

from __future__ import annotations

import copy

from recipes_site import fit_report
from recipes_site.diff import command_text
from recipes_site.plan import gpus_text
from recipes_site.render.pages import plan_view
from recipes_site.render.rendering_json import rendering_json
from recipes_site.synthesis import render_strategy


def _render(ctx, recipe, strategy, hw="h200", variant="default"):
    return render_strategy(ctx, recipe, variant, strategy, ctx.hardware(hw))


def test_diff_exports_a_placeholder_as_the_page_does(ctx, recipes):
    r = rendering_json(
        _render(ctx, recipes["deepseek-ai/DeepSeek-V3.2"], "kv_store_centralized_mooncake")
    )
    lines = command_text(r)
    assert "export MOONCAKE_CONFIG_PATH=$MOONCAKE_CONFIG_PATH" in lines
    assert not [line for line in lines if "'$" in line]


def test_every_rendering_lists_the_variables_to_set_first(ctx, recipes):
    qwen = recipes["Qwen/Qwen3-8B"]
    assert rendering_json(_render(ctx, qwen, "single_node_tp"))["user_variables"] == []
    multi = rendering_json(
        _render(ctx, recipes["deepseek-ai/DeepSeek-V3.2"], "multi_node_tp", "h100")
    )
    assert multi["user_variables"] == ["IFACE_NAME", "HEAD_IP"]
    pd = rendering_json(_render(ctx, qwen, "pd_cluster"))
    assert {"PREFILL_NODE_1", "DECODE_NODE_1", "ROUTER_HOST", "ROUTER_PORT"} <= set(
        pd["user_variables"]
    )
    kv = rendering_json(_render(ctx, qwen, "kv_store_centralized_mooncake"))
    assert {"MOONCAKE_CONFIG_PATH", "MOONCAKE_MASTER_IP", "ROUTER_HOST"} <= set(
        kv["user_variables"]
    )


def test_a_recipe_env_placeholder_expands_and_is_listed(ctx, recipes):
    recipe = copy.deepcopy(recipes["Qwen/Qwen3-8B"])
    recipe["model"]["base_env"] = {
        "NCCL_SOCKET_IFNAME": "${IB_IF}",
        "GLOO_SOCKET_IFNAME": "$IFACE",
        "NOT_ONE": "${X:-$(touch pw)}",
    }
    r = _render(ctx, recipe, "single_node_tp")
    doc = rendering_json(r)
    assert doc["user_variables"] == ["IB_IF", "IFACE"]
    assert "-e NCCL_SOCKET_IFNAME=${IB_IF}" in r.single.docker_command
    assert "-e NOT_ONE='${X:-$(touch pw)}'" in r.single.docker_command
    assert doc["env"]["NCCL_SOCKET_IFNAME"] == "${IB_IF}"  # the API keeps the recipe's value


def test_gpus_as_people_write_them():
    assert gpus_text(0, 1) == "GPU 0" and gpus_text(4, 4) == "GPUs 4-7"


def test_plan_copies_are_counted_from_one(ctx, recipes):
    r = fit_report.fit_choice(ctx, recipes["Qwen/Qwen3-8B"], "default", "h100")
    text = fit_report.fit_text(r)
    assert "# copy 1: GPU 0, port 8000" in text and "# copy 8: GPU 7, port 8007" in text
    assert "copy 0" not in text.lower() and "GPUs 0," not in text
    rendering = {"plan": {"replicas": {"replicas": r.replicas, "serve_prefix": "", "suffix": ""}}}
    plan = {"verdict": "fits", "gpus": 1, "tp": 1, "pp": 1, "dp": 1, "ep": False}
    hw = {"gpu_count": 8, "gpu": "H100", "label": "H100"}
    captions = [c[1] for c in plan_view(rendering, plan, hw, "vllm serve x")["commands"]]
    assert captions[0] == "Copy 1: GPU 0, port 8000" and captions[-1] == "Copy 8: GPU 7, port 8007"
