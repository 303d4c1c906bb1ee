"""Issue 27, points 2 and 3, in headless Chromium: the Verify and Bench panels show verification.py's
snippets of the command shown, and the tuning table changes the command and the memory panel
together, to exactly what plan.py computes for the tuned command (`plan.plan_of` of its argv)."""

from __future__ import annotations

import json
import shlex

import pytest

from recipes_site import fit, plan, verification
from recipes_site.build import synthesis_context
from recipes_site.catalog import load_catalog
from recipes_site.synthesis import render_choice

MODEL = "Qwen/Qwen3-8B"
GIB = 2**30

FACTS = """() => Object.fromEntries([...document.querySelectorAll('[data-kv-facts] > div')]
  .map(d => [d.querySelector('dt').textContent, d.querySelector('dd').textContent]))"""


@pytest.fixture(scope="module")
def engine(project_site):
    catalog, _ = load_catalog(project_site.root)
    ctx = synthesis_context(catalog)
    recipe = next(d.data for d in catalog.recipes if d.hf_id == MODEL)
    return ctx, recipe


def _hardware(page) -> str:
    return page.get_attribute("[data-axis=hardware] [aria-checked=true]", "data-value")


def _command(page) -> str:
    return page.text_content("pre[data-command]")


def _plan_of_command(engine, hw: str, command: str) -> dict:
    """plan.py's plan of the command as the page shows it."""
    ctx, recipe = engine
    argv = shlex.split(command)
    r = render_choice(ctx, recipe, "default", hw, None, None, None)
    shape = fit.shape_from_argv(argv)
    return plan.plan_of(
        plan.RecipePlans(recipe), r.variant, ctx.profiles[hw], argv, gpus=shape.gpus, nodes=1
    )


def _fmt(n: int) -> str:
    return f"{n:,}"


def _assert_panel_shows(page, p: dict) -> None:
    facts = page.evaluate(FACTS)
    length = p["context_length"]
    assert facts[f"Requests of {_fmt(length)} tokens"] == f"{_fmt(p['concurrency'])} at once"
    kv = facts["KV cache"]
    assert kv.startswith(f"{p['kv_cache_bytes_per_gpu'] / GIB:.1f} GiB per GPU"), (kv, p)
    assert facts["KV per token"] == f"{_fmt(round(p['kv_bytes_per_token_per_gpu']))} B per GPU"
    expected = "fits" if p["verdict"] == "fits" else "over"
    assert page.get_attribute("[data-sizing-why]", "class") == expected


def test_tuning_changes_command_and_memory_plan_together(page, project_site, engine):
    page.goto(project_site(f"/{MODEL}/"))
    hw = _hardware(page)
    rendered = _command(page)
    _assert_panel_shows(page, _plan_of_command(engine, hw, rendered))
    page.click("[data-vt=tune]")
    page.wait_for_selector("select[data-tune=L]")
    # the default values: the page's figures are the published plan's
    _assert_panel_shows(page, _plan_of_command(engine, hw, rendered))

    page.select_option("select[data-tune=L]", label="8192")
    shown = _command(page)
    assert shown == rendered + " \\\n  --max-model-len 8192"
    short = _plan_of_command(engine, hw, shown)
    assert short["context_length"] == 8192
    _assert_panel_shows(page, short)
    assert "Reset the tuning" in page.text_content("[data-plan-sum]")

    page.select_option("select[data-tune=d]", label="fp8")
    shown = _command(page)
    assert shown.endswith("--max-model-len 8192 \\\n  --kv-cache-dtype fp8")
    halved = _plan_of_command(engine, hw, shown)
    assert halved["kv_bytes_per_token_per_gpu"] * 2 == short["kv_bytes_per_token_per_gpu"]
    assert halved["concurrency"] > short["concurrency"]
    _assert_panel_shows(page, halved)

    page.select_option("select[data-tune=u]", label="0.85")
    shown = _command(page)
    assert "--gpu-memory-utilization 0.85" in shown
    _assert_panel_shows(page, _plan_of_command(engine, hw, shown))

    page.click("[data-tune-reset]")
    assert _command(page) == rendered
    _assert_panel_shows(page, _plan_of_command(engine, hw, rendered))


def test_verify_and_bench_panels_show_the_snippets_of_the_command(page, project_site, engine):
    ctx, recipe = engine
    page.goto(project_site(f"/{MODEL}/"))
    hw = _hardware(page)
    r = render_choice(ctx, recipe, "default", hw, None, None, None)
    p = plan.rendering_plan(plan.RecipePlans(recipe), r, ctx.profiles[hw])
    v = verification.verification(recipe, r, ctx.profiles[hw], p)
    page.click("[data-vt=curl]")
    page.wait_for_selector("#vt-pre")
    assert page.text_content("#vt-pre") == v["curl"]
    assert page.get_attribute("[data-vt=curl]", "aria-expanded") == "true"
    page.click("[data-vt=bench]")
    assert page.text_content("#vt-pre") == v["bench"]
    page.click("[data-vt-pop] button.copy")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == v["bench"]
    page.keyboard.press("Escape")
    assert page.is_hidden("[data-vt-pop]")
    # the snippet follows the picker: another hardware, another KV bound
    doc = json.loads((project_site.out / f"api/v1/models/{MODEL}/verify.json").read_text())
    other = next(h for h in doc["hardware"] if h != hw)
    page.click(f"[data-axis=hardware] [data-value={other}]")
    page.click("[data-vt=bench]")
    r2 = render_choice(ctx, recipe, "default", other, None, None, None)
    p2 = plan.rendering_plan(plan.RecipePlans(recipe), r2, ctx.profiles[other])
    v2 = verification.verification(recipe, r2, ctx.profiles[other], p2)
    page.wait_for_function(
        "t => document.querySelector('#vt-pre') && document.querySelector('#vt-pre').textContent === t",
        arg=v2["bench"],
    )
