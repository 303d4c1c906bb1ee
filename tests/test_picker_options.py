"""render/advanced.py: the "More options" document (image choices, --max-model-len auto)."""

from __future__ import annotations

import json
import re
from importlib import resources

from recipes_site.render.advanced import (
    IMAGES,
    MAX_INSTANCES,
    MAX_MODEL_LEN_AUTO,
    kv_store_topologies,
    picker_options_doc,
)
from recipes_site.synthesis.docker import DEFAULT_IMAGES, NIGHTLY_IMAGES, XPU_IMAGE

VLLM = "vllm/vllm-openai"


def test_every_default_image_has_labelled_choices_starting_with_itself():
    for image in [*DEFAULT_IMAGES.values(), *NIGHTLY_IMAGES.values(), XPU_IMAGE]:
        choices = IMAGES[image]
        assert choices[0][1] == image and all(label for label, _ in choices)
    for image, choices in IMAGES.items():
        assert choices[0][1] == image
        for _, other in choices:  # a choice's own family offers the way back
            assert other in IMAGES and any(x == image for _, x in IMAGES[other])


def test_cuda_13_is_the_unsuffixed_tag_and_cuda_12_9_the_cu129_one():
    labels = {label: image for label, image in IMAGES[f"{VLLM}:latest"]}
    assert labels == {"CUDA 13 (default)": f"{VLLM}:latest", "CUDA 12.9": f"{VLLM}:latest-cu129"}
    for image in IMAGES:  # every tag is one shell word, printed bare
        assert re.fullmatch(r"[a-z0-9./_-]+:[A-Za-z0-9._-]+", image)


def test_max_model_len_auto_replaces_the_flag_and_vllm_accepts_auto(tmp_path):
    line = MAX_MODEL_LEN_AUTO["line"]
    assert line.startswith(MAX_MODEL_LEN_AUTO["replaces"])
    assert "--max-model-len 8192".startswith(MAX_MODEL_LEN_AUTO["replaces"])
    assert not "--max-model-lens".startswith(MAX_MODEL_LEN_AUTO["replaces"])
    assert line.split() == ["--max-model-len", "auto"]


def test_the_document_joins_kv_offload_images_and_the_auto_length(catalog, ctx):
    doc = picker_options_doc(catalog.taxonomy, "0.33.0", ctx.strategies)
    assert set(doc) == {
        "vllm_version",
        "layout_reason",
        "kv_offload",
        "max_model_len_auto",
        "images",
        "pinned",
        "locked_reason",
        "kv_stores",
        "k8s_note",
    }
    assert doc["images"] is IMAGES and doc["kv_offload"]


def test_every_flag_the_options_write_is_a_vllm_0_33_flag(catalog, ctx):
    flags = set(
        json.loads(resources.files("recipes_site.data").joinpath("vllm_flags.json").read_text())[
            "flags"
        ]
    )
    doc = picker_options_doc(catalog.taxonomy, "0.33.0", ctx.strategies)
    lines = [doc["max_model_len_auto"]["line"]] + [l for o in doc["kv_offload"] for l in o["lines"]]
    for line in lines:
        assert line.split()[0] in flags, line


def test_kv_store_routers_follow_the_instance_count(ctx):
    tops = kv_store_topologies(ctx.strategies)
    assert set(tops) == {"kv_store_centralized_mooncake", "kv_store_distributed_mooncake"}
    assert tops["kv_store_centralized_mooncake"]["default"] == 2
    for top in tops.values():
        routers = top["routers"]
        assert len(routers) == MAX_INSTANCES and routers[0] is None  # one instance: no router
        for n, text in enumerate(routers[1:], start=2):
            assert text.count("--backend-url http://$VLLM_INSTANCE_") == n
            assert f"$VLLM_INSTANCE_{n}:" in text and f"$VLLM_INSTANCE_{n + 1}:" not in text
