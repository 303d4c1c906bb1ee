"""Issue 27 point 4 in headless Chromium: the model page's Kubernetes tab fetches the model's
deploy.json when opened and shows the manifests of the rendering the picker shows, with copy
and download; it follows the picker; a tab whose document the build did not write is absent."""

from __future__ import annotations

from browser_kit import Picker

QWEN = "Qwen/Qwen3-8B"
R1 = "deepseek-ai/DeepSeek-R1-0528"


def _open_tab(page) -> str:
    page.locator("#doc-kubernetes > summary").click()
    pre = page.locator("#doc-kubernetes pre").first
    pre.wait_for()
    return pre.text_content() or ""


def test_kubernetes_tab_shows_the_deployment_of_the_chosen_rendering(page, project_site):
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    p = Picker(page, project_site, QWEN).open("?hardware=h100")
    assert not any(u.endswith("/deploy.json") for u in requests)  # fetched on demand only
    text = _open_tab(page)
    assert any(u.endswith(f"/api/v1/models/{QWEN}/deploy.json") for u in requests)
    assert "kind: Deployment" in text and "nvidia.com/gpu" in text
    assert "- Qwen/Qwen3-8B" in text and "path: /health" in text
    assert page.locator("#doc-kubernetes li").count() > 0  # the prerequisites checklist
    assert page.locator("#doc-monitoring").count() == 1  # the other part of the same document
    with page.expect_download() as got:
        page.locator("#doc-kubernetes [data-download]").first.click()
    assert got.value.suggested_filename == "Qwen3-8B-h100-default-single_node_tp-1-manifests.yaml"
    p.choose("hardware", "mi300x")
    page.wait_for_function(
        "() => document.querySelector('#doc-kubernetes pre').textContent.includes('amd.com/gpu')"
    )


def test_kubernetes_tab_follows_a_multi_node_choice(page, project_site):
    p = Picker(page, project_site, R1).open("?hardware=h100")
    _open_tab(page)
    p.choose("strategy", "multi_node_tp")
    page.wait_for_function(
        "() => document.querySelector('#doc-kubernetes pre').textContent.includes('kind: LeaderWorkerSet')"
    )
    text = page.locator("#doc-kubernetes pre").first.text_content() or ""
    assert "$(LWS_LEADER_ADDRESS)" in text and "$(LWS_WORKER_INDEX)" in text


def test_a_tab_shows_text_and_object_fields_as_monitoring_json_has_them(page, project_site):
    """The tab mechanism is generic: a document of monitoring.json's shape (a YAML text and an
    object per rendering) shows each field as a copyable, downloadable text."""
    key = "h100/default/single_node_tp/1"
    doc = {
        "renderings": {
            key: {
                "prometheus_rules": "groups:\n- name: vllm\n",
                "grafana_dashboard": {"title": "vLLM"},
            }
        }
    }
    page.route("**/deploy.json", lambda route: route.fulfill(json={"kubernetes": doc}))
    Picker(page, project_site, QWEN).open("?hardware=h100")
    _open_tab(page)
    pres = page.locator("#doc-kubernetes pre")
    assert pres.nth(0).text_content() == "groups:\n- name: vllm\n"
    assert pres.nth(1).text_content() == '{\n  "title": "vLLM"\n}'
    names = page.locator("#doc-kubernetes [data-download]").evaluate_all(
        "bs => bs.map(b => b.dataset.name)"
    )
    assert names == [
        f"Qwen3-8B-{key.replace('/', '-')}-prometheus_rules.yaml",
        f"Qwen3-8B-{key.replace('/', '-')}-grafana_dashboard.json",
    ]
