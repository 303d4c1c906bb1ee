"""Issue 26 (points 6, 7): the command is above the fold, hardware that cannot run the model is
collapsed with its reasons as visible text, a model opens on the smallest hardware that fits
comfortably, and the "Runs on" rows open their layout in the picker."""

from __future__ import annotations

import json
import re

import pytest
from browser_kit import new_context

MODELS = ("/Qwen/Qwen3-8B/", "/moonshotai/Kimi-K2.6/", "/meta-llama/Llama-3.3-70B-Instruct/")
# the longest pages above the card: an install block with optional extras, long descriptions
MORE = ("/deepseek-ai/DeepSeek-V3.2/", "/nvidia/NVIDIA-Nemotron-Nano-9B-v2/")

# the bottom edge of the command's first line, in viewport pixels (the page is not scrolled)
FIRST_LINE_BOTTOM = """() => {
  const pre = document.querySelector('[data-command]');
  const text = pre.firstChild, end = text.textContent.indexOf('\\n');
  const range = document.createRange();
  range.setStart(text, 0);
  range.setEnd(text, end < 0 ? text.textContent.length : end);
  return [window.scrollY, range.getClientRects()[0].bottom];
}"""


def _open(browser, site, path: str, width: int, height: int):
    context = new_context(browser, viewport={"width": width, "height": height})
    page = context.new_page()
    page.goto(site(path))
    page.wait_for_load_state("networkidle")
    return context, page


@pytest.mark.parametrize("path", MODELS + MORE)
def test_the_command_is_above_the_fold_on_a_desktop(browser, project_site, path):
    context, page = _open(browser, project_site, path, 1440, 900)
    try:
        scrolled, bottom = page.evaluate(FIRST_LINE_BOTTOM)
        assert scrolled == 0
        assert 0 < bottom < 900, f"{path}: the first command line ends at y={bottom}"
        assert page.locator("[data-command]").inner_text().startswith(("vllm serve", "export", "#"))
    finally:
        context.close()


@pytest.mark.parametrize("path", MODELS + MORE)
def test_the_command_card_starts_on_the_first_phone_screen(browser, project_site, path):
    context, page = _open(browser, project_site, path, 390, 844)
    try:
        box = page.locator("[data-command-card]").bounding_box()
        assert box is not None and box["y"] < 844, f"{path}: the command card starts at {box}"
        assert page.evaluate("window.scrollY") == 0
    finally:
        context.close()


def test_hardware_that_cannot_run_the_model_is_collapsed_with_reasons(browser, project_site):
    context, page = _open(browser, project_site, "/Qwen/Qwen3-8B/", 1440, 900)
    try:
        group = page.locator("[data-hw-off]")
        summary = group.locator("summary").inner_text()
        n = int(re.match(r"(\d+) more profiles? can't run it$", summary).group(1))
        assert group.get_attribute("open") is None  # collapsed
        items = group.locator("li")
        assert not items.first.is_visible()
        group.locator("summary").click()
        listed = []
        for text in items.all_inner_texts():
            names, reason = text.split(": ", 1)
            assert reason.strip()  # the reason is text on the page, not a tooltip
            listed += names.split(", ")
        assert items.first.is_visible()
        assert len(listed) == n
        pills = page.locator("[data-axis=hardware] [role=radio] b").all_inner_texts()
        assert pills and not set(listed) & set(pills)
    finally:
        context.close()


def test_qwen3_8b_opens_on_the_smallest_hardware_that_fits(browser, project_site):
    model = json.loads((project_site.out / "api/v1/models/Qwen/Qwen3-8B.json").read_text())
    want = model["default_hardware"]["default"]
    assert want != "h200"
    context, page = _open(browser, project_site, "/Qwen/Qwen3-8B/", 1440, 900)
    try:
        checked = page.locator("[data-axis=hardware] [aria-checked=true]")
        assert checked.get_attribute("data-value") == want
        assert page.locator("[data-summary]").inner_text().startswith("1× ")
        assert "?" not in page.url  # the default view needs no URL parameter
    finally:
        context.close()


def test_a_runs_on_row_opens_its_layout_in_the_picker(browser, project_site):
    context, page = _open(browser, project_site, "/moonshotai/Kimi-K2.6/", 1440, 900)
    try:
        links = page.locator("#runs-on tbody a")
        assert links.count() > 0
        row = links.last
        href = row.get_attribute("href")
        hw = re.search(r"\?hardware=([\w-]+)", href).group(1)
        gpus = row.inner_text().split(" GPU")[0]
        row.click()
        page.wait_for_load_state("networkidle")
        checked = page.locator("[data-axis=hardware] [aria-checked=true]")
        assert checked.get_attribute("data-value") == hw
        assert page.locator("[data-summary]").inner_text().startswith(f"{gpus}× ")
    finally:
        context.close()


def test_every_model_page_shows_its_command_on_the_first_screen(browser, project_site):
    """Every recipe whose install block has no required step (those open the Install panel,
    which a reader must follow before serving): the first command line within 1440x900 and
    the card's top within 390x844."""
    models = json.loads((project_site.out / "api/v1/models.json").read_text())["models"]
    late = []
    for (width, height), measure in (((1440, 900), "line"), ((390, 844), "card")):
        context = new_context(browser, viewport={"width": width, "height": height})
        page = context.new_page()
        try:
            for m in models:
                page.goto(project_site(f"/{m['id']}/"))
                if not page.locator("[data-command]").count():
                    continue  # an omni recipe: no command
                if page.locator("details#install[open]").count():
                    continue
                y = (
                    page.evaluate(FIRST_LINE_BOTTOM)[1]
                    if measure == "line"
                    else page.locator("[data-command-card]").bounding_box()["y"]
                )
                if y >= height:
                    late.append((m["id"], width, round(y)))
        finally:
            context.close()
    assert not late, late
