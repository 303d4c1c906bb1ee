"""Prefill/decode topologies: the default stays the reference's, a pool on several nodes has every
node's command with its rank, each option carries plan.py's verdict, and the page's join of the
published parts (render/pd_json.py `joined`, which static/pd.js follows) equals what synthesis
renders for that topology."""

from __future__ import annotations

import itertools

import jsonschema
import pytest
from synthesis_kit import context, hw, recipe

from recipes_site import plan
from recipes_site.build import synthesized
from recipes_site.catalog import PROJECT_ROOT
from recipes_site.errors import ChoiceError
from recipes_site.pd_topology import pool_layouts, pool_options, topology_rendering
from recipes_site.render import pd_json
from recipes_site.render.api import recipe_documents
from recipes_site.render.inputs import deploy_doc_path, hw_doc_path
from recipes_site.render.rendering_json import rendering_json, user_variables
from recipes_site.render.schemas import schema_for
from recipes_site.site_config import site_config
from recipes_site.synthesis.choices import feature_choices
from recipes_site.synthesis.deployments import (
    PoolChoice,
    pd_default_topology,
    render_pd,
)
from recipes_site.synthesis.shell import export_lines

SEP = " \\\n  "


@pytest.fixture(scope="module")
def deepseek(recipes):
    return recipes["deepseek-ai/DeepSeek-V3"]


def _pd(recipe_data, hw_id, topology=None, variant="default"):
    r = render_pd(context(), recipe_data, variant, hw(hw_id), None, topology)
    assert r is not None
    return r


def test_the_default_topology_is_the_reference_rule_and_renders_as_before(deepseek):
    default = pd_default_topology(context(), deepseek, "default", hw("h100"))
    assert default == {"prefill": PoolChoice(2, "tp"), "decode": PoolChoice(2, "tp")}
    implicit, explicit = _pd(deepseek, "h100"), _pd(deepseek, "h100", default)
    assert rendering_json(implicit) == rendering_json(explicit)
    # the reference's objects describe the first node only
    assert "--node-rank" in implicit.prefill.process.argv
    assert (
        implicit.prefill.process.argv[implicit.prefill.process.argv.index("--node-rank") + 1] == "0"
    )
    assert "--headless" not in implicit.prefill.process.argv


def test_a_two_node_tp_pool_renders_its_second_node_headless_with_rank_1(deepseek):
    r = _pd(deepseek, "h100")
    [worker] = r.prefill.workers
    argv = worker.argv
    assert argv[argv.index("--node-rank") + 1] == "1"
    assert argv[argv.index("--nnodes") + 1] == "2"
    assert argv[argv.index("--master-addr") + 1] == "$PREFILL_NODE_1"
    assert argv[-1] == "--headless"
    # its NIXL side channel listens on its own node's address
    assert worker.env["VLLM_NIXL_SIDE_CHANNEL_HOST"] == "$PREFILL_NODE_2"
    assert r.prefill.process.env["VLLM_NIXL_SIDE_CHANNEL_HOST"] == "$PREFILL_NODE_1"
    doc = rendering_json(r)
    assert [w["node"] for w in doc["pool_workers"]["prefill"]] == [2]
    assert doc["pool_workers"]["decode"][0]["argv"] == list(r.decode.workers[0].argv)
    assert "PREFILL_NODE_2" in doc["user_variables"] and "DECODE_NODE_2" in doc["user_variables"]


def test_a_dep_pool_gives_each_node_its_start_rank_and_its_own_api(deepseek):
    r = _pd(deepseek, "h100", {"decode": PoolChoice(3, "dep")})
    nodes = (r.decode.process, *r.decode.workers)
    starts = [p.argv[p.argv.index("--data-parallel-start-rank") + 1] for p in nodes]
    assert starts == ["0", "8", "16"]
    for p in nodes:
        assert p.argv[p.argv.index("--data-parallel-size") + 1] == "24"
        assert "--data-parallel-hybrid-lb" in p.argv and "--headless" not in p.argv
        assert p.argv[p.argv.index("--data-parallel-address") + 1] == "$DECODE_NODE_1"
    # every node of a DEP pool serves: the router lists each; local DP size 8
    router = r.router.command
    assert [f"http://$DECODE_NODE_{i}:8002" in router for i in (1, 2, 3, 4)] == [1, 1, 1, 0]
    assert router.endswith("--intra-node-data-parallel-size 8")
    # the prefill pool keeps its default
    assert r.prefill.nodes == 2 and r.prefill.parallelism == "tp"


