"""Issue 26, any GPU count (gpu_counts.py): the layout of a command on the N GPUs a reader has,
as the hardware documents publish it, `recipes-site command/fit --gpus N` print it and the page
assembles it."""

from __future__ import annotations

import json
import shlex

import jsonschema
import pytest
from cli_kit import run

from recipes_site import gpu_counts, plan
from recipes_site.render.schemas import schema_for
from recipes_site.synthesis import render_choice
from recipes_site.synthesis.choices import feature_choices

LLAMA = "meta-llama/Llama-3.3-70B-Instruct"  # 131 GiB of bf16 weights: TP 8 on an H100 node
QWEN_32B = "Qwen/Qwen3-32B"  # TP 2 on an H100, replicas fill the node
SEP = " \\\n  "


def _layouts(ctx, recipes, hf_id: str, hw: str, counts=None, variant: str = "default"):
    r = render_choice(ctx, recipes[hf_id], variant, hw)
    profile = ctx.profiles[hw]
    plans = plan.RecipePlans(recipes[hf_id])
    base = gpu_counts.layout_base(r)
    assert base is not None, f"{hf_id} on {hw}: {r.strategy} has no GPU-count layouts"
    wanted = counts or gpu_counts.gpu_counts(profile)
    return r, base, gpu_counts.layouts(plans, r, profile, base, wanted)


# -- counts and TP sizes -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "gpu_count, counts",
    [(1, []), (None, []), (2, [1, 2]), (4, [1, 2, 4]), (8, [1, 2, 4, 8]), (6, [1, 2, 4, 6])],
)
def test_the_counts_a_reader_picks_end_at_the_node(gpu_count, counts):
    assert gpu_counts.gpu_counts({"gpu_count": gpu_count}) == counts


def test_tp_sizes_are_those_the_heads_allow():
    assert gpu_counts.tp_sizes({"num_attention_heads": 64, "num_key_value_heads": 8}, 8) == [
        1,
        2,
        4,
        8,
    ]
    # 12 heads: TP 8 does not divide them, and vLLM refuses it at startup
    assert gpu_counts.tp_sizes({"num_attention_heads": 12, "num_key_value_heads": 12}, 8) == [
        1,
        2,
        4,
    ]
    assert gpu_counts.tp_sizes(None, 6) == [1, 2, 4, 6]


# -- layouts ------------------------------------------------------------------------------------------


def test_a_model_that_needs_two_gpus(ctx, recipes):
    r, _, found = _layouts(ctx, recipes, LLAMA, "h100")
    one, two, eight = found[1], found[2], found[8]
    assert not one.fits and one.tp is None and one.replicas == 0
    assert one.reason.startswith("needs 2 GPUs: weights ") and one.needs == 2
    assert "> 1 x " in one.reason
    assert (two.tp, two.replicas) == (2, 1) and two.fits
    # TP 2 leaves too little KV cache for the full context: the engine's --max-model-len
    assert two.max_model_len is not None and two.lines == (f"--max-model-len {two.max_model_len}",)
    assert two.max_model_len < recipes[LLAMA]["model"]["context_length"]
    assert (eight.tp, eight.replicas) == (2, 4), "the smallest TP that fits, replicas fill the rest"
    assert plan.holds(two.plan) and two.plan["tp"] == 2 and two.plan["gpus"] == 2
    assert r.single is not None and "--tensor-parallel-size 8" in r.single.command


def test_a_count_too_small_for_the_whole_node(ctx, recipes):
    _, _, found = _layouts(ctx, recipes, "moonshotai/Kimi-K2.6", "h200")
    for n in (1, 2, 4):
        assert not found[n].fits and found[n].reason.startswith("needs 8 GPUs: weights ")
    assert found[8].fits and found[8].tp == 8


