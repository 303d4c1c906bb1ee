"""Docker wrapping and images (REFERENCE-BEHAVIOUR §5) and the install block (§6)."""

from __future__ import annotations

import pytest
import synthesis_kit as H

from recipes_site.render.rendering_json import rendering_json
from recipes_site.synthesis import render_strategy
from recipes_site.synthesis.docker import docker_head, docker_image
from recipes_site.synthesis.install import install_block

ctx = H.context()
ALL_RESTRICTED = {
    "xeon6": "verified",
    "trillium": "verified",
    "arc_pro_b60": "verified",
    "ascend_950pr": "verified",
    "rtx_pro_6000_8x": "verified",
}


def recipe(**top):
    r = H.recipe(model_id="acme/M", vram=10, meta={"hardware": dict(ALL_RESTRICTED)}, **top)
    r["model"]["base_env"] = {"A": "1"}
    r["model"]["base_args"] = ["--chat-template", "{% x %}"]
    return r


def single(r, hw_id):
    return render_strategy(ctx, r, "default", "single_node_tp", H.hw(hw_id)).single


def image(r, hw_id, variant="default"):
    return docker_image(r, r["variants"][variant], H.hw(hw_id))


# -- docker_command / docker_argv (§5.2) ---------------------------------------------------------------

BODY = "  --chat-template '{% x %}' \\\n  --tensor-parallel-size 1"
ARGV_TAIL = ["acme/M", "--chat-template", "{% x %}", "--tensor-parallel-size", "1"]
COMMON = [
    "--privileged",
    "--ipc=host",
    "-p",
    "8000:8000",
    "-v",
    "~/.cache/huggingface:/root/.cache/huggingface",
    "-e",
    "A=1",
]


def test_nvidia_docker_command_and_argv():
    p = single(recipe(), "h200")
    assert p.command == "vllm serve acme/M \\\n" + BODY
    assert p.docker_command == (
        "docker run --gpus all \\\n"
        "  --privileged --ipc=host -p 8000:8000 \\\n"
        "  -v ~/.cache/huggingface:/root/.cache/huggingface \\\n"
        "  -e A=1 \\\n"
        "  vllm/vllm-openai:latest acme/M \\\n" + BODY
    )
    assert (
        list(p.docker_argv)
        == ["docker", "run", "--gpus", "all"] + COMMON + ["vllm/vllm-openai:latest"] + ARGV_TAIL
    )


def test_amd_docker_has_two_flag_lines():
    p = single(recipe(), "mi300x")
    assert p.docker_command.splitlines()[:3] == [
        "docker run --device=/dev/kfd --device=/dev/dri \\",
        "  --security-opt seccomp=unconfined --group-add video \\",
        "  --privileged --ipc=host -p 8000:8000 \\",
    ]
    assert (
        list(p.docker_argv)
        == [
            "docker",
            "run",
            "--device=/dev/kfd",
            "--device=/dev/dri",
            "--security-opt",
            "seccomp=unconfined",
            "--group-add",
            "video",
        ]
        + COMMON
        + ["vllm/vllm-openai-rocm:latest"]
        + ARGV_TAIL
    )


def test_tpu_docker_carries_privileged_twice():
    p = single(recipe(), "trillium")
    assert p.docker_command.splitlines()[:3] == [
        "docker run --privileged --network host \\",
        "  -v /dev/shm:/dev/shm \\",
        "  --privileged --ipc=host -p 8000:8000 \\",
    ]
    assert (
        list(p.docker_argv)
        == ["docker", "run", "--privileged", "--network", "host", "-v", "/dev/shm:/dev/shm"]
        + COMMON
        + ["vllm/vllm-tpu:latest"]
        + ARGV_TAIL
    )
    assert p.docker_argv.count("--privileged") == 2


def test_xeon_cpu_shm_size_string_vs_argv():
    p = single(recipe(), "xeon6")
    assert p.docker_command.startswith(
        "docker run --shm-size=16g \\\n  --privileged --ipc=host -p 8000:8000 \\\n"
    )
    assert list(p.docker_argv[:4]) == ["docker", "run", "--shm-size", "16g"]
    assert "vllm/vllm-openai-cpu:latest-x86_64 acme/M \\\n" in p.docker_command


