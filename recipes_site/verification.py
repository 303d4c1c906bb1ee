"""Proof that a deployment answers, and a load test sized by its plan.

For one rendering (and its plan, plan.py) this module writes two shell snippets:

* a `curl` request to the address the deployment serves on (the command's own port, the head
  node of a multi-node layout, the router of a prefill/decode or kv-store layout) on the endpoint
  the model's task answers (vLLM 0.33.0's routes):
  chat `/v1/chat/completions` (vllm/entrypoints/openai/chat_completion/api_router.py:43-44),
  completions `/v1/completions` (openai/completion/api_router.py:37-38) for a base checkpoint
  without a chat template, embeddings `/v1/embeddings` (pooling/embed/api_router.py:28-29),
  audio `/v1/audio/transcriptions` (speech_to_text/transcription/api_router.py:31-32), and a chat
  message with an image for a multimodal model;
* a `vllm bench serve` sweep over concurrency levels 1, 2, 4, ... up to the most requests of
  the sweep's input + output length that the deployment's KV cache holds at once (the plan's
  page formula `fit.panel_figures`), capped at the scheduler's `max_num_seqs` (beyond it requests
  only queue). The method: the command shown already takes the fewest GPUs (synthesis) and the
  throughput plan fills the node with replicas of it (plan.replica_parts); the sweep measures one
  copy, so the figures multiply by the replicas.

Every word comes from Python and goes through synthesis/shell.py's `quote`: a recipe's model id
is a stranger's string, pasted into a root shell.
"""

from __future__ import annotations

import base64
import json
import struct
import zlib

from recipes_site import fit, plan
from recipes_site.synthesis.shell import quote

CHAT, COMPLETIONS, EMBEDDINGS, AUDIO, VISION = (
    "chat",
    "completions",
    "embeddings",
    "audio",
    "vision",
)
ENDPOINTS = {
    CHAT: "/v1/chat/completions",
    VISION: "/v1/chat/completions",
    COMPLETIONS: "/v1/completions",
    EMBEDDINGS: "/v1/embeddings",
    AUDIO: "/v1/audio/transcriptions",
}
# `vllm bench serve --backend` for each task (vllm/benchmarks/lib/endpoint_request_func.py:1157-1161);
# generation is measured on /v1/completions with random token prompts (the chat template would
# add tokens the KV bound does not count). Audio has no random dataset: no sweep.
BENCH_BACKENDS = {
    CHAT: ("openai", "/v1/completions"),
    VISION: ("openai", "/v1/completions"),
    COMPLETIONS: ("openai", "/v1/completions"),
    EMBEDDINGS: ("openai-embeddings", "/v1/embeddings"),
}
# The sweep's request shape: 1024 prompt and 1024 generated tokens, the reference site's bench
# popover; vLLM's own random defaults are 1024 and 128 (vllm/benchmarks/datasets/datasets.py:1888-1898).
BENCH_INPUT_LEN = 1024
BENCH_OUTPUT_LEN = 1024
PROMPTS_PER_SLOT = 5  # --num-prompts = 5 x the level: five waves of requests per level
NO_BOUND_LEVELS = (1, 2, 4, 8, 16, 32, 64)  # without KV facts: a short sweep, said so
# checkpoint names whose tokenizer ships no chat template (Hugging Face's naming of pretrained,
# not instruction-tuned, releases): they are asked on /v1/completions
BASE_SUFFIXES = ("-base", "-pt")
AUDIO_TASKS = frozenset({"audio", "transcription", "speech-to-text", "asr"})
AUDIO_MODEL_TYPES = frozenset({"whisper", "voxtral", "granite_speech"})


