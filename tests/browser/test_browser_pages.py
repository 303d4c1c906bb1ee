"""Issue 4: every page type loads with no console error and no uncaught exception (the `page`
fixture fails the test on any), and a screenshot of each is saved for review under
tests/browser/artifacts/ (git-ignored)."""

from __future__ import annotations

import json
import re

import pytest
from browser_kit import PageErrors, new_context

PAGE_TYPES = {
    "index": ("/", 200),
    "model": ("/meta-llama/Llama-3.3-70B-Instruct/", 200),
    "model-multinode": ("/deepseek-ai/DeepSeek-R1-0528/?hardware=h100", 200),
    "provider": ("/Qwen/", 200),
    "hardware-index": ("/hardware/", 200),
    "hardware": ("/hardware/h200/", 200),
    "404": ("/no-such-org/No-Such-Model-7B/", 404),
}


def visit(page, site, path: str, status: int):
    resp = page.goto(site(path))
    assert resp is not None and resp.status == status, (
        f"{path} answered {resp and resp.status}, want {status}"
    )
    page.wait_for_load_state("networkidle")
    return resp


@pytest.mark.parametrize("kind", list(PAGE_TYPES))
def test_page_type_loads_cleanly(kind, page, page_errors, project_site, artifacts):
    path, status = PAGE_TYPES[kind]
    if status == 404:
        # the browser reports the document's own 404 status on the console; nothing else may fail
        page_errors.allowed.append(r"status of 404 .*No-Such-Model-7B")
    visit(page, project_site, path, status)
    assert page.locator("main h1, h1").first.inner_text().strip(), f"{kind} page has a heading"
    if kind == "404":
        links = page.locator("a").filter(has_text=re.compile("request|contribute", re.I))
        assert links.count() >= 1, "the 404 page offers to request or contribute a recipe"
    if kind.startswith("model"):
        assert page.locator("[data-picker] pre[data-command]").inner_text().strip()
    page.screenshot(path=str(artifacts / f"project-{kind}.png"), full_page=True)


def test_model_page_phone_dark_screenshot(browser, project_site, artifacts):
    errors = PageErrors()
    ctx = new_context(
        browser,
        viewport={"width": 390, "height": 844},
        color_scheme="dark",
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    try:
        page = ctx.new_page()
        errors.attach(page)
        visit(page, project_site, "/deepseek-ai/DeepSeek-R1-0528/", 200)
        width = page.evaluate("() => document.documentElement.scrollWidth")
        page.screenshot(path=str(artifacts / "project-model-phone-dark.png"), full_page=True)
        assert width <= 390 + 1, f"the model page scrolls sideways on a phone ({width}px wide)"
    finally:
        ctx.close()
    assert not errors.errors, errors.errors


def largest_model_page(site) -> str:
    models = json.loads((site.out / "api/v1/models.json").read_text())["models"]
    return max(
        (m["id"] for m in models), key=lambda i: (site.out / i / "index.html").stat().st_size
    )


@pytest.mark.parametrize("kind", ["index", "model-largest", "hardware"])
def test_compat_page_types_load_cleanly(kind, page, compat_site, artifacts):
    path = {
        "index": "/",
        "model-largest": f"/{largest_model_page(compat_site)}/",
        "hardware": "/hardware/b200/",
    }[kind]
    visit(page, compat_site, path, 200)
    page.screenshot(path=str(artifacts / f"compat-{kind}.png"), full_page=True)