def test_xpu_docker_flags_and_image():
    p = single(recipe(), "arc_pro_b60")
    assert p.docker_command.splitlines()[:2] == [
        "docker run --device /dev/dri \\",
        "  -v /dev/dri/by-path:/dev/dri/by-path --shm-size=16g \\",
    ]
    assert list(p.docker_argv[:8]) == [
        "docker",
        "run",
        "--device",
        "/dev/dri",
        "-v",
        "/dev/dri/by-path:/dev/dri/by-path",
        "--shm-size",
        "16g",
    ]
    assert "vllm/vllm-openai-xpu:latest" in p.docker_argv


def test_ascend_uses_nvidia_flags_and_image():
    p = single(recipe(), "ascend_950pr")
    assert list(p.docker_argv[:4]) == ["docker", "run", "--gpus", "all"]
    assert "vllm/vllm-openai:latest" in p.docker_argv


def test_env_values_js_spelling_and_config_path_mounts():
    r = recipe()
    r["model"]["base_env"] = {
        "X_CONFIG_PATH": "/etc/x.yaml",
        "ON": True,
        "OFF": False,
        "N": 0,
        "S": "a b",
        "F": 2.0,
        "G": 0.5,
    }
    p = single(r, "h200")
    assert p.docker_command.splitlines()[2:11] == [
        "  -v ~/.cache/huggingface:/root/.cache/huggingface \\",
        "  -v /etc/x.yaml:/etc/x.yaml:ro \\",
        "  -e X_CONFIG_PATH=/etc/x.yaml \\",
        "  -e ON=true \\",
        "  -e OFF=false \\",
        "  -e N=0 \\",
        "  -e S='a b' \\",
        "  -e F=2 \\",
        "  -e G=0.5 \\",
    ]
    assert list(p.docker_argv[10:26]) == [
        "-v",
        "/etc/x.yaml:/etc/x.yaml:ro",
        "-e",
        "X_CONFIG_PATH=/etc/x.yaml",
        "-e",
        "ON=true",
        "-e",
        "OFF=false",
        "-e",
        "N=0",
        "-e",
        "S=a b",
        "-e",
        "F=2",
        "-e",
        "G=0.5",
    ]
    assert p.env["ON"] is True and p.env["F"] == 2.0  # env itself keeps the YAML types


def test_local_model_path_is_mounted_with_a_note():
    r = recipe()
    r["model"]["model_id"] = "/models/m"
    p = single(r, "h200")
    assert p.docker_command.splitlines()[:5] == [
        "# /models/m must already exist on the host — bind-mounted read-only below.",
        "docker run --gpus all \\",
        "  --privileged --ipc=host -p 8000:8000 \\",
        "  -v ~/.cache/huggingface:/root/.cache/huggingface \\",
        "  -v /models/m:/models/m:ro \\",
    ]
    assert list(p.docker_argv[10:12]) == ["-v", "/models/m:/models/m:ro"]


def test_docker_command_without_serve_args():
    text = docker_head("img:1", "acme/M", {}, H.hw("h200"), 8000).text
    assert text == (
        "docker run --gpus all \\\n  --privileged --ipc=host -p 8000:8000 \\\n"
        "  -v ~/.cache/huggingface:/root/.cache/huggingface \\\n  img:1 acme/M"
    )
    assert list(docker_head("img:1", "acme/M", {}, H.hw("h200"), 8002).argv) == [
        "docker",
        "run",
        "--gpus",
        "all",
        "--privileged",
        "--ipc=host",
        "-p",
        "8002:8002",
        "-v",
        "~/.cache/huggingface:/root/.cache/huggingface",
        "img:1",
        "acme/M",
    ]


def test_nightly_intel_cpu_has_no_image():
    r = recipe()
    r["model"]["nightly_required"] = True
    rendering = render_strategy(ctx, r, "default", "single_node_tp", H.hw("xeon6"))
    assert rendering.docker_image is None
    assert "docker_image" not in rendering_json(rendering)
    assert "  undefined acme/M \\\n" in rendering.single.docker_command
    assert None in rendering.single.docker_argv


