"""Issue 24 point 6 in headless Chromium: the command card lists the shell variables a user sets
before pasting (the rendering's `user_variables`), and the throughput plan numbers its copies
from 1 with their GPUs as people write them ("GPU 0", "GPUs 0-3")."""

from __future__ import annotations

from browser_kit import Picker

R1 = "deepseek-ai/DeepSeek-R1-0528"
QWEN = "Qwen/Qwen3-8B"


def _vars(page) -> str | None:
    el = page.locator("[data-user-vars]")
    return el.text_content() if el.is_visible() else None


def test_the_card_lists_the_variables_to_set_first(page, project_site):
    p = Picker(page, project_site, R1).open()
    p.check()
    assert _vars(page) is None  # one node: nothing to set
    p.choose("hardware", "h100")
    s = p.choose("strategy", "multi_node_tp")
    assert s.nodes == "2"
    text = _vars(page)
    assert text is not None and text.startswith("Set before pasting: ")
    assert "$HEAD_IP" in text and "$IFACE_NAME" in text
    p.choose("strategy", "pd_cluster")
    assert "$PREFILL_NODE_1" in (_vars(page) or "")


def test_plan_copies_count_from_one(page, project_site):
    Picker(page, project_site, QWEN).open("?hardware=h100")
    captions = page.locator("[data-plan-cmds] p.hint").all_text_contents()
    assert captions and captions[0] == "Copy 1: GPU 0, port 8000", captions
    assert not any("Copy 0" in c or "GPUs 0," in c for c in captions)
