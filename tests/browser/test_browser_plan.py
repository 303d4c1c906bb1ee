"""Issue 11, "one plan per rendering", in headless Chromium: the card header, the memory panel, the
KV figures and the throughput plan describe the command shown, in every picker state of five
large recipes (every variant, hardware, strategy, node count and feature state that changes
memory). The states are walked in one page per recipe (history.pushState + popstate, the way the
back button drives the picker), and each view is compared with pages.py's reading of the plan
that plan.py computed for that very command."""

from __future__ import annotations

import json
import shlex

import pytest
from browser_kit import Picker

from recipes_site import fit
from recipes_site.render.pages import (
    kv_view,
    node_pills,
    plan_facts,
    plan_of,
    plan_view,
    process_text,
)

BIG = (
    "moonshotai/Kimi-K2.6",
    "deepseek-ai/DeepSeek-V3.2",
    "meta-llama/Llama-3.3-70B-Instruct",
    "openai/gpt-oss-120b",
    "Qwen/Qwen3.5-397B-A17B",
)

WALK = """async urls => {
  const P = document.querySelector('[data-picker]'), out = [];
  const text = sel => { const el = P.querySelector(sel); return el ? el.textContent : null; };
  const checked = axis => { const b = P.querySelector(`[data-axis=${axis}] [aria-checked=true]`); return b && b.dataset.value; };
  for (const url of urls) {
    history.pushState(null, '', url);
    dispatchEvent(new PopStateEvent('popstate'));
    await new Promise(r => setTimeout(r, 0));
    while (P.hasAttribute('aria-busy')) await new Promise(r => setTimeout(r, 5));
    const warn = P.querySelector('[data-plan-warning]'), kv = P.querySelector('[data-kv]');
    out.push({
      url, hardware: checked('hardware'), variant: checked('variant'), strategy: checked('strategy'), nodes: checked('nodes'),
      features: [...P.querySelectorAll('input[data-feature]')].filter(i => i.checked).map(i => i.dataset.feature),
      summary: text('[data-summary]'), command: text('pre[data-command]'),
      warn: warn.hidden ? null : warn.textContent,
      facts: [...P.querySelectorAll('[data-sizing-facts] > div')].map(d => [d.querySelector('dt').textContent, d.querySelector('dd').textContent]),
      why: text('[data-sizing-why]'), whyClass: P.querySelector('[data-sizing-why]').className,
      kv: kv && !kv.hidden ? text('[data-kv-verdict]') : null,
      plan: text('[data-plan-sum]'), plans: [...P.querySelectorAll('[data-plan-cmds] pre')].map(p => p.textContent),
      note: text('[data-variant-note]'),
      pills: [...P.querySelectorAll('[data-axis=nodes] [role=radio]')].map(b => [+b.dataset.value, b.querySelector('b').textContent, b.querySelector('small').textContent]),
    });
  }
  return out;
}"""


def _docs(site, hf_id: str) -> dict[str, dict]:
    folder = site.out / "api" / "v1" / "models" / hf_id / "hw"
    return {p.stem: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))}


def _feature_states(doc: dict, r: dict, conflicts: list) -> list[tuple[str, list]]:
    """(features= value, chosen features) of the defaults and of every state with its own plan that
    a user can reach (a state's own features win over the default they conflict with)."""
    features = doc["feature_sets"][r["parts"]["features"]]
    by_name = {f["name"]: f for f in features}
    default = [
        (
            f,
            next((m for m in f["modes"] if m["name"] == f["default"]), f["modes"][0])
            if f.get("modes")
            else None,
        )
        for f in features
        if f.get("default") not in (False, None)
    ]
    out = [("", default)]
    if r["parts"]["features_locked"]:
        return out
    keys = r["plan"].get("keys", [])
    for key in r["plan"].get("by", {}):
        chosen = [(f, m) for f, m in default if f["name"] not in keys]
        for item in filter(None, key.split(",")):
            name, _, mode = item.partition(":")
            f = by_name[name]
            rivals = {n for g in conflicts if name in g for n in g if n != name}
            chosen = [(g, m) for g, m in chosen if g["name"] not in rivals]
            chosen.append((f, next(m for m in f["modes"] if m["name"] == mode) if mode else None))
        names = [f["name"] for f, _ in chosen]
        if any(sum(n in names for n in g) > 1 for g in conflicts):
            continue  # two features of one conflict group: not a picker state
        chosen.sort(key=lambda fm: features.index(fm[0]))
        value = (
            ",".join(f"{f['name']}:{m['name']}" if m else f["name"] for f, m in chosen)
            or "none-of-these"
        )
        out.append((value, chosen))
    return out


def _states(docs: dict[str, dict], conflicts: list):
    for hw, doc in docs.items():
        for tree, pick in doc["recommended"].items():
            rs = [r for r in doc["renderings"] if r["variant"] == pick["variant"]]
            for r in rs:
                for features, chosen in _feature_states(doc, r, conflicts):
                    query = f"?hardware={hw}&variant={tree}&strategy={r['strategy']}&nodes={r['node_count']}"
                    if features:
                        query += "&features=" + features
                    yield query, doc, tree, r, rs, chosen


def _argv(command: str) -> list[str]:
    body = "\n".join(line for line in command.split("\n") if not line.startswith("export "))
    return shlex.split(body.replace(" \\\n  ", " "))


