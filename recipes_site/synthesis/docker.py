"""Container image choice and the `docker run` wrapping of a serve command."""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from recipes_site.jsish import js_str, mapping

from .hardware import Hardware
from .recording import hardware_query
from .shell import comment_text, continued, env_word, image_word, mount_word, quote

DEFAULT_IMAGES = {
    "nvidia": "vllm/vllm-openai:latest",
    "amd": "vllm/vllm-openai-rocm:latest",
    "tpu": "vllm/vllm-tpu:latest",
    "intel": "vllm/vllm-openai-cpu:latest-x86_64",
}
NIGHTLY_IMAGES = {
    "nvidia": "vllm/vllm-openai:nightly",
    "amd": "vllm/vllm-openai-rocm:nightly",
    "tpu": "vllm/vllm-tpu:nightly",
}
XPU_IMAGE = "vllm/vllm-openai-xpu:latest"
BRAND_KEYS = ("nvidia", "amd", "tpu", "intel")
CUDA_KEYS = ("cu129", "cu130")

# GPU access flags per image family; each inner list is one line of the docker command.
GPU_FLAG_LINES = {
    "nvidia": [["--gpus", "all"]],
    "amd": [
        ["--device=/dev/kfd", "--device=/dev/dri"],
        ["--security-opt", "seccomp=unconfined", "--group-add", "video"],
    ],
    "tpu": [["--privileged", "--network", "host"], ["-v", "/dev/shm:/dev/shm"]],
    "xpu": [
        ["--device", "/dev/dri"],
        ["-v", "/dev/dri/by-path:/dev/dri/by-path", "--shm-size=16g"],
    ],
    "cpu": [["--shm-size=16g"]],
}
# The same flags as text lines of the docker command, `docker run` leading the first line.
_GPU_FLAG_TEXT = {
    k: tuple([" ".join(["docker run", *v[0]])] + [" ".join(group) for group in v[1:]])
    for k, v in GPU_FLAG_LINES.items()
}
GPU_FLAG_ARGV = {
    **{k: [t for line in v for t in line] for k, v in GPU_FLAG_LINES.items()},
    "xpu": ["--device", "/dev/dri", "-v", "/dev/dri/by-path:/dev/dri/by-path", "--shm-size", "16g"],
    "cpu": ["--shm-size", "16g"],
}


def _cuda_pick(table: dict) -> str | None:
    return table.get("cu130") or table.get("cu129")


def _pin(source, key: str):
    """(pin, cuda_map) from one `docker_image` value as seen by the `key` image family."""
    if isinstance(source, str):
        return (source if key == "nvidia" else None), None
    if isinstance(source, dict):
        if any(k in source for k in BRAND_KEYS):
            value = source.get(key)
            if isinstance(value, str):
                return value, None
            if key == "nvidia" and isinstance(value, dict):
                return None, value
            return None, None
        if key == "nvidia" and any(k in source for k in CUDA_KEYS):
            return None, source
    return None, None


@hardware_query
def docker_image(recipe: dict, variant: dict, hw: Hardware) -> str | None:
    key = hw.image_brand  # DEFAULT_IMAGES keys
    exact = mapping(hw.entry(mapping(variant.get("hardware_overrides")))).get("docker_image")
    if isinstance(exact, str):
        return exact
    pin = cuda = None
    for source in (variant.get("docker_image"), mapping(recipe.get("model")).get("docker_image")):
        pin, cuda = _pin(source, key)
        if pin or cuda:
            break
    if not pin and not cuda and hw.generation == "xpu":
        return XPU_IMAGE
    if pin:
        return pin
    if cuda and _cuda_pick(cuda):
        return _cuda_pick(cuda)
    nightly = mapping(recipe.get("model")).get("nightly_required") is True
    return (NIGHTLY_IMAGES if nightly else DEFAULT_IMAGES).get(key)


def _mount_paths(model: str, env_items: tuple) -> list:
    """Host paths bind-mounted read-only: a local model directory, then every `*_CONFIG_PATH`
    (`env_items`: the env's items, in order)."""
    paths = [model] if model.startswith("/") else []
    return paths + [v for k, v in env_items if k.endswith("_CONFIG_PATH")]


def is_gated(recipe: dict, variant: dict) -> bool:
    """Whether the checkpoint a variant serves is a gated Hugging Face repository: the variant's
    own `gated`, else the recipe's `model.gated` when the variant serves model.model_id."""
    if isinstance(variant.get("gated"), bool):
        return variant["gated"]
    model = mapping(recipe.get("model"))
    own = variant.get("model_id")
    return model.get("gated") is True and (own is None or own == model.get("model_id"))


