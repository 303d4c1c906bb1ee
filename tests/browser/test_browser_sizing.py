"""Issue 5, item 5: the sizing panel of the model page in headless Chromium.

The panel's context-length and concurrency inputs, its memory bar and its verdict are fed only by
the engine's numbers (the API's `kv_sizing`, embedded in the page) through the page formulas of
fit.py `panel_entry`, which site.js transcribes as `window.kvFit`. Here the page's own function is
evaluated in Chromium and compared with `fit.fit_deployment` for many inputs, the panel's text is
compared with pages.py `kv_view` (the server-rendered first view) after each input, the panel
follows hardware and strategy, the throughput plan's copy buttons copy the engine's replica
commands, and a recipe without `model.hf_config` keeps the weights-only sizing."""

from __future__ import annotations

import json

from browser_kit import Picker

from recipes_site import fit, sizing
from recipes_site.render.pages import default_choice, kv_view, plan_of, plan_view
from recipes_site.synthesis import render_choice

LLAMA = "meta-llama/Llama-3.3-70B-Instruct"
R1 = "deepseek-ai/DeepSeek-R1-0528"
GEMMA = "google/gemma-3-27b-it"
GPT_OSS = "openai/gpt-oss-120b"

READ_PANEL = """() => {
  const kv = document.querySelector('[data-kv]');
  const items = sel => [...kv.querySelectorAll(sel)].map(el => el.textContent);
  return {hidden: kv.hidden, verdict: kv.querySelector('[data-kv-verdict]').textContent,
          ok: kv.querySelector('[data-kv-verdict]').className,
          facts: [...kv.querySelectorAll('[data-kv-facts] > div')].map(d => [d.querySelector('dt').textContent, d.querySelector('dd').textContent]),
          legend: items('[data-kv-legend] li'),
          parts: [...kv.querySelectorAll('[data-kv-bar] span')].map(s => [s.dataset.part, s.style.width]),
          aria: kv.querySelector('[data-kv-bar]').getAttribute('aria-label'),
          len: kv.querySelector('[data-kv-len]').value, conc: kv.querySelector('[data-kv-conc]').value};
}"""


def model_doc(site, hf_id: str) -> dict:
    return json.loads((site.out / "api" / "v1" / "models" / f"{hf_id}.json").read_text())


def entry_of(site, hf_id: str, variant: str, hw: str, strategy: str, nodes: int = 1) -> dict:
    """What the panel shows: the plan (plan.py) of that rendering with its default features, expanded."""
    doc = json.loads((site.out / "api" / "v1" / "models" / hf_id / "hw" / f"{hw}.json").read_text())
    pick = doc["recommended"][variant]
    r = next(
        x
        for x in doc["renderings"]
        if (x["variant"], x["strategy"], x["node_count"]) == (pick["variant"], strategy, nodes)
    )
    profile = doc["hardware_profile"]
    entry = {
        "label": profile.get("display_name") or hw,
        "gpu": sizing.gpu_label(profile, hw),
        "vram_per_gpu_gb": round(fit.gpu_memory(profile).total_gib, 2),  # picker_summary's
    }
    p = plan_of(r, default_choice(doc["feature_sets"][r["parts"]["features"]]), entry)
    return dict(p, evaluated_len=p["context_length"])


def kv_entry_of(site, hf_id: str, variant: str, hw: str, strategy: str, nodes: int = 1) -> dict:
    """The API's kv_sizing entry of a rendering (the page formulas' reference inputs)."""
    return next(
        e
        for e in model_doc(site, hf_id)["kv_sizing"][variant][hw]["deployments"]
        if e["strategy"] == strategy and e["node_count"] == nodes
    )


def expected_panel(entry: dict, length: int, concurrency: int) -> dict:
    """What the panel must show: pages.py `kv_view` (numbers from fit.panel_figures)."""
    v = kv_view(entry, length, concurrency)
    return {
        "verdict": v["verdict"],
        "ok": "" if v["ok"] is None else ("fits" if v["ok"] else "over"),
        "facts": [list(f) for f in v["facts"]],
        "legend": [text for _, text, _ in v["parts"]],
        "parts": [[key, float(width[:-1])] for key, _, width in v["parts"]],
        "aria": v["aria"],
    }


def shown(page) -> dict:
    raw = page.evaluate(READ_PANEL)
    assert raw["hidden"] is False, "the KV panel is hidden"
    raw["parts"] = [
        [key, float(width[:-1])] for key, width in raw["parts"]
    ]  # the browser writes 10% for 10.00%
    return raw


def assert_panel(page, entry, length, concurrency):
    want = expected_panel(entry, length, concurrency)
    got = shown(page)
    for key, value in want.items():
        assert got[key] == value, (
            f"{key} at length {length}, concurrency {concurrency}: page {got[key]!r}, engine {value!r}"
        )


def set_inputs(page, length=None, concurrency=None):
    if length is not None:
        page.fill("[data-kv] [data-kv-len]", str(length))
    if concurrency is not None:
        page.fill("[data-kv] [data-kv-conc]", str(concurrency))