def test_options_carry_the_pool_plan_verdict(deepseek):
    options = pool_options(context(), deepseek, "default", hw("h100"), plan.RecipePlans(deepseek))
    by = {o.choice: o for o in options["prefill"]}
    assert by[PoolChoice(2, "tp")].fits and by[PoolChoice(2, "tp")].default
    one = by[PoolChoice(1, "tp")]
    assert not one.fits and "exceed" in one.reason and "cannot load the model" in one.reason
    three = by[PoolChoice(3, "tp")]  # TP 24 does not divide DeepSeek-V3's 128 heads
    assert not three.fits and "TP 24" in three.reason
    assert by[PoolChoice(3, "dep")].fits
    assert not by[PoolChoice(0, "dep")].fits and by[PoolChoice(0, "dep")].pool is None


def test_a_declared_pool_node_count_is_offered_and_marked_but_not_the_default():
    data = recipe(
        "acme/Big-MoE",
        vram=400,
        compatible_strategies=["single_node_tp", "multi_node_tp", "pd_cluster"],
        strategy_overrides={"pd_cluster": {"prefill": {"nodes": 6}}},
    )
    options = pool_options(context(), data, "default", hw("h100"), plan.RecipePlans(data))
    counts = sorted({o.choice.nodes for o in options["prefill"]})
    assert counts == [0, 1, 2, 3, 4, 6]
    assert all(o.declared == (o.choice.nodes == 6) for o in options["prefill"])
    assert pd_default_topology(context(), data, "default", hw("h100"))["prefill"].nodes == 1


def test_topology_rendering_refuses_with_what_is_allowed(deepseek):
    r = _pd(deepseek, "h100")
    with pytest.raises(
        ChoiceError, match=r"--prefill-mode dp: .*did you mean dep.*allowed: tp, tep, dep"
    ):
        topology_rendering(context(), deepseek, r, {"prefill": {"mode": "dp"}})
    with pytest.raises(
        ChoiceError, match=r"cannot start on h100: .*exceed.*did you mean 2 nodes, tp"
    ):
        topology_rendering(context(), deepseek, r, {"prefill": {"nodes": 1}})
    with pytest.raises(ChoiceError, match=r"--decode-nodes 7: .* takes 0, 1, 2, 3, 4 nodes"):
        topology_rendering(context(), deepseek, r, {"decode": {"nodes": 7}})
    laid = topology_rendering(context(), deepseek, r, {"decode": {"nodes": 4, "mode": "tep"}})
    assert laid.decode.nodes == 4 and len(laid.decode.workers) == 3


def _combos(entry):
    """Every fitting prefill option with the default decode option and the reverse, and the
    fitting pairs of different node counts."""
    fits = {
        role: [i for i, o in enumerate(entry[role]["options"]) if "procs" in o]
        for role in ("prefill", "decode")
    }
    default = {
        role: next(i for i, o in enumerate(entry[role]["options"]) if o.get("default"))
        for role in ("prefill", "decode")
    }
    out = {(p, default["decode"]) for p in fits["prefill"]}
    out |= {(default["prefill"], d) for d in fits["decode"]}
    out |= set(itertools.islice(itertools.product(fits["prefill"], fits["decode"]), 0, None, 7))
    return sorted(out)