def _network(family: str, port: int, host_network: bool) -> list[str]:
    """A process whose parallel group spans nodes (NCCL/Gloo, the head address) needs the host's
    network; TPU runs on it already. Published ports mean nothing there, so `-p` goes."""
    if host_network and family != "tpu":
        return ["--network", "host"]
    return ["-p", f"{port}:{port}"]


def _argv_head(
    image,
    model: str,
    mounts: list,
    flags: list,
    family: str,
    port: int,
    host_network: bool,
    pass_env: tuple,
) -> list:
    """`docker run` argv up to and including the image."""
    out = ["docker", "run"] + GPU_FLAG_ARGV[family]
    out += [
        "--privileged",
        "--ipc=host",
        *_network(family, port, host_network),
        "-v",
        "~/.cache/huggingface:/root/.cache/huggingface",
    ]
    for path in mounts:
        out += ["-v", f"{js_str(path)}:{js_str(path)}:ro"]
    for _, word in flags:
        out += ["-e", word]
    for name in pass_env:  # `-e NAME` alone: docker copies the host's value; no secret in the text
        out += ["-e", name]
    return out + [image]


def _lines_head(
    image,
    model: str,
    mounts: list,
    flags: list,
    family: str,
    port: int,
    host_network: bool,
    pass_env: tuple,
) -> list[str]:
    """The lines of the `docker run` text up to and including `<image> <model>`."""
    lines = list(_GPU_FLAG_TEXT[family])
    lines += [
        " ".join(["--privileged --ipc=host", *_network(family, port, host_network)]),
        "-v ~/.cache/huggingface:/root/.cache/huggingface",
    ]
    lines += [f"-v {mount_word(path)}" for path in mounts]
    lines += [line for line, _ in flags]  # each env item's text line
    lines += [f"-e {quote(name)}" for name in pass_env]
    lines.append(f"{image_word(image)} {quote(model)}")
    return lines


def _env_flag(name: str, value) -> tuple[str, str]:
    """One env item of a docker command: its `-e NAME=value` text line and its argv word."""
    return f"-e {env_word(name, value)}", f"{name}={js_str(value)}"


class DockerHead(NamedTuple):
    """A process's `docker run` up to and including `<image> <model>`, as argv, text lines and
    text: the same for every rank of a layout (and often for several strategies and hardware)."""

    argv: tuple
    lines: tuple
    text: str


def docker_head(
    image,
    model: str,
    env: dict,
    hw: Hardware,
    port: int,
    host_network: bool = False,
    pass_env: tuple = (),
) -> DockerHead:
    """Our flag lines, then `<image> <model>`; a process appends its argument lines (already
    shell words). Every recipe string passes through shell.py."""
    items = tuple(env.items())
    # the value types are part of the key: `true`, `1` and `1.0` print differently, a Placeholder bare
    key = (
        image,
        model,
        items,
        tuple(map(type, env.values())),
        hw.image_family,
        port,
        host_network,
        pass_env,
    )
    try:
        return _memo_docker_head(*key)
    except TypeError:  # an env value no validated recipe has (a list, a map): not memoised
        return _docker_head(*key)


def _docker_head(
    image,
    model: str,
    items: tuple,
    types: tuple,
    family: str,
    port: int,
    host_network: bool,
    pass_env: tuple,
) -> DockerHead:
    # each worked out once for both forms
    mounts, flags = _mount_paths(model, items), [_env_flag(k, v) for k, v in items]
    lines = tuple(_lines_head(image, model, mounts, flags, family, port, host_network, pass_env))
    argv = tuple(
        _argv_head(image, model, mounts, flags, family, port, host_network, pass_env) + [model]
    )
    return DockerHead(argv, lines, docker_text(model, lines))


# Memo: the layouts of a corpus share their docker heads (the same env and image for several
# strategies and hardware of one family).
_memo_docker_head = lru_cache(maxsize=4096)(_docker_head)


def docker_text(model: str, lines) -> str:
    """Lines joined into one command; a local model path gets a comment saying it must exist."""
    text_ = continued(lines)
    if model.startswith("/"):
        text_ = (
            f"# {comment_text(model)} must already exist on the host — bind-mounted read-only below.\n"
            + text_
        )
    return text_
