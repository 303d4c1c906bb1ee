"""Issue 4: recipe text is inert. A recipe whose guide holds `<script>`, `<img onerror>`, a
`javascript:` link (and friends) and whose title contains `</script>` renders as visible,
escaped text on every page that shows it: no dialog opens and nothing it carries executes,
before or after the picker re-renders and the link is clicked."""

from __future__ import annotations

import shutil

import pytest
import yaml
from browser_kit import PROJECT_ROOT, Picker, copy_recipes_root, run_builds

EVIL = "evil-org/Evil-8B"
TITLE = "Evil </script><script>window.__pwned=4</script> 8B"
IMG = '<img src=x onerror="window.__pwned=2">'
GUIDE = f"""## Payloads

<script>window.__pwned=1</script>

Inline {IMG} image.

A [click](javascript:window.__pwned=3) link, a [data link](data:text/html;base64,PHNjcmlwdD5hbGVydCg3KTwvc2NyaXB0Pg==)
and an [encoded one](jav&#x61;script:alert(8)).

<svg/onload=alert(5)>

| a | b |
|---|---|
| <b onmouseover=alert(9)>cell</b> | `<script>alert(10)</script>` |
"""
DESCRIPTION = '"><script>alert(6)</script><img src=x onerror="window.__pwned=6">'

CHECK_DOM = """() => ({
  pwned: window.__pwned === undefined ? null : String(window.__pwned),
  handlers: [...document.querySelectorAll('*')].flatMap(el => [...el.attributes]
      .filter(a => /^on/i.test(a.name)).map(a => el.tagName + ' ' + a.name)),
  bad_links: [...document.querySelectorAll('a[href], area[href], iframe, object, embed')]
      .filter(el => !el.href || /^(javascript|data|vbscript):/i.test(el.href) || el.tagName !== 'A' && el.tagName !== 'AREA')
      .map(el => el.outerHTML.slice(0, 120)),
  scripts: [...document.scripts].filter(s => s.type !== 'application/json' && /pwned|alert\\(/.test(s.textContent))
      .map(s => s.outerHTML.slice(0, 120)),
})"""


@pytest.fixture(scope="module")
def evil_site(tmp_path_factory, serve_folder):
    root = copy_recipes_root(tmp_path_factory.mktemp("evil-root"), ["Qwen/Qwen3-8B"])
    recipe = yaml.safe_load((PROJECT_ROOT / "models/Qwen/Qwen3-8B.yaml").read_text())
    recipe["meta"].update(
        title=TITLE,
        slug="evil-8b",
        provider="Evil <b>Org</b>",
        description=DESCRIPTION,
        related_recipes=["Qwen/Qwen3-8B"],
    )
    recipe["model"]["model_id"] = EVIL
    recipe["variants"] = {"default": {**recipe["variants"]["default"], "description": IMG}}
    recipe["features"]["reasoning"]["description"] = "<script>window.__pwned=7</script>"
    recipe["guide"] = GUIDE
    target = root / "models" / f"{EVIL}.yaml"
    target.parent.mkdir(parents=True)
    target.write_text(yaml.safe_dump(recipe, sort_keys=False, allow_unicode=True))
    out = tmp_path_factory.mktemp("evil-site") / "site"
    result = run_builds({"evil": (root, out)})["evil"]
    assert result.returncode == 0, f"the evil recipes root does not build:\n{result.stdout[-3000:]}"
    if not (out / "index.html").is_file():
        pytest.skip("the site pages are not built yet")
    yield serve_folder("evil", root, out)
    shutil.rmtree(root, ignore_errors=True)


def assert_inert(page, page_errors, where: str) -> None:
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(150)  # let any onerror / onload fire
    dom = page.evaluate(CHECK_DOM)
    assert dom["pwned"] is None, f"{where}: recipe text executed (window.__pwned = {dom['pwned']})"
    assert not page_errors.dialogs, f"{where}: dialogs opened: {page_errors.dialogs}"
    assert not dom["handlers"], (
        f"{where}: event-handler attributes in the DOM: {dom['handlers'][:5]}"
    )
    assert not dom["bad_links"], f"{where}: unsafe links or embeds: {dom['bad_links'][:5]}"
    assert not dom["scripts"], (
        f"{where}: recipe text inside an executable script: {dom['scripts'][:3]}"
    )


def test_model_page_is_inert(page, page_errors, evil_site):
    p = Picker(page, evil_site, EVIL).open()
    assert_inert(page, page_errors, "model page")
    # the title and the guide's markup show as text
    assert TITLE in page.locator("h1").first.inner_text()
    assert TITLE in page.title()
    body = page.locator("main").inner_text()
    assert "<script>window.__pwned=1</script>" in body
    assert IMG in body
    assert "<svg/onload=alert(5)>" in body
    assert DESCRIPTION in body
    # the dropped link keeps its text (as a link with a safe href, or as plain text); clicking does nothing
    link = page.locator("main a").filter(has_text="click")
    (link if link.count() else page.locator("main p").filter(has_text="click")).first.click()
    assert_inert(page, page_errors, "model page after clicking the javascript: link")
    assert page.url.startswith(evil_site(f"/{EVIL}/"))
    # the picker re-renders from its data: still inert, and still the engine's command
    p.check()
    p.choose("hardware", "h100")
    p.toggle_feature("reasoning")
    page.locator("[data-command-card] [data-form=docker]").click()
    assert_inert(page, page_errors, "model page after picker changes")


@pytest.mark.parametrize(
    "path", ["/", "/evil-org/", "/hardware/h200/", "/hardware/", "/evil-org/Evil-9B/"]
)
def test_other_pages_are_inert(path, page, page_errors, evil_site):
    page_errors.allowed.append(r"status of 404 .*Evil-9B")
    page.goto(evil_site(path))
    assert_inert(page, page_errors, path)
    if path == "/":
        page.locator("input[type=search][data-search]").fill("evil")
        page.wait_for_timeout(200)
        assert_inert(page, page_errors, "index after searching")
        assert "</script><script>window.__pwned=4</script>" in page.locator("main").inner_text()