def test_the_page_formulas_in_chromium_are_fit_py(page, project_site):
    """window.kvFit (site.js) against fit.fit_deployment: GQA, sliding windows + chunked prefill,
    MLA, data parallel ranks, a length cut by the engine's --max-model-len."""
    Picker(page, project_site, LLAMA).open()
    engine = project_site.engine
    cases = [
        (LLAMA, "default", "h100", "single_node_tp", 1),
        (LLAMA, "default", "b200", "single_node_tp", 1),
        (LLAMA, "fp8", "h100", "single_node_tp", 1),
        (GEMMA, "default", "h100", "single_node_tp", 1),
        (GPT_OSS, "default", "h200", "single_node_tp", 1),
        (R1, "default", "h200", "single_node_tp", 1),
        (R1, "default", "h200", "single_node_dep", 1),
        (R1, "default", "h100", "multi_node_tp", 2),
    ]
    batch, want = [], []
    for hf, variant, hw, strategy, nodes in cases:
        e = kv_entry_of(project_site, hf, variant, hw, strategy, nodes)
        r = render_choice(
            engine.ctx, engine.recipes[hf], variant, hw, strategy, nodes if nodes > 1 else None
        )
        shape = fit.shape_from_argv(fit.memory_process(r).argv)
        cap = e["context_length"]
        for length in (1, 100, 129, 1024 + 2048, 8192 + 1025, 30_000, cap // 2, cap):
            for concurrency in (1, 3, 8, 33, 512):
                ref = fit.fit_deployment(
                    engine.recipes[hf],
                    r.variant,
                    hw,
                    engine.ctx.profiles[hw],
                    shape,
                    evaluate_len=length,
                    concurrency=concurrency,
                )
                batch.append([e, length, concurrency])
                want.append(
                    [
                        ref.max_concurrency,
                        ref.max_model_len_at_concurrency,
                        fit.panel_figures(e, length, concurrency)["needed_bytes"],
                    ]
                )
    got = page.evaluate(
        "batch => batch.map(([e, L, C]) => { const f = kvFit.figures(e, L, C); return [f.requests, f.longest, f.needed]; })",
        batch,
    )
    assert len(got) == len(want) > 300
    for (e, length, concurrency), g, w in zip(batch, got, want):
        assert g == w, (
            f"{e['strategy']} tp={e.get('tp')} length {length} concurrency {concurrency}: page {g}, fit.py {w}"
        )


def test_the_inputs_drive_the_panel(page, project_site):
    p = Picker(page, project_site, LLAMA).open()
    s = p.check()
    e = entry_of(project_site, LLAMA, s.variant, s.hardware, s.strategy, int(s.nodes))
    assert shown(page)["len"] == str(e["evaluated_len"]) and shown(page)["conc"] == "1"
    assert_panel(page, e, e["evaluated_len"], 1)
    for length, concurrency in (
        (131_072, 64),
        (32_768, 3),
        (8_000, 200),
        (1, 1),
        (131_072, 100_000),
    ):
        set_inputs(page, length, concurrency)
        assert_panel(page, e, length, concurrency)
        assert shown(page)["ok"] == (
            "fits" if fit.panel_figures(e, length, concurrency)["fits"] else "over"
        )
    # out-of-range input is clamped: the length to the recipe's context, the concurrency to at least 1
    set_inputs(page, 10_000_000, 0)
    assert_panel(page, e, e["context_length"], 1)
    # the user's length stays when the hardware changes; the figures are the new hardware's
    set_inputs(page, 65_536, 12)
    s = p.choose("hardware", "h100")
    assert_panel(
        page, entry_of(project_site, LLAMA, s.variant, "h100", s.strategy, int(s.nodes)), 65_536, 12
    )
    s = p.choose("variant", "fp8")
    assert_panel(
        page, entry_of(project_site, LLAMA, "fp8", "h100", s.strategy, int(s.nodes)), 65_536, 12
    )


def test_the_sizing_inputs_live_in_the_url(page, project_site):
    """A shared link reproduces the panel: length and concurrency are query parameters, kept
    across hardware changes, restored on reload; untouched inputs add nothing to the URL."""

    def query(page):
        return page.evaluate("location.search")

    p = Picker(page, project_site, LLAMA).open()
    assert "len=" not in query(page) and "conc=" not in query(page)
    set_inputs(page, 32_768, 3)
    assert "len=32768" in query(page) and "conc=3" in query(page)
    s = p.choose("hardware", "h100")
    assert "hardware=h100" in query(page) and "len=32768" in query(page) and "conc=3" in query(page)
    page.reload()
    p.check()
    e = entry_of(project_site, LLAMA, s.variant, "h100", s.strategy, int(s.nodes))
    assert (shown(page)["len"], shown(page)["conc"]) == ("32768", "3")
    assert_panel(page, e, 32_768, 3)
    p = Picker(page, project_site, LLAMA).open("?len=8000&conc=12")
    s = p.check()
    assert_panel(
        page,
        entry_of(project_site, LLAMA, s.variant, s.hardware, s.strategy, int(s.nodes)),
        8_000,
        12,
    )
    page.go_back()  # the earlier page, with its own inputs
    p.check()
    assert (shown(page)["len"], shown(page)["conc"]) == ("32768", "3")


def test_the_panel_follows_the_strategy_and_node_count(page, project_site):
    p = Picker(page, project_site, R1).open("?hardware=h200")
    seen = set()
    for strategy in ("single_node_tp", "single_node_dep", "multi_node_tp"):
        s = p.choose("strategy", strategy)
        e = entry_of(project_site, R1, s.variant, "h200", s.strategy, int(s.nodes))
        assert_panel(page, e, e["evaluated_len"], 1)
        seen.add((e["tp"], e["dp"]))
    assert len(seen) == 3, seen  # TP 8, DP 8 and TP 16 over two nodes: three different budgets
    s = p.choose(
        "hardware", "h100"
    )  # too big for one H100 node: multi-node only, and no single-node plan
    e = entry_of(project_site, R1, s.variant, "h100", s.strategy, int(s.nodes))
    assert_panel(page, e, e["evaluated_len"], 1)
    assert (
        page.locator("[data-plan-sum]").inner_text() == "One copy of this command: it uses 2 nodes."
    )
    assert page.locator("[data-plan-cmds] pre").count() == 0


def test_the_throughput_plan_lists_and_copies_the_replica_commands(page, project_site):
    """The throughput plan copies the command shown onto the node's other GPUs: with its features
    (spec decoding's --speculative-config) and in its form (docker run)."""
    p = Picker(page, project_site, LLAMA).open("?hardware=h200&variant=fp8")
    p.check()
    doc = json.loads((project_site.out / f"api/v1/models/{LLAMA}/hw/h200.json").read_text())
    r = next(
        x for x in doc["renderings"] if x["variant"] == "fp8" and x["strategy"] == "single_node_tp"
    )
    features = doc["feature_sets"][r["parts"]["features"]]
    chosen = default_choice(features)
    hw = {"gpu_count": 8, "label": "H200", "gpu": "H200", "vram_per_gpu_gb": 141.0}
    command = page.locator("pre[data-command]").text_content()
    view = plan_view(r, plan_of(r, chosen, hw), hw, command)
    assert page.locator("[data-plan] h4").inner_text() == "Throughput plan"
    assert page.locator("[data-plan-sum]").inner_text() == view["summary"]
    pres = page.locator("[data-plan-cmds] pre")
    assert pres.count() == len(view["commands"]) == 8
    for i, (_, _, text) in enumerate(view["commands"]):
        assert pres.nth(i).text_content() == text
        assert text.startswith(f"export CUDA_VISIBLE_DEVICES={i}\n" + command) and text.endswith(
            f"--port {8000 + i}"
        )
    button = page.locator('[data-plan-cmds] button[data-copy-from="plan-cmd-1"]')
    button.click()
    page.wait_for_function(
        "() => document.querySelector('[data-plan-cmds] button[data-copy-from=\"plan-cmd-1\"]').textContent === 'Copied'"
    )
    assert page.evaluate("() => navigator.clipboard.readText()") == view["commands"][1][2]
    # spec decoding on: the plan counts the draft head, every copy carries --speculative-config
    page.check('input[data-feature="spec_decoding"]')
    assert "--speculative-config" in page.locator("pre[data-command]").text_content()
    assert all(
        "--speculative-config" in t
        for t in page.locator("[data-plan-cmds] pre").all_text_contents()
    )
    spec = plan_of(
        r, chosen + [(next(f for f in features if f["name"] == "spec_decoding"), None)], hw
    )
    assert (
        spec["draft"]
        and page.locator("[data-plan-sum]").inner_text()
        == plan_view(r, spec, hw, page.locator("pre[data-command]").text_content())["summary"]
    )
    # docker form: each copy is its own container on its GPUs and port
    page.click('[data-form="docker"]')
    copies = page.locator("[data-plan-cmds] pre").all_text_contents()
    assert (
        copies[2].startswith("docker run --gpus all \\\n  -e CUDA_VISIBLE_DEVICES=2 \\\n")
        and "-p 8002:8002" in copies[2]
    )
    assert copies[2].endswith("--port 8002") and "--speculative-config" in copies[2]


def test_a_recipe_without_hf_config_keeps_the_weights_only_sizing(page, compat_site):
    models = json.loads((compat_site.out / "api/v1/models.json").read_text())["models"]
    hf_id = next(m["id"] for m in models if m["hardware"])
    assert "kv_sizing" not in model_doc(compat_site, hf_id)
    Picker(page, compat_site, hf_id).open()
    assert page.locator("[data-sizing] [data-kv]").count() == 0
    # the weights side of the plan still stands: the panel and the throughput plan describe the command
    assert page.locator("[data-sizing] [data-plan]").count() == 1
    assert (
        "GiB of weights" in page.locator("[data-sizing-why]").inner_text()
        or "exceed" in page.locator("[data-sizing-why]").inner_text()
    )
    missing = page.locator("[data-sizing] [data-kv-missing]")
    assert missing.is_visible()
    assert "model.hf_config (num_hidden_layers, num_attention_heads" in missing.inner_text()
    assert page.locator("[data-sizing-why]").inner_text().strip()