@pytest.mark.parametrize(
    "hw_id,variant",
    [("h100", "default"), ("b300", "default"), ("b300", "nvfp4"), ("gb200", "default")],
)
def test_the_pages_join_of_the_part_equals_the_rendered_topology(deepseek, hw_id, variant):
    ctx = context()
    base = _pd(deepseek, hw_id, variant=variant)
    part = pd_json.standalone(ctx, deepseek, base)
    entry = part["renderings"]["r"]
    plans = plan.RecipePlans(deepseek)
    profile = ctx.profiles[hw_id]
    choices = feature_choices(deepseek, hw(hw_id), variant, "pd_cluster")
    shown = plan.rendering_plans(plans, base, profile, choices, False)
    checked = 0
    for p_index, d_index in _combos(entry):
        n_modes = len(entry["prefill"]["modes"])
        choice = {
            role: PoolChoice(entry[role]["nodes"][i // n_modes], entry[role]["modes"][i % n_modes])
            for role, i in (("prefill", p_index), ("decode", d_index))
        }
        r = _pd(deepseek, hw_id, choice, variant)
        got = pd_json.joined(part, "r", p_index, d_index, shown)
        for pool, nodes in ((r.prefill, got.prefill), (r.decode, got.decode)):
            procs = (pool.process, *pool.workers)
            assert [(export_lines(p.env), p.command, p.docker_command) for p in procs] == nodes
        assert got.router == r.router.command
        assert got.user_variables == user_variables(r)
        assert got.plan == plan.rendering_plans(plans, r, profile, choices, False)
        checked += 1
    assert checked > 10


def test_layouts_shared_between_profiles_equal_those_laid_out_on_each(recipes):
    """pd_json.SharedLayouts lays a recipe's pools out once for the profiles whose answers agree:
    each profile's layouts equal its own."""
    ctx = context()
    for hf_id in ("deepseek-ai/DeepSeek-V3", "moonshotai/Kimi-K2.6"):
        data = recipes[hf_id]
        shared = pd_json.SharedLayouts(ctx, data)
        for hw_id in ctx.profiles:
            if render_pd(ctx, data, "default", hw(hw_id)) is None:
                continue
            mine = pool_layouts(ctx, data, "default", hw(hw_id))
            got = shared.of("default", hw_id)
            for role in mine:
                assert [(x.choice, x.reason, x.default, x.declared) for x in got[role]] == [
                    (x.choice, x.reason, x.default, x.declared) for x in mine[role]
                ]
                for a, b in zip(got[role], mine[role]):
                    if a.pool is None:
                        assert b.pool is None
                        continue
                    assert [
                        (p.argv, p.env, p.docker_command) for p in (a.pool.process, *a.pool.workers)
                    ] == [
                        (p.argv, p.env, p.docker_command) for p in (b.pool.process, *b.pool.workers)
                    ]


def test_the_api_publishes_pool_workers_and_the_pd_topology_part(catalog, ctx):
    """The hardware document's PD rendering carries `pool_workers` beside the reference's objects,
    and deploy.json carries the `pd_topology` part; both follow their published schemas, and the
    part's default options join to the rendering as published."""
    config = site_config(PROJECT_ROOT)
    doc = next(d for d in catalog.recipes if d.hf_id == "deepseek-ai/DeepSeek-V3")
    docs, _ = recipe_documents(synthesized(catalog, ctx, doc, config), ctx)
    hw_doc = docs[hw_doc_path(doc.hf_id, "h100")]
    jsonschema.validate(hw_doc, schema_for("model-hardware"))
    r = next(x for x in hw_doc["renderings"] if x["strategy"] == "pd_cluster")
    assert [w["node"] for w in r["pool_workers"]["prefill"]] == [2]
    assert "--headless" in r["pool_workers"]["decode"][0]["argv"]
    assert "pd_topology" not in r and "pool_workers" not in r["prefill"]
    deploy = docs[deploy_doc_path(doc.hf_id)]
    jsonschema.validate(deploy, schema_for("model-deploy"))
    part = deploy["pd_topology"]
    key = "h100/default/pd_cluster/1"
    entry = part["renderings"][key]
    indices = {
        role: next(i for i, o in enumerate(entry[role]["options"]) if o.get("default"))
        for role in ("prefill", "decode")
    }
    got = pd_json.joined(part, key, indices["prefill"], indices["decode"], r["plan"])
    assert got.router == r["router"]["command"]
    assert got.prefill[0][1:] == (r["prefill"]["command"], r["prefill"]["docker_command"])
    assert got.decode[1][1] == r["pool_workers"]["decode"][0]["command"]
    assert got.user_variables == r["user_variables"]
    assert got.plan == r["plan"]
    # a model without PD renderings has no part
    other = next(d for d in catalog.recipes if d.hf_id == "Qwen/Qwen3-8B")
    docs, _ = recipe_documents(synthesized(catalog, ctx, other, config), ctx)
    assert "pd_topology" not in docs[deploy_doc_path(other.hf_id)]