# -- image choice (§5.1) ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "hw_id, expected",
    [
        ("h200", "vllm/vllm-openai:latest"),
        ("mi355x", "vllm/vllm-openai-rocm:latest"),
        ("trillium", "vllm/vllm-tpu:latest"),
        ("xeon6", "vllm/vllm-openai-cpu:latest-x86_64"),
        ("arc_pro_b60", "vllm/vllm-openai-xpu:latest"),
        ("ascend_950pr", "vllm/vllm-openai:latest"),
    ],
)
def test_default_images(hw_id, expected):
    assert image(recipe(), hw_id) == expected


@pytest.mark.parametrize(
    "hw_id, expected",
    [
        ("h200", "vllm/vllm-openai:nightly"),
        ("mi355x", "vllm/vllm-openai-rocm:nightly"),
        ("trillium", "vllm/vllm-tpu:nightly"),
        ("xeon6", None),
        ("arc_pro_b60", "vllm/vllm-openai-xpu:latest"),
    ],
)
def test_nightly_default_images(hw_id, expected):
    r = recipe()
    r["model"]["nightly_required"] = True
    assert image(r, hw_id) == expected


def test_nightly_must_be_literally_true():
    r = recipe()
    r["model"]["nightly_required"] = "yes"
    assert image(r, "h200") == "vllm/vllm-openai:latest"


def test_image_precedence_variant_exact_then_variant_then_model():
    r = recipe()
    r["model"]["docker_image"] = {"nvidia": "model/nv:1", "amd": "model/amd:1"}
    r["variants"]["default"]["docker_image"] = "variant/any:1"
    r["variants"]["default"]["hardware_overrides"] = {
        "rtx_pro_6000_8x": {"docker_image": "exact/rtx:1"},
        "mi300x": {"docker_image": "exact/amd:1"},
        "hopper": {"docker_image": "ignored/gen:1"},
    }
    assert image(r, "rtx_pro_6000_8x") == "exact/rtx:1"
    assert image(r, "mi300x") == "exact/amd:1"  # exact-id string pins on any brand
    assert image(r, "h200") == "variant/any:1"  # variant string pin (NVIDIA)
    assert image(r, "mi325x") == "model/amd:1"  # a string pin does not apply to AMD
    assert image(r, "trillium") == "vllm/vllm-tpu:latest"


def test_model_string_pin_only_for_nvidia():
    r = recipe()
    r["model"]["docker_image"] = "acme/custom:1"
    r["model"]["nightly_required"] = True
    assert image(r, "h200") == "acme/custom:1"  # a pin beats the nightly default
    assert image(r, "ascend_950pr") == "acme/custom:1"
    assert image(r, "mi300x") == "vllm/vllm-openai-rocm:nightly"
    assert image(r, "xeon6") is None


def test_brand_maps_and_cuda_maps():
    r = recipe()
    r["model"]["docker_image"] = {
        "nvidia": {"cu129": "n:129", "cu130": "n:130"},
        "tpu": "t:1",
        "intel": "i:1",
    }
    assert [image(r, h) for h in ("b200", "trillium", "xeon6", "arc_pro_b60", "mi300x")] == [
        "n:130",
        "t:1",
        "i:1",
        "i:1",
        "vllm/vllm-openai-rocm:latest",
    ]
    r["model"]["docker_image"] = {"cu129": "top:129"}
    assert image(r, "b200") == "top:129"
    assert image(r, "mi300x") == "vllm/vllm-openai-rocm:latest"


def test_variant_map_without_this_brand_falls_through_to_model():
    r = recipe()
    r["variants"]["default"]["docker_image"] = {"amd": "variant/amd:1"}
    r["model"]["docker_image"] = "model/nv:1"
    assert image(r, "h200") == "model/nv:1"
    assert image(r, "mi300x") == "variant/amd:1"


