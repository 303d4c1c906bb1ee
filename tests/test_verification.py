"""Issue 27, point 2: a curl request chosen by the model's task at the address the deployment
serves on, and a `vllm bench serve` sweep from concurrency 1 to the most requests its KV cache
holds; every word quoted for a root shell, whatever the model is called."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess

import pytest

from recipes_site import fit, plan, verification
from recipes_site.synthesis import render_choice
from tests.cli_kit import run

HOSTILE = [
    "acme/x'; rm -rf / #",
    "acme/$(reboot)",
    'acme/"quoted" `id`',
    "acme/new\nline",
    "acme/${HOME}\\back",
]


def _rendering(ctx, recipes, hf_id, hw, strategy=None, nodes=None):
    recipe = recipes[hf_id]
    r = render_choice(ctx, recipe, "default", hw, strategy, nodes, None)
    profile = ctx.profiles[hw]
    return recipe, r, profile, plan.rendering_plan(plan.RecipePlans(recipe), r, profile)


def _body(curl: str) -> dict:
    words = shlex.split(curl, comments=True)
    return json.loads(words[words.index("-d") + 1])


@pytest.mark.parametrize(
    ("hf_id", "kind", "endpoint"),
    [
        ("Qwen/Qwen3-8B", "chat", "/v1/chat/completions"),
        ("BAAI/bge-m3", "embeddings", "/v1/embeddings"),
        ("Qwen/Qwen2.5-VL-7B-Instruct", "vision", "/v1/chat/completions"),
    ],
)
def test_curl_asks_what_the_models_task_answers(ctx, recipes, hf_id, kind, endpoint):
    recipe, r, profile, p = _rendering(ctx, recipes, hf_id, "h100")
    v = verification.verification(recipe, r, profile, p)
    assert v["task"] == kind
    words = shlex.split(v["curl"])
    assert words[0] == "curl" and words[1] == "http://localhost:8000" + endpoint
    body = _body(v["curl"])
    assert body["model"] == r.single.argv[2]
    if kind == "vision":
        content = body["messages"][0]["content"]
        assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")
    if kind == "embeddings":
        assert "input" in body and "messages" not in body


def test_task_kind_of_base_audio_and_text_only_commands():
    text = {"meta": {"tasks": ["text"]}}
    assert verification.task_kind(text, "acme/Widget-7B-Base") == "completions"
    assert verification.task_kind(text, "acme/Widget-7B-Instruct") == "chat"
    assert verification.task_kind({"meta": {"tasks": ["audio"]}}, "acme/Ear") == "audio"
    mm = {"meta": {"tasks": ["text", "multimodal"]}}
    assert verification.task_kind(mm, "acme/Eye") == "vision"
    off = ("vllm", "serve", "acme/Eye", "--limit-mm-per-prompt", '{"image": 0}')
    assert verification.task_kind(mm, "acme/Eye", off) == "chat"
    only = ("vllm", "serve", "acme/Eye", "--language-model-only")
    assert verification.task_kind(mm, "acme/Eye", only) == "chat"
    audio = verification.curl_command("audio", "acme/Ear", "http://localhost:8000")
    assert "/v1/audio/transcriptions" in audio and "-F file=@sample.wav" in audio
    assert verification.bench_command("audio", "acme/Ear", "u", [1], (8, 8), "x") is None


def test_router_layouts_are_asked_through_the_router(ctx, recipes):
    recipe, r, profile, p = _rendering(
        ctx, recipes, "deepseek-ai/DeepSeek-R1", "h100", "pd_cluster"
    )
    v = verification.verification(recipe, r, profile, p)
    assert v["url"] == "http://$ROUTER_HOST:$ROUTER_PORT"
    assert '"http://$ROUTER_HOST:$ROUTER_PORT/v1/chat/completions"' in v["curl"]
    assert '--base-url "http://$ROUTER_HOST:$ROUTER_PORT"' in v["bench"]


def test_sweep_ends_at_the_kv_bounded_maximum(ctx, recipes):
    recipe, r, profile, p = _rendering(ctx, recipes, "Qwen/Qwen3-8B", "h100")
    v = verification.verification(recipe, r, profile, p)
    assert v["bound"] == "kv"
    tokens = v["input_len"] + v["output_len"]
    entry = {"dp": 1, "block_size": 16, "null_block_bytes": 0, **p}
    most = fit.panel_figures(entry, tokens, 1)["requests"]
    assert v["levels"][-1] == most > 1
    assert v["levels"][:3] == [1, 2, 4] and v["levels"] == sorted(set(v["levels"]))
    # the last level fits the KV cache, one more request does not
    assert fit.panel_figures(entry, tokens, most)["fits"]
    assert not fit.panel_figures(entry, tokens, most + 1)["fits"]
    assert f"for c in {' '.join(map(str, v['levels']))}; do" in v["bench"]
    words = shlex.split(v["bench"], comments=True)
    for flag, value in [
        ("--dataset-name", "random"),
        ("--random-input-len", str(v["input_len"])),
        ("--random-output-len", str(v["output_len"])),
        ("--max-concurrency", "$c"),
        ("--result-filename", "bench-c$c.json"),
    ]:
        assert words[words.index(flag) + 1] == value
    assert "--save-result" in words and "--num-prompts" in words


def test_sweep_levels_and_lengths():
    assert verification.sweep_levels(1) == [1]
    assert verification.sweep_levels(8) == [1, 2, 4, 8]
    assert verification.sweep_levels(9) == [1, 2, 4, 8, 9]
    assert verification.bench_lengths(1000) == (500, 500)
    assert verification.bench_lengths(None) == (1024, 1024)


def test_no_sweep_for_a_command_that_cannot_start(ctx, recipes):
    recipe, r, profile, p = _rendering(ctx, recipes, "Qwen/Qwen3-8B", "h100")
    v = verification.verification(recipe, r, profile, {**p, "verdict": "over"})
    assert v["bench"] is None and v["levels"] == [] and v["curl"]


@pytest.mark.parametrize("model", HOSTILE)
def test_hostile_model_names_reach_curl_and_bench_as_one_word(model):
    for kind in ("chat", "completions", "embeddings", "vision"):
        curl = verification.curl_command(kind, model, "http://localhost:8000")
        assert _body(curl)["model"] == model
        bench = verification.bench_command(
            kind, model, "http://localhost:8000", [1, 2], (8, 8), "x"
        )
        assert bench is not None
        body = bench.split("\n", 2)[2].rsplit("\ndone", 1)[0]
        words = shlex.split(body)
        assert words[words.index("--model") + 1] == model
    audio = verification.curl_command("audio", model, "http://localhost:8000")
    assert shlex.split(audio, comments=True)[-1] == "model=" + model


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("model", HOSTILE)
def test_bash_runs_the_snippets_with_exactly_our_words(model, tmp_path):
    """The snippets as bash runs them, with curl and vllm standing in: each prints its arguments."""
    curl = verification.curl_command("chat", model, "http://localhost:8000")
    bench = verification.bench_command("chat", model, "http://localhost:8000", [1, 3], (8, 8), "x")
    stub = 'curl() { printf "%s\\0" "$@"; }; vllm() { printf "%s\\0" "$@"; }\n'
    out = subprocess.run(
        ["bash", "-c", stub + curl + "\n" + bench], capture_output=True, cwd=tmp_path, check=True
    ).stdout.decode()
    words = out.split("\0")
    assert json.loads(words[words.index("-d") + 1])["model"] == model
    assert [words[i + 1] for i, w in enumerate(words) if w == "--model"] == [model, model]
    assert [words[i + 1] for i, w in enumerate(words) if w == "--max-concurrency"] == ["1", "3"]
    assert [words[i + 1] for i, w in enumerate(words) if w == "--num-prompts"] == ["5", "15"]
    assert list(tmp_path.iterdir()) == []  # nothing ran but the stand-ins


def test_served_name_follows_served_model_name():
    argv = ("vllm", "serve", "acme/W", "--served-model-name", "w")
    assert verification.served_name(argv) == "w"
    assert verification.served_name(("vllm", "serve", "acme/W", "--served-model-name=w2")) == "w2"
    assert verification.served_name(("vllm", "serve", "acme/W")) == "acme/W"


def test_command_bench_prints_the_curl_and_the_sweep():
    r = run("command", "Qwen/Qwen3-8B", "--hardware", "h100", "--bench")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("# verify: the server answers\ncurl http://localhost:8000/v1/chat/")
    assert "vllm bench serve" in r.stdout and '--max-concurrency "$c"' in r.stdout
    assert "the throughput plan runs 8" in r.stdout
    last = r.stdout.split("for c in ", 1)[1].split(";", 1)[0].split()[-1]
    assert f"concurrency 1 to {last}: the KV cache holds {last} requests" in r.stdout
