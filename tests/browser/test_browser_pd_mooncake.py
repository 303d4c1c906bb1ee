"""Issue 27: a Mooncake store on the prefill/decode pools. On a pd_cluster view the More options
row's Mooncake pills (Distributed / Centralized) are enabled; picking one swaps each pool's
--kv-transfer-config line for the store's MultiConnector line on every pool node, adds the
store's env, and puts the Mooncake tabs before the pools: the same texts, byte for byte, as
`recipes-site command --strategy pd_cluster --kv-offload <store>`, with any pool topology."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from cli_kit import run

MODEL = "deepseek-ai/DeepSeek-V3"
VIEW = f"/{MODEL}/?hardware=h100&strategy=pd_cluster"
COMMAND = "pre[data-command]"
DISTRIBUTED, CENTRALIZED = "kv_store_distributed_mooncake", "kv_store_centralized_mooncake"
# the CLI's section headings -> the page's tab ids
TAB_OF = {
    "mooncake config (every pool node)": "mooncake-config",
    "mooncake master": "mooncake-master",
    "mooncake store": "mooncake-store",
    "router": "router",
}


def _tab_of(heading: str) -> str:
    """The tab id of a CLI section: "prefill pool, node 2 of 2" -> "prefill-2"."""
    if not heading.startswith(("prefill pool", "decode pool")):
        return TAB_OF[heading]
    role, _, where = heading.partition(" pool")
    node = where.removeprefix(", node ").split(" ")[0] if where else "1"
    return role if node == "1" else f"{role}-{node}"


def _cli(*flags) -> tuple[dict, str, str]:
    """({tab id: text}, the install line, the stderr notes) of the CLI's output."""
    got = run("command", MODEL, "--hardware", "h100", "--strategy", "pd_cluster", *flags)
    assert got.returncode == 0, got.stderr
    tabs, install = {}, ""
    for section in got.stdout.rstrip("\n").split("\n\n"):
        heading, _, body = section.partition("\n")
        heading = heading.removeprefix("# ")
        if heading.startswith("install first"):
            install = body
        else:
            tabs[_tab_of(heading)] = body
    return tabs, install, got.stderr


def _tab_texts(page) -> dict:
    out = {}
    for tab in page.locator("[role=tab][data-process]").all():
        tab.click()
        out[tab.get_attribute("data-process")] = page.locator(COMMAND).inner_text()
    return out


def _store_pill(page, value: str):
    return page.locator(f'[data-more] [data-axis=kvo] [role=radio][data-value="{value}"]')


def _open_row(page):
    page.locator("[data-more] > summary").click()
    page.wait_for_selector(f'[data-more] [data-axis=kvo] [data-value="{DISTRIBUTED}"]')


def test_picking_mooncake_on_pd_changes_both_pools_and_adds_the_tabs(page, project_site):
    page.goto(project_site(VIEW))
    page.wait_for_selector("[data-pd-row]:not([hidden]) [data-axis=pd-prefill-nodes]")
    before = _tab_texts(page)
    assert "MultiConnector" not in before["prefill"] + before["decode"]
    _open_row(page)
    pill = _store_pill(page, DISTRIBUTED)
    assert pill.get_attribute("aria-disabled") is None
    # the offload options stay ruled out on a PD view
    assert _store_pill(page, "simple").get_attribute("aria-disabled") == "true"
    pill.click()
    page.wait_for_selector("#tab-mooncake-master")
    assert parse_qs(urlsplit(page.url).query)["kv_offload"] == [DISTRIBUTED]
    tabs, install, notes = _cli("--kv-offload", DISTRIBUTED)
    shown = _tab_texts(page)
    assert list(shown)[:3] == ["mooncake-config", "mooncake-master", "prefill"]
    assert "mooncake-store" not in shown  # the distributed topology runs no store service
    assert shown == tabs
    for role in ("prefill", "prefill-2", "decode", "decode-2"):
        assert "MultiConnector" in shown[role] and '"NixlConnector"' in shown[role]
        assert shown[role].count("--kv-transfer-config") == 1
        assert "export PYTHONHASHSEED=0" in shown[role]
    note = page.locator("[data-note=ax-kvo]").inner_text()
    said = next(line for line in notes.splitlines() if "Host memory it registers" in line)
    assert said.removeprefix("# note: ").split(" Each node needs")[0] in note
    assert install and "Install first: " + install in note
    # Off restores the pools' own connector
    _store_pill(page, "off").click()
    page.wait_for_function("!document.querySelector('#tab-mooncake-master')")
    assert _tab_texts(page) == before
    assert "kv_offload" not in page.url


def test_the_store_composes_with_a_chosen_topology_and_docker(page, project_site):
    page.goto(project_site(VIEW + f"&prefill_nodes=2&kv_offload={CENTRALIZED}&max_model_len=auto"))
    page.wait_for_selector("#tab-mooncake-store")
    page.wait_for_selector("#tab-prefill-2")
    flags = ("--prefill-nodes", "2", "--kv-offload", CENTRALIZED, "--max-model-len", "auto")
    tabs, _, notes = _cli(*flags)
    shown = _tab_texts(page)
    assert list(shown)[:3] == ["mooncake-config", "mooncake-master", "mooncake-store"]
    assert shown == tabs
    assert "MultiConnector" in shown["prefill-2"] and "--headless" in shown["prefill-2"]
    assert all("--max-model-len auto" in shown[t] for t in shown if t.startswith(("pre", "dec")))
    note = page.locator("[data-note=ax-kvo]").inner_text()
    said = next(line for line in notes.splitlines() if "Host memory it registers" in line)
    assert said.removeprefix("# note: ").split(" Each node needs")[0] in note
    page.locator("[data-form=docker]").click()
    docker, _, _ = _cli(*flags, "--docker")
    shown = _tab_texts(page)
    assert shown["prefill-2"] == docker["prefill-2"]
    assert shown["decode"] == docker["decode"]
    assert "-v $MOONCAKE_CONFIG_PATH:$MOONCAKE_CONFIG_PATH:ro" in shown["decode"]
