"""Issue 4: the index's search (words in any order, one typo per word) and facet filters narrow
the rows and update the result count; clear-all restores everything; `/` and Ctrl+K focus
the search."""

from __future__ import annotations

import re

from browser_kit import models_index

LLAMA = "meta-llama/Llama-3.3-70B-Instruct"
QWEN_MOE = "Qwen/Qwen3-30B-A3B"
QWEN_DENSE = "Qwen/Qwen3-8B"

VISIBLE_IDS = """() => [...document.querySelectorAll('[data-recipe-row]')]
  .filter(r => !r.hidden && !r.closest('[hidden]')).map(r => r.dataset.id)"""


class Index:
    def __init__(self, page, site):
        self.page, self.site = page, site
        resp = page.goto(site("/"))
        assert resp is not None and resp.status == 200
        page.wait_for_selector("[data-recipe-row]")
        self.search = page.locator("input[type=search][data-search]")
        self.count = page.locator("[data-result-count]")

    def visible(self) -> set[str]:
        return set(self.page.evaluate(VISIBLE_IDS))

    def shown_count(self) -> int:
        m = re.search(r"\d+", self.count.inner_text())
        assert m, f"no number in the result count {self.count.inner_text()!r}"
        return int(m.group())

    def settle(self, predicate, what: str) -> set[str]:
        """Wait (search may be debounced) until the visible rows satisfy `predicate`."""
        for _ in range(60):
            rows = self.visible()
            if predicate(rows) and self.shown_count() == len(rows):
                return rows
            self.page.wait_for_timeout(50)
        raise AssertionError(
            f"{what}: visible rows {sorted(rows)}, count says {self.count.inner_text()!r}"
        )

    def facet(self, facet: str, value: str):
        box = self.page.locator(f'input[data-facet="{facet}"][value="{value}"]')
        assert box.count() == 1, f"no {facet} facet {value!r}"
        box.check()


def test_search_and_facet_narrow_and_clear_restores(page, project_site):
    ix = Index(page, project_site)
    models = models_index(project_site)
    everything = set(models)
    assert ix.visible() == everything and ix.shown_count() == len(everything)

    # words in any order, one typo ("lama") tolerated
    ix.search.fill("70b lama")
    rows = ix.settle(lambda r: LLAMA in r and len(r) < len(everything), "search '70b lama'")
    assert QWEN_DENSE not in rows

    ix.search.fill("")
    ix.settle(lambda r: r == everything, "empty search")

    # one facet: exactly the MoE recipes
    moe = {i for i, m in models.items() if m.get("architecture") == "moe"}
    assert QWEN_MOE in moe and QWEN_DENSE not in moe
    ix.facet("architecture", "moe")
    ix.settle(lambda r: r == moe, "architecture=moe")

    # search and facet together
    ix.search.fill("qwen")
    rows = ix.settle(lambda r: r <= moe and QWEN_MOE in r, "'qwen' + moe")
    assert QWEN_DENSE not in rows

    page.locator("[data-clear-filters]").click()
    ix.settle(lambda r: r == everything, "clear all")
    assert ix.search.input_value() == ""
    assert page.locator("input[data-facet]:checked").count() == 0


def test_hardware_and_precision_facets_match_the_api(page, project_site):
    ix = Index(page, project_site)
    models = models_index(project_site)
    ix.facet("precision", "nvfp4")
    want = {i for i, m in models.items() if "nvfp4" in m.get("precisions", [])}
    ix.settle(lambda r: r == want, "precision=nvfp4")
    page.locator("[data-clear-filters]").click()
    ix.facet("hardware", "rtx_5090")
    want = {i for i, m in models.items() if "rtx_5090" in m.get("hardware", [])}
    assert want, "some recipe runs on rtx_5090"
    ix.settle(lambda r: r == want, "hardware=rtx_5090")


def test_slash_and_ctrl_k_focus_the_search(page, project_site):
    ix = Index(page, project_site)
    focused = "() => document.activeElement && document.activeElement.matches('input[type=search][data-search]')"
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("/")
    assert page.evaluate(focused), "'/' focuses the search"
    assert ix.search.input_value() == "", "the '/' itself is not typed into the search"
    page.locator("h1").first.click()
    page.keyboard.press("Control+k")
    assert page.evaluate(focused), "Ctrl+K focuses the search"