def test_the_layout_at_the_rendered_tp_is_the_rendering(ctx, recipes, hw_docs):
    """The engine sizes a layout as it sizes the rendered command: at the rendering's own TP
    the layout's argv is the rendering's, --max-model-len included."""
    checked = 0
    for (hf_id, hw), doc in hw_docs.items():
        for entry in doc["renderings"]:
            if "gpus" not in entry or entry["variant"] != "default":
                continue
            r = render_choice(ctx, recipes[hf_id], "default", hw, entry["strategy"])
            plans = plan.RecipePlans(recipes[hf_id])
            choices = feature_choices(
                recipes[hf_id], ctx.hardware(hw), r.variant, r.feature_strategy
            )
            base = gpu_counts.layout_base(r, gpu_counts.drafts_of(plans, choices))
            tp = int(entry["argv"][entry["argv"].index("--tensor-parallel-size") + 1])
            trial = gpu_counts._trial(plans, r, ctx.profiles[hw], base, tp)
            assert trial.argv == tuple(entry["argv"]), (hf_id, hw)
            checked += 1
    assert checked > 50


def test_the_page_assembly_of_every_layout_is_its_argv(hw_docs, ctx, recipes):
    """`layout_command` (site.js `layoutLines`) of every published count that fits is the command of
    the layout: its TP, and the engine's lines of that TP."""
    tails = 0
    for (hf_id, hw), doc in hw_docs.items():
        for entry in doc["renderings"]:
            member = entry.get("gpus")
            if not member:
                continue
            tails += member["tail"] > 0
            for n, c in member["counts"].items():
                if not c["fits"]:
                    assert c["tensor_parallel_size"] is None and c["replicas"] == 0
                    assert c["reason"].startswith(("needs ", "does not fit"))
                    continue
                command = gpu_counts.layout_command(entry["command"], member, int(n))
                argv = shlex.split(command.replace(" \\\n", " "))
                shape = gpu_counts.fit.shape_from_argv(argv)
                assert shape.tp == c["tensor_parallel_size"], (hf_id, hw, n)
                assert (
                    shape.max_model_len == c.get("max_model_len")
                    or ("max_model_len" not in c and "--max-model-len" not in command)
                    or entry["command"].count("--max-model-len") > member["tail"]
                )
                assert c["replicas"] == int(n) // c["tensor_parallel_size"]
                docker = gpu_counts.layout_docker_command(
                    entry["docker_command"], entry["command"], member, int(n)
                )
                assert docker.endswith(command.split(SEP, 1)[1])
    assert tails > 0, "some layout replaces the engine's --max-model-len"


def test_a_one_gpu_profile_has_no_gpu_choice(hw_docs, ctx):
    singles = [h for h, p in ctx.profiles.items() if (p.get("gpu_count") or 1) == 1]
    seen = 0
    for (_, hw), doc in hw_docs.items():
        if hw in singles:
            seen += 1
            assert "gpu_replicas" not in doc
            assert all("gpus" not in r for r in doc["renderings"])
    assert seen > 0


def test_strategies_that_lay_out_the_node_have_no_layouts(hw_docs):
    for doc in hw_docs.values():
        for r in doc["renderings"]:
            if r["strategy"] != "single_node_tp" and "gpus" in r:
                argv = r["argv"]
                assert "--data-parallel-size" not in argv and "--enable-expert-parallel" not in argv


def test_replicas_of_a_layout_run_on_the_first_gpus_of_its_set(hw_docs):
    doc = hw_docs[(QWEN_32B, "h100")]
    entry = next(r for r in doc["renderings"] if r["strategy"] == "single_node_tp")
    c = entry["gpus"]["counts"]["4"]
    assert (c["tensor_parallel_size"], c["replicas"]) == (1, 4)
    reps = doc["gpu_replicas"]["1"][: c["replicas"]]
    assert [x["gpus"] for x in reps] == ["0", "1", "2", "3"]
    assert [x["port"] for x in reps] == [8000, 8001, 8002, 8003]


# -- the published schema --------------------------------------------------------------------------------


