"""Issue 4 acceptance: choosing hardware, variant, strategy, nodes, a feature or a feature mode
shows exactly the engine's rendering for that choice (render_choice: the `export` lines then
the command in serve form, the docker command in docker form), on every process tab of
multi-node, prefill/decode and kv-store layouts; copy puts that text on the clipboard."""

from __future__ import annotations

import json

from browser_kit import Picker

LLAMA = "meta-llama/Llama-3.3-70B-Instruct"
R1 = "deepseek-ai/DeepSeek-R1-0528"
QWEN_MOE = "Qwen/Qwen3-30B-A3B"


def choose_other_nodes(p: Picker):
    others = [v for v, checked, disabled in p.options("nodes") if not checked and not disabled]
    assert others, (
        f"{p.hf_id}: the nodes axis offers no other node count for {p.state().choice} "
        f"(options: {p.options('nodes')})"
    )
    return p.choose("nodes", others[0])


# -- our own recipes --------------------------------------------------------------------------


def test_llama_hardware_variant_strategy_feature_and_forms(page, project_site):
    p = Picker(page, project_site, LLAMA).open()
    s = p.check()
    model = json.loads((project_site.out / f"api/v1/models/{LLAMA}.json").read_text())
    assert (s.hardware, s.variant) == (model["default_hardware"]["default"], "default"), (
        "the default view is the recipe's default hardware"
    )
    assert p.choose("hardware", "h100").hardware == "h100"
    assert p.choose("variant", "fp8").variant == "fp8"
    before = p.state().features
    s = p.toggle_feature("tool_calling")
    assert s.features != before
    assert p.form("docker").command.startswith("docker run")
    assert p.form("serve").command.startswith(("export ", "vllm serve"))
    s = p.choose("strategy", "kv_store_centralized_mooncake")
    assert s.strategy == "kv_store_centralized_mooncake"
    p.check_every_tab()
    p.choose("strategy", "single_node_tp")
    p.choose("hardware", "rtx_pro_6000")
    p.choose("variant", "default")  # rendered from the FP8 variant on this card
    p.choose("hardware", "mi300x")  # FP8 weights need NVIDIA: only the default variant runs here
    assert page.locator("[data-sizing]").is_visible()


def test_deepseek_r1_multi_node_prefill_decode_and_amd_exports(page, project_site):
    p = Picker(page, project_site, R1).open()
    p.check()
    p.choose("hardware", "h100")
    s = p.choose("strategy", "multi_node_tp")
    assert s.nodes == "2", s.choice
    assert p.check_every_tab() == ["head", "worker-1"]
    p.toggle_feature("spec_decoding")
    p.tab("worker-1")
    p.form("docker")
    p.form("serve")
    assert p.choose("strategy", "pd_cluster").strategy == "pd_cluster"
    assert p.check_every_tab() == ["prefill", "decode"]
    s = p.choose("hardware", "mi300x")
    assert "export VLLM_ROCM_USE_AITER=" in s.command, "AMD hardware exports its environment"


def test_new_hardware_gets_its_recommended_layout(page, project_site):
    """Before the user picks a strategy, changing hardware shows that hardware's recommended
    layout (806 GB of FP8 do not fit 8 x 80 GB: two H100 nodes), as the engine decides."""
    p = Picker(page, project_site, R1).open()
    for hw in ("h100", "mi300x", "gb200", "b200"):
        s = p.choose("hardware", hw)
        want = p.site.engine.recommended(R1, s.variant, hw)
        assert (s.strategy, int(s.nodes or 1)) == want, (
            f"on {hw} the page shows {s.choice}; the engine recommends {want}"
        )


def test_deepseek_r1_choosing_nodes(page, project_site):
    p = Picker(page, project_site, R1).open()
    s = p.check()
    assert s.nodes == "1" or s.nodes is None
    s = choose_other_nodes(p)
    assert len(p.site.engine.process_ids(p.hf_id, s)) > 1, "more nodes give one tab per node"
    p.check_every_tab()
    p.choose("hardware", "h100")
    p.choose("strategy", "multi_node_tep")
    if len([1 for _, _, disabled in p.options("nodes") if not disabled]) > 1:
        choose_other_nodes(p)
        p.check_every_tab(forms=("serve",))


