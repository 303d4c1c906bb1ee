"""Issue 24, "pages tell one truth", in headless Chromium: no "Verified on X" and no plain Copy
beside a command that cannot start; a shared URL keeps its hardware and says what runs there;
the card's window note says what the command's own --max-model-len says; axe-core finds no
violation on model pages in the light and the dark theme."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest
from browser_kit import Picker, new_context

V32 = "deepseek-ai/DeepSeek-V3.2"
QWEN8 = "Qwen/Qwen3-8B"
QWEN27 = "Qwen/Qwen3.5-27B"
LLAMA = "meta-llama/Llama-3.3-70B-Instruct"


def _card(page) -> dict:
    return page.evaluate(
        """() => {
      const q = s => document.querySelector(s);
      const copy = q('[data-copy]');
      return {warning: q('[data-plan-warning]').hidden ? null : q('[data-plan-warning]').textContent,
              verified: !q('[data-verified]').hidden, copy: copy.textContent.trim(),
              described: copy.getAttribute('aria-describedby'),
              window: q('[data-window]').textContent, note: q('[data-variant-note]').textContent,
              picker: JSON.parse(q('#picker-data').textContent)};
    }"""
    )


def test_a_command_that_cannot_start_is_not_verified_and_copies_only_anyway(page, project_site):
    p = Picker(page, project_site, V32).open("?hardware=h100&nodes=1")
    assert p.check().hardware == "h100"
    card = _card(page)
    assert card["picker"]["hardware"]["h100"]["verified"], "the recipe verifies H100"
    assert card["warning"] and "cannot start" in card["warning"], card
    assert not card["verified"], "Verified on H100 beside a command that cannot start"
    assert card["copy"] == "Copy anyway" and card["described"] == "plan-warning", card
    # the recommended two-node command starts: verified, plain Copy
    p.choose("nodes", "2")
    card = _card(page)
    assert card["warning"] is None and card["verified"] and card["copy"] == "Copy", card
    assert card["described"] is None


def test_a_shared_url_keeps_its_hardware_and_says_what_runs_there(page, project_site):
    p = Picker(page, project_site, QWEN8).open("?hardware=h100&variant=nvfp4")
    page.wait_for_selector("[data-variant-note] [data-missing]")
    s = p.check()
    assert s.hardware == "h100", f"the URL asked for H100, the page shows {s.hardware}"
    q = {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}
    assert q == {"hardware": "h100", "variant": "nvfp4"}, f"the URL was rewritten: {page.url}"
    card = _card(page)
    variants = card["picker"]["variants"]
    assert f"{variants['nvfp4']['label']} is not available on H100" in card["note"], card["note"]
    runs = [v["label"] for v in variants.values() if "h100" in v["hardware"]]
    assert runs and all(label in card["note"] for label in runs), (runs, card["note"])
    assert variants[s.variant]["hardware"].count("h100") == 1


def test_a_url_hardware_no_variant_runs_on_is_named(page, project_site):
    p = Picker(page, project_site, QWEN8).open("?hardware=trillium")
    page.wait_for_selector("[data-variant-note] [data-missing]")
    assert p.check().hardware != "trillium"
    assert "No variant of this recipe runs on TPU" in _card(page)["note"]


def _max_model_len(command: str) -> int | None:
    m = re.search(r"--max-model-len[ =](\d+)", command)
    return int(m.group(1)) if m else None


@pytest.mark.parametrize(
    "hf_id, variant, hardware",
    [(QWEN27, "default", "h100"), (QWEN27, "default", "b200"), (LLAMA, "int4", "h100")],
)
def test_the_window_note_says_what_the_command_passes(page, project_site, hf_id, variant, hardware):
    p = Picker(page, project_site, hf_id).open(f"?hardware={hardware}&variant={variant}")
    s = p.check()
    note, full = _card(page)["window"], _card(page)["picker"]["variants"][variant]["context_length"]
    limit = _max_model_len(s.command)
    if limit is not None and limit < full:
        assert f"--max-model-len {limit}" in note and f"up to {limit:,} tokens" in note, note
    else:
        assert f"full {full:,}-token window" in note, (note, s.command)


def test_the_window_note_of_a_reduced_window_names_its_flag(page, project_site):
    """Llama-3.3-70B INT4 on one H100: the command lowers --max-model-len, and the note says so."""
    p = Picker(page, project_site, LLAMA).open("?hardware=h100&variant=int4")
    command = p.check().command
    assert _max_model_len(command), command
    assert f"--max-model-len {_max_model_len(command)}" in _card(page)["window"]


AXE_PAGES = [
    f"/{V32}/?hardware=h100&nodes=1",  # the "cannot start" warning on the card
    f"/{QWEN8}/?hardware=h100&variant=nvfp4",  # the missing-variant note
    f"/{LLAMA}/",
    "/openai/gpt-oss-120b/",  # a guide with highlighted code
    "/moonshotai/Kimi-K2.6/",  # the largest page
    "/deepseek-ai/DeepSeek-R1/?hardware=h100&strategy=pd_cluster",  # process tabs
    "/Qwen/Qwen3.5-27B/",  # linear-attention state in the memory panel
    "/google/gemma-3-27b-it/?hardware=rtx_5090",  # sliding windows, a consumer card
]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_violation_on_model_pages(browser, project_site, page_errors, scheme):
    from axe_playwright_python.sync_playwright import Axe  # the test extra (pyproject.toml)

    axe = Axe()
    context = new_context(browser, color_scheme=scheme)
    try:
        context.on("page", page_errors.attach)
        page = context.new_page()
        found = []
        for path in AXE_PAGES:
            page.goto(project_site(path))
            page.wait_for_selector("[data-picker]:not([aria-busy]) pre[data-command]")
            results = axe.run(page).response
            found += [
                (path, v["id"], [n["target"] for n in v["nodes"]][:3], v["help"])
                for v in results["violations"]
            ]
        assert not found, "\n".join(map(str, found))
        assert not page_errors.errors, page_errors.errors
    finally:
        context.close()


@pytest.mark.parametrize("hf_id", [QWEN27, LLAMA, V32])
def test_the_server_rendered_window_note_is_the_script_s(page, project_site, hf_id):
    import html

    source = (project_site.out / hf_id / "index.html").read_text(encoding="utf-8")
    served = html.unescape(re.search(r"<p class=\"hint\" data-window>([^<]*)</p>", source).group(1))
    Picker(page, project_site, hf_id).open()
    assert served and _card(page)["window"] == served
