"""Issue 27: the header search dropdown of every page. "/", Ctrl+K and Cmd+K focus it; empty, it
lists the latest recipes (newest meta.date_added first, as api/v1/search/header.json says) and
"Browse all"; typing narrows to matching providers and recipes; Up/Down move the active option
(aria-activedescendant), Enter opens it, Escape closes the list."""

from __future__ import annotations

import json

import pytest

MODEL = "Qwen/Qwen3-8B"


def _header(site) -> dict:
    return json.loads((site.out / "api/v1/search/header.json").read_text())


def _open(page, site, path: str = f"/{MODEL}/"):
    page.goto(site(path))
    box = page.locator("input[data-site-search]")
    assert box.get_attribute("role") == "combobox"
    assert box.get_attribute("aria-expanded") == "false"
    return box


def _options(page) -> list[str]:
    return page.locator("#ss-list [role=option] b").all_inner_texts()


@pytest.mark.parametrize("keys", ["/", "Control+k", "Meta+k"])
def test_the_shortcuts_focus_the_box_and_open_the_latest_recipes(page, project_site, keys):
    box = _open(page, project_site)
    page.locator("h1").first.click()  # focus on the page, not in a field
    page.keyboard.press(keys)
    page.wait_for_function("document.activeElement.matches('[data-site-search]')")
    page.wait_for_selector("#ss-list:not([hidden]) [role=option]")
    assert box.get_attribute("aria-expanded") == "true"
    latest = [r["title"] for r in _header(project_site)["latest"]]
    shown = _options(page)
    assert shown[: len(latest)] == latest
    assert shown[len(latest)].startswith("Browse all ")
    assert box.input_value() == ""  # "/" is not typed into the box


def test_arrows_move_the_active_option_and_enter_opens_it(page, project_site):
    box = _open(page, project_site)
    box.focus()
    page.wait_for_selector("#ss-list:not([hidden]) [role=option]")
    first, second = _header(project_site)["latest"][:2]
    box.press("ArrowDown")
    assert box.get_attribute("aria-activedescendant") == "ss-0"
    assert page.locator("#ss-0").get_attribute("aria-selected") == "true"
    box.press("ArrowDown")
    box.press("ArrowUp")
    box.press("ArrowDown")
    assert page.locator("#ss-1").get_attribute("aria-selected") == "true"
    assert page.locator("#ss-0").get_attribute("aria-selected") == "false"
    with page.expect_navigation():
        box.press("Enter")
    assert page.url.endswith(f"/{second['id']}/")
    assert first["id"] != second["id"]


def test_typing_finds_recipes_and_providers_and_escape_closes(page, project_site):
    box = _open(page, project_site, "/hardware/")
    box.focus()
    box.fill("qwen3 8b")
    page.wait_for_function(
        "[...document.querySelectorAll('#ss-list [role=option] small')]"
        ".some(e => e.textContent.startsWith('Qwen/Qwen3-8B'))"
    )
    texts = _options(page)
    assert texts[-1].startswith("Browse ") and "matching" in texts[-1]
    box.fill("qwen")
    page.wait_for_function(
        "document.querySelector('#ss-list [role=option]').dataset.href.endsWith('/Qwen/')"
    )
    box.press("Escape")
    assert page.locator("#ss-list").is_hidden()
    assert box.get_attribute("aria-expanded") == "false"
    box.press("ArrowDown")  # reopens
    page.wait_for_selector("#ss-list:not([hidden])")
    box.press("ArrowDown")
    with page.expect_navigation():
        box.press("Enter")
    assert page.url.rstrip("/").endswith("/Qwen")


def test_enter_without_an_active_option_searches_the_catalog(page, project_site):
    box = _open(page, project_site)
    box.focus()
    box.fill("llama")
    page.wait_for_selector("#ss-list:not([hidden]) [role=option]")
    with page.expect_navigation():
        box.press("Enter")
    assert page.url.endswith("/?q=llama")
    page.wait_for_selector("[data-recipe-row]")


def test_the_empty_dropdown_browses_by_task_and_by_provider(page, project_site):
    box = _open(page, project_site)
    box.focus()
    page.wait_for_selector("#ss-list:not([hidden]) [role=option]")
    hrefs = page.eval_on_selector_all(
        "#ss-list [role=option]", "els => els.map(e => e.dataset.href)"
    )
    doc = _header(project_site)
    for task, _label, _n in doc["tasks"]:
        assert f"/?task={task}" in hrefs
    top = doc["providers"][0][0]
    assert f"/{top}/" in hrefs
    with page.expect_navigation():
        page.locator(f'#ss-list [role=option][data-href$="/{top}/"]').click()
    assert page.url.endswith(f"/{top}/")