def test_qwen_moe_variant_strategy_and_feature(page, project_site):
    p = Picker(page, project_site, QWEN_MOE).open()
    p.choose("hardware", "dgx_spark_gb10")
    p.choose("variant", "fp8")
    p.choose("strategy", "single_node_dep")
    p.toggle_feature("reasoning")
    p.form("docker")
    p.choose("hardware", "mi325x")
    p.toggle_feature("reasoning")


# -- the compat corpus ------------------------------------------------------------------------


def test_compat_deepseek_v32_every_layout(page, compat_site):
    p = Picker(page, compat_site, "deepseek-ai/DeepSeek-V3.2").open()
    p.check()
    p.choose("hardware", "h100")
    p.choose("strategy", "multi_node_tp")
    assert p.check_every_tab() == ["head", "worker-1"]
    p.choose("strategy", "pd_cluster")
    assert p.check_every_tab() == ["prefill", "decode"]
    p.choose("strategy", "kv_store_distributed_mooncake")
    assert p.check_every_tab() == ["instance", "instance-worker-1"]
    p.toggle_feature("spec_decoding")
    p.tab("instance-worker-1")


def test_compat_kimi_features_and_locked_layouts(page, compat_site):
    p = Picker(page, compat_site, "moonshotai/Kimi-K2.5").open()
    p.toggle_feature("text_only")
    p.toggle_feature("encoder_parallel")
    p.choose("strategy", "single_node_tep")
    p.choose("hardware", "b200")
    p.choose("variant", "nvfp4")
    p.choose("variant", "default")
    p.choose("hardware", "mi355x")  # some layouts there are `features_locked`
    for strategy, _, disabled in p.options("strategy"):
        if not disabled:
            p.choose("strategy", strategy)


def test_compat_feature_mode(page, compat_site):
    p = Picker(page, compat_site, "zai-org/GLM-5.2").open()
    s = p.toggle_feature("spec_decoding")
    assert dict(s.features).get("spec_decoding") in ("mtp", "dspark"), s.features
    assert dict(p.set_mode("spec_decoding", "dspark").features)["spec_decoding"] == "dspark"
    assert dict(p.set_mode("spec_decoding", "mtp").features)["spec_decoding"] == "mtp"
    p.form("docker")
    p.choose("hardware", "h100")
    p.check_every_tab()


# -- copy -------------------------------------------------------------------------------------


def test_copy_puts_the_command_on_the_clipboard(page, project_site):
    p = Picker(page, project_site, R1).open()
    p.choose("hardware", "h100")
    p.choose("strategy", "multi_node_tp")
    status = page.locator("[data-command-card] [data-copy-status]")
    if status.count() == 0:
        status = page.locator("[data-copy-status]").first
    for form, tab in (("serve", "head"), ("docker", "worker-1"), ("serve", "worker-1")):
        p.form(form)
        s = p.tab(tab)
        page.evaluate("() => navigator.clipboard.writeText('')")
        page.locator("[data-command-card] button[data-copy]").click()
        page.wait_for_function(
            "el => /Copied/.test(el.textContent)", arg=status.element_handle(), timeout=3000
        )
        copied = page.evaluate("() => navigator.clipboard.readText()")
        assert copied == s.command == p.site.engine.expected(p.hf_id, s), (form, tab)
    assert status.get_attribute("role") == "status" or status.get_attribute("aria-live") in (
        "polite",
        "assertive",
    ), "screen readers hear 'Copied': the status is a live region"


# -- keyboard ---------------------------------------------------------------------------------


def test_keyboard_moves_within_radio_groups(page, project_site):
    """Radio-group semantics: one tab stop per group (the checked option), arrows move and choose."""
    p = Picker(page, project_site, QWEN_MOE).open()
    group = '[data-picker] [role=radiogroup][data-axis="hardware"]'
    stops = page.eval_on_selector_all(
        f"{group} [role=radio]", "els => els.filter(e => e.tabIndex === 0).length"
    )
    assert stops == 1, f"{stops} tab stops in the hardware radio group"
    before = p.state()
    page.locator(f"{group} [role=radio][aria-checked=true]").focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        f"() => document.activeElement.matches('{group} [role=radio]') && "
        f"document.activeElement.getAttribute('aria-checked') === 'true'"
    )
    after = p.check()
    assert after.hardware != before.hardware
    enabled = [v for v, _, disabled in p.options("hardware") if not disabled]
    assert enabled.index(after.hardware) == (enabled.index(before.hardware) + 1) % len(enabled)
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("hw => document.activeElement.dataset.value === hw", arg=before.hardware)
    assert p.check().hardware == before.hardware