@pytest.mark.parametrize("hf_id", BIG)
def test_every_picker_state_describes_the_command_shown(page, project_site, hf_id):
    docs = _docs(project_site, hf_id)
    picker = Picker(page, project_site, hf_id).open()
    data = json.loads(page.evaluate("document.getElementById('picker-data').textContent"))
    states = list(_states(docs, data.get("conflicts") or []))
    assert len(states) > 50
    views = page.evaluate(WALK, [f"/{hf_id}/{q}" for q, *_ in states])
    assert picker is not None and len(views) == len(states)
    cannot_start = replicated = 0
    for (query, doc, tree, r, rs, chosen), v in zip(states, views):
        where = f"{hf_id}/{query}"
        hw = doc["hardware"]
        assert (v["hardware"], v["variant"], v["strategy"], v["nodes"]) == (
            hw,
            tree,
            r["strategy"],
            str(r["node_count"]),
        ), where
        assert v["features"] == [f["name"] for f, _ in chosen] or r["parts"]["features_locked"], (
            where
        )
        p = plan_of(r, chosen, data["hardware"][hw])
        # the command shown is the rendering's, with the chosen feature lines
        first = dict(r["parts"]["processes"][0], kind="process")
        command = process_text(r, first, chosen, locked=r["parts"]["features_locked"])
        assert v["command"] == command, where
        # the header: the command's GPUs and TP
        shape = fit.shape_from_argv(_argv(command))
        assert v["summary"] == r["parts"]["summary"] and v["summary"].startswith(
            f"{p['gpus']}× "
        ), where
        if (
            r["deploy_type"] != "pd_cluster"
        ):  # a PD plan describes the decode pool, the first tab is prefill
            assert (p["tp"], p["pp"], p["dp"]) == (shape.tp, shape.pp, shape.dp), where
            assert f"TP={shape.tp}" in v["summary"], where
        # the memory panel and the card's warning
        label = data["hardware"][hw]["gpu"]
        facts = plan_facts(p, label)
        assert v["facts"] == [list(f) for f in facts["facts"]] and v["why"] == p["reason"], where
        assert v["whyClass"] == ("fits" if facts["ok"] else "over"), where
        assert (v["warn"] is None) == facts["ok"], where
        if not facts["ok"]:
            cannot_start += 1
            assert p["reason"] in v["warn"], where
        if p["kv_bytes_per_token_per_gpu"] is not None:
            assert v["kv"] == kv_view(p)["verdict"], where
        # the throughput plan: copies of this very command
        pv = plan_view(r, p, data["hardware"][hw], command)
        assert v["plan"] == pv["summary"] and v["plans"] == [c for _, _, c in pv["commands"]], where
        replicated += bool(pv["commands"])
        for copy in v["plans"]:
            assert command in copy, where
        # the variant note names the checkpoint the command serves
        served = (r.get("argv") or r.get("head_argv") or r.get("vllm_argv") or r["decode"]["argv"])[
            2
        ]
        assert served in v["note"], where
        assert v["pills"] == [
            list(x) for x in node_pills(rs, r["strategy"], sorted({x["node_count"] for x in rs}))
        ], where
    assert cannot_start + replicated > 0


def test_a_variant_that_falls_back_says_what_it_serves(page, project_site):
    """Kimi-K2.6 FP8 on 8 RTX Pro 6000: the command serves the INT4 checkpoint; the note says so and
    the header and panel describe the INT4 command."""
    p = Picker(page, project_site, "moonshotai/Kimi-K2.6").open(
        "?variant=fp8&hardware=rtx_pro_6000_8x"
    )
    doc = _docs(project_site, "moonshotai/Kimi-K2.6")["rtx_pro_6000_8x"]
    pick = doc["recommended"]["fp8"]
    assert pick["variant"] != "fp8"
    note = page.text_content("[data-variant-note]")
    assert "does not run on" in note and "this command serves" in note
    summary = page.text_content("[data-summary]")
    assert summary.endswith(pick["variant"].upper()) or "INT4" in summary
    assert "does not fit" not in page.text_content("[data-sizing]")
    assert p is not None


def test_unknown_features_in_the_url_keep_the_defaults(page, project_site):
    llama = "meta-llama/Llama-3.3-70B-Instruct"
    Picker(page, project_site, llama).open()
    default = page.eval_on_selector_all(
        "input[data-feature]", "els => els.filter(e => e.checked).map(e => e.dataset.feature)"
    )
    assert default, "Llama starts with tool calling on"
    Picker(page, project_site, llama).open("?features=foo")
    after = page.eval_on_selector_all(
        "input[data-feature]", "els => els.filter(e => e.checked).map(e => e.dataset.feature)"
    )
    assert after == default


def test_text_only_and_encoder_parallel_are_never_both_on(page, project_site):
    """The taxonomy's feature_conflicts (data, not script): checking one feature of a group unchecks
    the others, and a URL naming both keeps the first."""
    vl = "Qwen/Qwen3-VL-235B-A22B-Instruct"
    on = "els => els.filter(e => e.checked).map(e => e.dataset.feature)"
    Picker(page, project_site, vl).open()
    assert "encoder_parallel" in page.eval_on_selector_all("input[data-feature]", on)
    page.check('input[data-feature="text_only"]')
    now = page.eval_on_selector_all("input[data-feature]", on)
    assert "text_only" in now and "encoder_parallel" not in now
    assert "--mm-encoder-tp-mode" not in page.text_content("pre[data-command]")
    page.check('input[data-feature="encoder_parallel"]')
    now = page.eval_on_selector_all("input[data-feature]", on)
    assert "encoder_parallel" in now and "text_only" not in now
    Picker(page, project_site, vl).open("?features=text_only,encoder_parallel,tool_calling")
    now = page.eval_on_selector_all("input[data-feature]", on)
    assert "text_only" in now and "encoder_parallel" not in now and "tool_calling" in now