def _png(width: int, height: int, grey: int) -> bytes:
    """A one-colour 8-bit greyscale PNG: the image of the vision request (inline, so the request
    needs no network; 64 px clears every vision processor's minimum side)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body))
            + kind
            + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
        )

    rows = b"".join(b"\x00" + bytes([grey]) * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )


IMAGE_URL = "data:image/png;base64," + base64.b64encode(_png(64, 64, 128)).decode()


# -- what to ask ------------------------------------------------------------------------------------


def served_name(argv) -> str:
    """The model name the server answers to: `--served-model-name`'s first value, else the model
    of `vllm serve <model>`."""
    tokens = [str(t) for t in argv]
    for i, tok in enumerate(tokens):
        flag, eq, inline = tok.partition("=")
        if flag == "--served-model-name":
            value = inline if eq else (tokens[i + 1] if i + 1 < len(tokens) else "")
            if value and not value.startswith("-"):
                return value
    return tokens[2] if len(tokens) > 2 and tokens[:2] == ["vllm", "serve"] else ""


def images_off(argv) -> bool:
    """Whether the command serves text only: `--language-model-only`, or `--limit-mm-per-prompt`
    allowing no image (the multimodal profiling then skips the vision encoder)."""
    tokens = [str(t) for t in argv]
    if "--language-model-only" in tokens:
        return True
    for i, tok in enumerate(tokens):
        flag, eq, inline = tok.partition("=")
        if flag == "--limit-mm-per-prompt":
            value = inline if eq else (tokens[i + 1] if i + 1 < len(tokens) else "")
            try:
                limits = json.loads(value)
            except ValueError:
                continue
            if isinstance(limits, dict) and limits.get("image", 1) == 0:
                return True
    return False


def task_kind(recipe: dict, model_id: str, argv=()) -> str:
    """Which request proves the model answers: embeddings for a pooling model, a transcription for
    a speech model, an image message for a multimodal one serving images, completions for a base
    checkpoint (no chat template), else chat."""
    tasks = set((recipe.get("meta") or {}).get("tasks") or ())
    cfg = (recipe.get("model") or {}).get("hf_config") or {}
    model_type = str(cfg.get("model_type") or "") if isinstance(cfg, dict) else ""
    if "embedding" in tasks:
        return EMBEDDINGS
    if tasks & AUDIO_TASKS or model_type in AUDIO_MODEL_TYPES:
        return AUDIO
    if "multimodal" in tasks and not images_off(argv):
        return VISION
    if model_id.lower().endswith(BASE_SUFFIXES):
        return COMPLETIONS
    return CHAT


def _port(argv, default: int = 8000) -> int:
    tokens = [str(t) for t in argv]
    for i, tok in enumerate(tokens):
        flag, eq, inline = tok.partition("=")
        if flag == "--port":
            value = inline if eq else (tokens[i + 1] if i + 1 < len(tokens) else "")
            if value.isdigit():
                return int(value)
    return default


def base_url(rendering) -> str:
    """Where clients talk to the deployment: the router of a prefill/decode layout or of several
    kv-store instances (its `$ROUTER_HOST:$ROUTER_PORT`, as the router command listens), the
    head node of a multi-node layout (`$HEAD_IP`, as its workers reach it), else this machine
    at the command's port."""
    if rendering.prefill is not None or (rendering.kv is not None and rendering.kv.router):
        return "http://$ROUTER_HOST:$ROUTER_PORT"
    main = rendering.main_process
    port = _port(main.argv if main else ())
    if rendering.head is not None or (rendering.kv is not None and rendering.kv.workers):
        return f"http://$HEAD_IP:{port}"
    return f"http://localhost:{port}"


def _url_word(url: str) -> str:
    """A URL we wrote as one shell word: double-quoted when it names our `$VARIABLES` (they
    expand), bare otherwise. Only this module's own text reaches it."""
    return f'"{url}"' if "$" in url else url


# -- curl -----------------------------------------------------------------------------------------------


def request_body(kind: str, model: str) -> dict | None:
    """The JSON body of the verification request (None for audio, which posts a form)."""
    if kind == EMBEDDINGS:
        return {"model": model, "input": "vLLM is up."}
    if kind == COMPLETIONS:
        return {"model": model, "prompt": "The capital of France is", "max_tokens": 32}
    if kind == VISION:
        content = [
            {"type": "text", "text": "What colour is this image?"},
            {"type": "image_url", "image_url": {"url": IMAGE_URL}},
        ]
        return {
            "model": model,
            "messages": [{"role": "user", "content": content}],
            "max_tokens": 32,
        }
    if kind == AUDIO:
        return None
    return {"model": model, "messages": [{"role": "user", "content": "Hello!"}], "max_tokens": 32}


def curl_command(kind: str, model: str, url: str) -> str:
    """One curl request that proves the server answers."""
    target = _url_word(url + ENDPOINTS[kind])
    if kind == AUDIO:
        return (
            "# a WAV or MP3 file of your own as sample.wav\n"
            f"curl {target} \\\n  -F file=@sample.wav \\\n  -F {quote('model=' + model)}"
        )
    body = json.dumps(request_body(kind, model), ensure_ascii=False)
    return f"curl {target} \\\n  -H 'Content-Type: application/json' \\\n  -d {quote(body)}"


# -- the concurrency sweep --------------------------------------------------------------------------------


