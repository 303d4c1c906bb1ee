"""Issue 26, any GPU count: the model page's GPUs row lays the command out on the GPUs a reader
has (gpu_counts.py), and the page shows exactly what `recipes-site command --gpus N` prints:
the command with its tensor-parallel size and --max-model-len, and one copy per replica."""

from __future__ import annotations

from browser_kit import Picker

from recipes_site.fit_report import gpu_layout, layout_replicas
from recipes_site.gpu_counts import layout_command
from recipes_site.render.picker import exports
from recipes_site.synthesis import render_choice

QWEN_32B = "Qwen/Qwen3-32B"  # TP 2 on an H100, four copies fill the node
LLAMA = "meta-llama/Llama-3.3-70B-Instruct"  # TP 8 on an H100: one GPU cannot hold it


def _expected(site, hf_id: str, hardware: str, gpus: int) -> tuple[str, list[str]]:
    """(the command, the replica commands) `recipes-site command --gpus` prints, serve form."""
    engine = site.engine
    r = render_choice(engine.ctx, engine.recipes[hf_id], "default", hardware)
    layout, member = gpu_layout(engine.ctx, engine.recipes[hf_id], r, gpus)
    env = exports(r.env)
    profile = engine.ctx.profiles[hardware]
    replicas = layout_replicas(r, layout, member, profile, exports=env) or []
    return env + layout_command(r.single.command, member, gpus), [c["command"] for c in replicas]


def _plan_commands(page) -> list[str]:
    return page.eval_on_selector_all("[data-plan-cmds] pre", "els => els.map(e => e.textContent)")


def _pick_gpus(p: Picker, value: str) -> None:
    p.radio("gpus", value).click()
    p.wait_attr(p.radio_selector("gpus", value), "aria-checked")


def test_two_gpus_of_an_eight_gpu_node_change_tp_and_replicas(page, project_site):
    p = Picker(page, project_site, QWEN_32B).open("?hardware=h100")
    s = p.check()
    assert "--tensor-parallel-size 2" in s.command
    assert len(_plan_commands(page)) == 4, "by default four TP 2 copies fill the 8-GPU node"
    values = [v for v, _, _ in p.options("gpus")]
    assert values == ["", "1", "2", "4", "8"]
    assert page.locator("[data-gpus-row]").is_visible()

    _pick_gpus(p, "2")
    command, replicas = _expected(project_site, QWEN_32B, "h100", 2)
    page.wait_for_function(
        "want => document.querySelector('pre[data-command]').textContent === want", arg=command
    )
    assert "--tensor-parallel-size 1" in command
    assert _plan_commands(page) == replicas and len(replicas) == 2
    assert "gpus=2" in page.url
    assert "2 copies" in page.locator("[data-summary]").text_content()

    # the URL reproduces the choice; "Recommended" gives the recipe's layout back
    p.open("?hardware=h100&gpus=2")
    assert p.state().command == command
    _pick_gpus(p, "")
    s = p.check()
    assert "--tensor-parallel-size 2" in s.command and "gpus=" not in page.url
    assert len(_plan_commands(page)) == 4


def test_a_count_too_small_is_dimmed_with_its_reason(page, project_site):
    p = Picker(page, project_site, LLAMA).open("?hardware=h100")
    options = {v: disabled for v, _, disabled in p.options("gpus")}
    assert options["1"] and not options["2"]
    title = p.radio("gpus", "1").get_attribute("title")
    assert title.startswith("needs 2 GPUs: weights")
    assert "needs 2 GPUs" in page.locator("[data-gpus-note]").text_content()
    _pick_gpus(p, "2")
    command, replicas = _expected(project_site, LLAMA, "h100", 2)
    page.wait_for_function(
        "want => document.querySelector('pre[data-command]').textContent === want", arg=command
    )
    assert "--tensor-parallel-size 2" in command and "--max-model-len" in command
    assert replicas == [] and _plan_commands(page) == []
    page.locator("[data-command-card] [data-form=docker]").click()
    page.wait_for_function(
        "() => document.querySelector('pre[data-command]').textContent.startsWith('docker run')"
    )
    docker = page.locator("pre[data-command]").text_content()
    assert docker.split(" \\\n  ")[-3:] == command.split(" \\\n  ")[-3:]


def test_a_strategy_without_layouts_hides_the_row(page, project_site):
    p = Picker(page, project_site, LLAMA).open("?hardware=h100")
    p.choose("strategy", "kv_store_centralized_mooncake")
    assert not page.locator("[data-gpus-row]").is_visible()