def test_the_hardware_document_schema_publishes_the_layouts(hw_docs):
    schema = schema_for("model-hardware")
    doc = hw_docs[(LLAMA, "h100")]
    jsonschema.validate(doc, schema)
    bad = json.loads(json.dumps(doc))
    entry = next(r for r in bad["renderings"] if "gpus" in r)
    entry["gpus"]["counts"]["two"] = entry["gpus"]["counts"]["2"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
    del entry["gpus"]["counts"]["two"]
    entry["gpus"]["counts"]["2"]["tensor_parallel_size"] = "2"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


@pytest.fixture(scope="module")
def hw_docs(project_site) -> dict[tuple[str, str], dict]:
    out, _ = project_site
    docs = {}
    for path in sorted((out / "api" / "v1" / "models").glob("*/*/hw/*.json")):
        rel = path.relative_to(out / "api" / "v1" / "models").parts
        docs[(f"{rel[0]}/{rel[1]}", path.stem)] = json.loads(path.read_text())
    return docs


# -- the CLI --------------------------------------------------------------------------------------------


def test_command_gpus_prints_the_layout_and_its_copies():
    done = run("command", QWEN_32B, "--hardware", "h100", "--gpus", "4")
    assert done.returncode == 0, done.stderr
    copies = done.stdout.rstrip("\n").split("\n\n")
    assert len(copies) == 4
    assert copies[0].startswith("# copy 1: GPU 0, port 8000\nexport CUDA_VISIBLE_DEVICES=0\n")
    assert all("--tensor-parallel-size 1 \\" in c for c in copies)
    assert copies[3].endswith("--port 8003")
    one = run("command", LLAMA, "--hardware", "h100", "--gpus", "2")
    assert one.returncode == 0 and "# copy" not in one.stdout
    assert "--tensor-parallel-size 2 \\" in one.stdout and "--max-model-len " in one.stdout
    docker = run("command", LLAMA, "--hardware", "h100", "--gpus", "2", "--docker")
    assert docker.stdout.startswith("docker run") and "--tensor-parallel-size 2" in docker.stdout


def test_command_gpus_json_is_a_rendering_of_the_layout():
    done = run("command", LLAMA, "--hardware", "h100", "--gpus", "4", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    jsonschema.validate(out, schema_for("rendering"))
    c = out["gpus"]["counts"]["4"]
    assert (c["tensor_parallel_size"], c["replicas"]) == (2, 2)
    assert out["argv"][out["argv"].index("--tensor-parallel-size") + 1] == "2"
    assert [x["port"] for x in out["gpus"]["replica_commands"]] == [8000, 8001]
    assert out["docker_argv"][-len(out["argv"]) + 3 :] == out["argv"][3:]


@pytest.mark.parametrize(
    "args, words",
    [
        (["--gpus", "16"], "--gpus 16: one h100 node holds 8 GPUs"),
        (["--gpus", "1"], "needs 2 GPUs: weights"),
        (["--gpus", "1"], "try --gpus 2"),
        (
            ["--gpus", "2", "--strategy", "kv_store_centralized_mooncake"],
            "single-node tensor-parallel",
        ),
        (["--gpus", "0"], "positive"),
    ],
)
def test_command_gpus_refuses_in_words(args, words):
    done = run("command", LLAMA, "--hardware", "h100", *args)
    assert done.returncode != 0
    assert words in done.stderr


def test_fit_gpus_sizes_the_layout():
    done = run("fit", LLAMA, "--hardware", "h100", "--gpus", "4")
    assert done.returncode == 0, done.stderr
    assert "· TP 2" in done.stdout.splitlines()[0]
    assert "note: --gpus 4: 2 copies of the command at TP 2" in done.stdout
    assert "# copy 2: GPUs 2-3, port 8001" in done.stdout
    as_json = json.loads(run("fit", LLAMA, "--hardware", "h100", "--gpus", "4", "--json").stdout)
    assert as_json["tp"] == 2 and as_json["plan"]["tp"] == 2 and len(as_json["replicas"]) == 2
    small = run("fit", LLAMA, "--hardware", "h100", "--gpus", "1")
    assert small.returncode == 1 and "try --gpus 2" in small.stderr
    both = run("fit", LLAMA, "--hardware", "h100", "--gpus", "2", "--tp", "2")
    assert both.returncode == 1 and "--gpus or --tp" in both.stderr


def test_a_one_gpu_profile_takes_only_its_one_gpu():
    more = run("command", "Qwen/Qwen3-8B", "--hardware", "rtx_5090", "--gpus", "2")
    assert more.returncode == 1 and "one rtx_5090 node holds 1 GPU" in more.stderr
    one = run("command", "Qwen/Qwen3-8B", "--hardware", "rtx_5090", "--gpus", "1")
    plain = run("command", "Qwen/Qwen3-8B", "--hardware", "rtx_5090")
    assert one.returncode == 0 and one.stdout == plain.stdout