def test_first_source_with_cuda_map_stops_the_search():
    r = recipe()
    r["variants"]["default"]["docker_image"] = {"cu130": "variant:130"}
    r["model"]["docker_image"] = "model/nv:1"
    assert image(r, "h200") == "variant:130"


# -- install block (§6) -----------------------------------------------------------------------------------

PIP_DEFAULT = "uv venv\nsource .venv/bin/activate\nuv pip install -U vllm --torch-backend auto"
PIP_NIGHTLY = (
    "uv venv\nsource .venv/bin/activate\nuv pip install -U vllm --pre \\\n"
    "  --extra-index-url https://wheels.vllm.ai/nightly/cu130 \\\n"
    "  --extra-index-url https://download.pytorch.org/whl/cu130 \\\n"
    "  --index-strategy unsafe-best-match"
)


def test_install_default():
    block = install_block({"model": {"model_id": "a/b"}})
    assert block == {
        "pip": {"command": PIP_DEFAULT},
        "docker": {"command": "docker pull vllm/vllm-openai:latest"},
    }
    assert list(block) == ["pip", "docker"]


def test_install_nightly():
    r = {
        "model": {
            "nightly_required": True,
            "min_vllm_version": "0.26.0",
            "install": {"pip": None, "docker": None},
        }
    }
    assert install_block(r) == {
        "pip": {
            "command": PIP_NIGHTLY,
            "note": "vLLM 0.26.0 isn't released yet — nightly required.",
        },
        "docker": {
            "command": "docker pull vllm/vllm-openai:latest"
        },  # nightly does not change the pull
    }


def test_install_disabled_parts_and_key_order():
    assert install_block({"model": {"install": {"pip": False}}}) == {
        "docker": {"command": "docker pull vllm/vllm-openai:latest"}
    }
    assert install_block({"model": {"install": {"docker": False, "pip": False}}}) == {}
    block = install_block(
        {
            "model": {
                "install": {"docker": {"note": "dn"}, "pip": {"note": "pn", "command": "pip x"}}
            }
        }
    )
    assert list(block) == ["pip", "docker"]
    assert block == {
        "pip": {"command": "pip x", "note": "pn"},
        "docker": {"command": "docker pull vllm/vllm-openai:latest", "note": "dn"},
    }


def test_install_pip_note_beats_nightly_note_and_empty_values_fall_back():
    r = {
        "model": {
            "nightly_required": True,
            "min_vllm_version": "0.26.0",
            "install": {
                "pip": {"note": "custom", "command": ""},
                "docker": {"command": "docker pull x:1", "note": ""},
            },
        }
    }
    assert install_block(r) == {
        "pip": {"command": PIP_NIGHTLY, "note": "custom"},
        "docker": {"command": "docker pull x:1"},
    }


@pytest.mark.parametrize(
    "source, pulled",
    [
        ("acme/img:1", "acme/img:1"),
        ({"nvidia": "acme/nv:1", "amd": "acme/amd:1"}, "acme/nv:1"),
        ({"nvidia": {"cu129": "acme/nv:129", "cu130": "acme/nv:130"}}, "acme/nv:130"),
        ({"cu129": "acme/top:129"}, "acme/top:129"),
        ({"amd": "acme/amd:1"}, "vllm/vllm-openai:latest"),
    ],
)
def test_install_docker_pull_from_model_image(source, pulled):
    r = {
        "model": {"docker_image": source},
        "variants": {"default": {"docker_image": "variant/ignored:1"}},
    }
    assert install_block(r)["docker"] == {"command": f"docker pull {pulled}"}


def test_install_extras_from_dependencies():
    deps = [
        {"note": "n", "command": "uv pip install x"},
        {"note": "m", "command": "c", "optional": True},
    ]
    assert install_block({"model": {}, "dependencies": deps})["extras"] == deps
    assert list(install_block({"model": {}, "dependencies": deps})) == ["pip", "docker", "extras"]
    assert "extras" not in install_block({"model": {}, "dependencies": []})
    assert install_block(
        {"model": {"install": {"pip": False, "docker": False}}, "dependencies": deps}
    ) == {"extras": deps}