def bench_lengths(context_length: int | None) -> tuple[int, int]:
    """(input, output) tokens of a sweep request: BENCH_* when they fit the served length, else
    halves of it."""
    if context_length and context_length < BENCH_INPUT_LEN + BENCH_OUTPUT_LEN:
        half = max(1, context_length // 2)
        return half, max(1, context_length - half)
    return BENCH_INPUT_LEN, BENCH_OUTPUT_LEN


def _entry(p: dict) -> dict:
    """A published plan with the defaults `plan.expand` puts back, as `fit.panel_figures` reads it."""
    return {"dp": 1, "block_size": fit.kv_cache.DEFAULT_BLOCK_SIZE, "null_block_bytes": 0, **p}


def kv_bound(p: dict, tokens: int, copies: int = 1) -> int | None:
    """The most requests of `tokens` tokens the deployment's KV cache holds at once (over its DP
    ranks and `copies` instances behind a router); None without KV facts."""
    if p.get("kv_cache_bytes_per_gpu") is None or p.get("kv_bytes_per_token_per_gpu") is None:
        return None
    requests = fit.panel_figures(_entry(p), tokens, 1)["requests"]
    return None if requests is None else int(requests) * copies


def sweep_levels(maximum: int) -> list[int]:
    """1, 2, 4, ... below `maximum`, then `maximum`."""
    levels, c = [], 1
    while c < maximum:
        levels.append(c)
        c *= 2
    return levels + [max(1, maximum)]


def bench_command(
    kind: str, model: str, url: str, levels: list[int], lengths: tuple[int, int], why: str
) -> str | None:
    """The `vllm bench serve` sweep (flags of vLLM 0.33.0: --backend serve.py:1648,
    --base-url :1655, --endpoint :1664, --max-concurrency :1679, --model :1693, --save-result
    :1792, --result-filename :1823, --ignore-eos :1832; --dataset-name and --num-prompts
    datasets.py:1587-1593, --random-input-len / --random-output-len :1888-1894). None for audio."""
    if kind not in BENCH_BACKENDS:
        return None
    backend, endpoint = BENCH_BACKENDS[kind]
    in_len, out_len = lengths
    lines = [
        "vllm bench serve",
        f"--backend {backend}",
        f"--base-url {_url_word(url)}",
        f"--endpoint {endpoint}",
        f"--model {quote(model)}",
        "--dataset-name random",
        f"--random-input-len {in_len}",
    ]
    if kind != EMBEDDINGS:
        lines += [f"--random-output-len {out_len}", "--ignore-eos"]
    lines += [
        '--max-concurrency "$c"',
        f'--num-prompts "$((c * {PROMPTS_PER_SLOT}))"',
        "--save-result",
        '--result-filename "bench-c$c.json"',
    ]
    loop = " ".join(str(c) for c in levels)
    body = " \\\n    ".join(lines)
    return f"# {why}\nfor c in {loop}; do\n  {body}\ndone"


def verification(recipe: dict, rendering, profile: dict, p: dict) -> dict:
    """The snippets of one rendering given its plan `p` (plan.py, as published): `curl`, `bench`
    (None for audio or a command that cannot start), the sweep's `levels`, `input_len` /
    `output_len`, and `bound` ("kv", "max_num_seqs" or None without KV facts)."""
    main = plan_process(rendering)
    argv = tuple(main.argv) if main else ()
    model = served_name(argv)
    kind = task_kind(recipe, model, argv)
    url = base_url(rendering)
    out: dict = {"task": kind, "url": url, "curl": curl_command(kind, model, url)}
    lengths = bench_lengths(p.get("context_length"))
    tokens = lengths[0] + (0 if kind == EMBEDDINGS else lengths[1])
    copies = rendering.kv.instances if rendering.kv is not None and rendering.kv.router else 1
    maximum = kv_bound(p, tokens, copies)
    bound = None if maximum is None else "kv"
    if maximum is not None:
        shape = fit.shape_from_argv(argv)
        served = p.get("context_length")
        _, seqs = fit.scheduler_limits(shape, fit.gpu_memory(profile), served)
        seqs *= shape.dp * copies
        if seqs < maximum:
            maximum, bound = seqs, "max_num_seqs"
    levels = list(NO_BOUND_LEVELS) if maximum is None else sweep_levels(maximum)
    if bound == "kv":
        why = (
            f"concurrency 1 to {levels[-1]:,}: the KV cache holds {levels[-1]:,} requests of "
            f"{lengths[0]:,} + {lengths[1]:,} tokens at once"
        )
    elif bound == "max_num_seqs":
        why = f"concurrency 1 to {levels[-1]:,}: the scheduler runs at most {levels[-1]:,} requests at once"
    else:
        why = "no KV-cache figures for this model: a short sweep"
    startable = plan.holds(p) and (maximum is None or maximum >= 1)
    bench = bench_command(kind, model, url, levels, lengths, why) if startable else None
    out.update(
        bench=bench,
        levels=levels if bench else [],
        input_len=lengths[0],
        output_len=lengths[1],
        bound=bound,
    )
    return out


def plan_process(rendering):
    """The process whose argv the snippets read: the model name and port (the decode pool of a
    prefill/decode layout, whose plan bounds the concurrency)."""
    return fit.memory_process(rendering)
