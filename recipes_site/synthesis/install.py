"""The install block of a recipe: pip and docker instructions plus extra dependencies."""

from __future__ import annotations

from recipes_site.jsish import mapping, truthy

from .shell import image_word

PIP_DEFAULT = "uv venv\nsource .venv/bin/activate\nuv pip install -U vllm --torch-backend auto"
PIP_NIGHTLY = (
    "uv venv\nsource .venv/bin/activate\nuv pip install -U vllm --pre \\\n"
    "  --extra-index-url https://wheels.vllm.ai/nightly/cu130 \\\n"
    "  --extra-index-url https://download.pytorch.org/whl/cu130 \\\n"
    "  --index-strategy unsafe-best-match"
)


def _nvidia_image(source) -> str:
    if isinstance(source, str):
        return source
    if isinstance(source, dict):
        nvidia = source.get("nvidia")
        if isinstance(nvidia, str):
            return nvidia
        if isinstance(nvidia, dict):
            return nvidia.get("cu130") or nvidia.get("cu129") or "vllm/vllm-openai:latest"
        if not any(k in source for k in ("amd", "tpu", "intel")):
            return source.get("cu130") or source.get("cu129") or "vllm/vllm-openai:latest"
    return "vllm/vllm-openai:latest"


def install_block(recipe: dict) -> dict:
    """`pip` and `docker` ({command, note?, unchecked_shell?}: the flag only on a recipe's own
    command that says so) and `extras`, the recipe's dependencies as written (each keeps its
    `unchecked_shell`)."""
    model = mapping(recipe.get("model"))
    declared = mapping(model.get("install"))
    nightly = model.get("nightly_required") is True
    block: dict = {}
    pip = declared.get("pip")
    if pip is not False:
        pip = mapping(pip)
        entry = {
            "command": pip.get("command")
            if truthy(pip.get("command"))
            else (PIP_NIGHTLY if nightly else PIP_DEFAULT)
        }
        if truthy(pip.get("command")) and pip.get("unchecked_shell") is True:
            entry["unchecked_shell"] = True
        note = (
            pip.get("note")
            if truthy(pip.get("note"))
            else (
                f"vLLM {model.get('min_vllm_version')} isn't released yet — nightly required."
                if nightly
                else None
            )
        )
        if note:
            entry["note"] = note
        block["pip"] = entry
    dock = declared.get("docker")
    if dock is not False:
        dock = mapping(dock)
        entry = {
            "command": dock.get("command")
            if truthy(dock.get("command"))
            else f"docker pull {image_word(_nvidia_image(model.get('docker_image')))}"
        }
        if truthy(dock.get("command")) and dock.get("unchecked_shell") is True:
            entry["unchecked_shell"] = True
        if truthy(dock.get("note")):
            entry["note"] = dock["note"]
        block["docker"] = entry
    deps = recipe.get("dependencies")
    if isinstance(deps, list) and deps:
        block["extras"] = deps
    return block
