"""The page's "More options" and `recipes-site command/fit` agree: the command the page shows
for a KV-offload option, an image and `--max-model-len auto` is the CLI's, byte for byte, and
the page's KV-offload note gives a Mooncake kv-store's registered host memory in the words of
host_memory.py (the planner)."""

from __future__ import annotations

import json

from cli_kit import run

MODEL = "Qwen/Qwen3-8B"
COMMAND = "pre[data-command]"


def _open_row(page):
    page.locator("[data-more] > summary").click()
    page.wait_for_selector("[data-more] [role=radio][data-value=simple]")


def _pill(page, axis: str, value: str):
    return page.locator(f'[data-more] [data-axis={axis}] [role=radio][data-value="{value}"]')


def test_the_page_command_is_the_cli_command(page, project_site):
    page.goto(project_site(f"/{MODEL}/?hardware=h200&kv_offload=simple&max_model_len=auto"))
    page.wait_for_function(
        "document.querySelector('pre[data-command]').textContent.includes('SimpleCPUOffload')"
    )
    shown = page.locator(COMMAND).text_content()
    cli = run(
        "command", MODEL, "--hardware", "h200", "--kv-offload", "simple", "--max-model-len", "auto"
    )
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout == shown + "\n"
    said = next(line for line in cli.stderr.splitlines() if "Host memory it takes" in line)
    assert (
        said.removeprefix("# note: ").split(" Each node needs")[0]
        in page.locator("[data-note=ax-kvo]").inner_text()
    )
    cu129 = "vllm/vllm-openai:latest-cu129"
    page.locator("[data-form=docker]").click()
    _pill(page, "image", cu129).click()
    page.wait_for_function(
        f"document.querySelector('pre[data-command]').textContent.includes('{cu129} ')"
    )
    docker = run(
        "command",
        MODEL,
        "--hardware",
        "h200",
        "--kv-offload",
        "simple",
        "--max-model-len",
        "auto",
        "--image",
        cu129,
        "--docker",
    )
    assert docker.stdout == page.locator(COMMAND).text_content() + "\n"


def test_the_kv_store_note_gives_the_planner_figures(page, project_site):
    page.goto(project_site(f"/{MODEL}/?hardware=h200&strategy=kv_store_distributed_mooncake"))
    _open_row(page)
    _pill(page, "inst", "3").click()
    page.wait_for_selector("[data-axis=inst] [aria-checked=true][data-value='3']")
    note = page.locator("[data-note=ax-kvo]").inner_text()
    base = ["--hardware", "h200", "--strategy", "kv_store_distributed_mooncake"]
    cli = run("command", MODEL, *base, "--kv-instances", "3")
    said = next(line for line in cli.stderr.splitlines() if "Host memory it registers" in line)
    sentence = said.removeprefix("# note: ").split(" Each node needs")[0]
    assert sentence in note
    assert "312.0 GiB over 3 instances" in note
    fit = json.loads(run("fit", MODEL, *base, "--json").stdout)["host_memory"]["kv_store"]
    assert f"{fit['per_gpu_bytes'] / 2**30:.1f} GiB per GPU" in note
