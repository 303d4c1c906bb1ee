"""Issue 4: picker state lives in the URL (defaults omitted) so a link reproduces the view;
back/forward restore earlier choices; the last chosen hardware is remembered across pages."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from browser_kit import Picker, new_context

QWEN_MOE = "Qwen/Qwen3-30B-A3B"
R1 = "deepseek-ai/DeepSeek-R1-0528"
LLAMA = "meta-llama/Llama-3.3-70B-Instruct"


def query(page) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}


def feature_param(value: str) -> dict:
    out = {}
    for item in filter(None, value.split(",")):
        name, _, mode = item.partition(":")
        out[name] = mode or None
    return out


def same_view(a, b) -> bool:
    return (a.choice, a.form, a.process, a.command) == (b.choice, b.form, b.process, b.command)


def wait_for_hardware(p: Picker, hw: str):
    p.page.wait_for_function(
        'hw => !!document.querySelector(`[data-picker] [data-axis=hardware] [role=radio][data-value="${hw}"][aria-checked=true]`)',
        arg=hw,
        timeout=5000,
    )
    return p.check()


def test_url_reproduces_the_view(browser, page, project_site, page_errors):
    p = Picker(page, project_site, QWEN_MOE).open()
    p.check()
    assert query(page) == {}, f"the default view has no query string: {page.url}"
    p.choose("hardware", "h200")  # not the default hardware of either variant
    p.choose("variant", "fp8")
    p.choose("strategy", "single_node_tep")
    s = p.toggle_feature("reasoning")
    q = query(page)
    assert (q.get("hardware"), q.get("variant"), q.get("strategy")) == (
        "h200",
        "fp8",
        "single_node_tep",
    ), page.url
    assert "nodes" not in q, f"the default node count is omitted: {page.url}"
    assert feature_param(q.get("features", "")) == dict(s.features), page.url

    page.reload()
    page.wait_for_selector("[data-picker] pre[data-command]")
    after = p.check()
    assert same_view(after, s), (after, s)

    # the link alone (a fresh browser profile, nothing remembered) gives the same view
    other = new_context(browser)
    try:
        other.on("page", page_errors.attach)
        fresh = Picker(other.new_page(), project_site, QWEN_MOE)
        fresh.page.goto(page.url)
        fresh.page.wait_for_selector("[data-picker] pre[data-command]")
        assert same_view(fresh.check(), s)
    finally:
        other.close()


def test_url_keeps_nodes_and_strategy(page, project_site):
    p = Picker(page, project_site, R1).open()
    s = p.choose("nodes", "2")  # h200 holds R1 on one node; two nodes is a choice
    assert query(page), (
        f"the two-node view is not the default, yet the URL has no query: {page.url}"
    )
    page.goto(page.url)
    page.wait_for_selector("[data-picker] pre[data-command]")
    assert same_view(p.check(), s)
    p.choose("hardware", "h100")
    s = p.choose("strategy", "multi_node_tep")
    assert query(page).get("strategy") == "multi_node_tep", page.url
    page.goto(page.url)
    page.wait_for_selector("[data-picker] pre[data-command]")
    assert same_view(p.check(), s)


def test_back_and_forward_restore_the_previous_selection(page, project_site):
    p = Picker(page, project_site, R1).open()
    s0 = p.check()
    s1 = p.choose("hardware", "mi300x")
    s2 = p.choose("hardware", "b200")
    assert s1.command != s0.command and s1.command != s2.command
    page.go_back()
    assert wait_for_hardware(p, "mi300x").command == s1.command
    page.go_back()
    assert wait_for_hardware(p, s0.hardware).command == s0.command
    page.go_forward()
    assert wait_for_hardware(p, "mi300x").command == s1.command
    page.go_forward()
    assert wait_for_hardware(p, "b200").command == s2.command


def test_last_hardware_is_remembered_on_another_model(page, project_site):
    Picker(page, project_site, LLAMA).open().choose("hardware", "h100")
    other = Picker(page, project_site, QWEN_MOE).open()
    s = other.check()
    assert s.hardware == "h100", f"{QWEN_MOE} opened on {s.hardware}, not the last chosen h100"
    # a URL choice beats the remembered one
    assert Picker(page, project_site, R1).open("?hardware=b200").check().hardware == "b200"
