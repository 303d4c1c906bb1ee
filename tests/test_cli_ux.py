"""The command line as people expect it: --version, `hardware`, did-you-mean for hardware and model
ids, an explicit variant never silently replaced, `fit` refusing what vLLM refuses, one --nodes rule
for `command` and `fit`, help text for every argument. Each test runs the real CLI (`main`, through cli_kit)."""

from __future__ import annotations

import argparse
import json
from importlib.metadata import version

import pytest
import yaml
from cli_kit import run as cli
from hypothesis import given, settings
from hypothesis import strategies as st

from recipes_site import suggest
from recipes_site.catalog import PROJECT_ROOT
from recipes_site.cli import parser

LLAMA = "meta-llama/Llama-3.3-70B-Instruct"
DEEPSEEK = "deepseek-ai/DeepSeek-R1-0528"


def run(*args) -> tuple[int, str, str]:
    r = cli(*args)
    return r.returncode, r.stdout, r.stderr


def test_version_prints_the_installed_version():
    code, out, _ = run("--version")
    assert code == 0 and out.strip() == f"recipes-site {version('recipes-site')}"


def test_hardware_lists_every_profile_with_name_gpus_and_memory():
    profiles = yaml.safe_load((PROJECT_ROOT / "taxonomy.yaml").read_text())["hardware_profiles"]
    code, out, _ = run("hardware")
    assert code == 0
    header, *lines = out.splitlines()
    assert header.split()[:2] == ["id", "name"] and "GB/GPU" in header
    assert [line.split()[0] for line in lines] == list(profiles)
    h200 = next(line for line in lines if line.startswith("h200 "))
    assert h200.split() == ["h200", "H200", "NVIDIA", "8", "141", "1128", "yes"]
    code, out, _ = run("hardware", "--json")
    rows = {row["id"]: row for row in json.loads(out)}
    assert rows["rtx_pro_6000"] == {
        "id": "rtx_pro_6000",
        "name": "RTX Pro 6000",
        "brand": "NVIDIA",
        "gpus": 1,
        "gb_per_gpu": 96,
        "gb_total": 96,
        "clusters": False,
    }


def test_hardware_shows_a_hostile_name_escaped(tmp_path):
    (tmp_path / "models").mkdir()
    (tmp_path / "taxonomy.yaml").write_text(
        'hardware_profiles:\n  evil:\n    brand: NVIDIA\n    display_name: "x\\e[2J\\ny"\n    gpu_count: 8\n'
    )
    code, out, _ = run("hardware", "--root", str(tmp_path))
    assert code == 0 and "\x1b" not in out
    assert out.splitlines()[1].split()[:2] == ["evil", "x\\x1b[2J\\ny"]


@pytest.mark.parametrize("cmd", ["command", "fit"])
def test_unknown_hardware_says_so_with_a_did_you_mean(cmd):
    code, out, err = run(cmd, LLAMA, "--hardware", "h10")
    assert code == 1 and out == ""
    assert (
        "unknown hardware 'h10' (did you mean h100, h20 or h100_nvl?)" in err
        and "recipes-site hardware" in err
    )
    code, _, err = run(cmd, LLAMA, "--hardware", "zz9")
    assert code == 1 and "unknown hardware 'zz9';" in err and "did you mean" not in err


@pytest.mark.parametrize(
    "typed, first",
    [
        ("meta-llama/Llama-3.3-70B-Instrut", LLAMA),  # typo in the repo name
        ("meta-lama/Llama-3.3-70B-Instruct", LLAMA),  # typo in the org
        ("llama-3.3-70b-instruct", LLAMA),  # no org, other case
        ("qwen/qwen3-8", "Qwen/Qwen3-8B"),
    ],
)
def test_unknown_model_gets_a_did_you_mean(typed, first):
    code, out, err = run("command", typed)
    assert code == 1 and out == ""
    assert f"no recipe or checkpoint named {typed!r}" in err and f"(did you mean {first}" in err


def test_model_suggestions_look_at_a_few_ids_not_all_of_them(monkeypatch):
    """10,000 ids in 500 orgs and 50 families: a typo is compared with the org names, then with the
    ids of the closest orgs and of its family only (a few hundred strings, not 10,000)."""
    ids = [f"org{i % 500}/Fam{i % 50}-{i}B-Instruct" for i in range(10_000)] + [LLAMA]
    index = suggest.NameIndex(ids)
    seen = []
    real = suggest.difflib.get_close_matches

    def counting(word, possibilities, *a, **kw):
        seen.append(len(possibilities))
        return real(word, possibilities, *a, **kw)

    monkeypatch.setattr(suggest.difflib, "get_close_matches", counting)
    assert index.suggest("meta-llama/Llama-3.3-70B-Instrut")[0] == LLAMA
    assert index.suggest("org7/Fam7-1007B-Instrct")[0] == "org7/Fam7-1007B-Instruct"
    assert index.suggest("ORG7/fam7_1007b_instruct") == [
        "org7/Fam7-1007B-Instruct"
    ]  # same normalised id
    assert seen and max(seen) <= 501  # the org names; the pools after them are smaller still


@pytest.mark.parametrize("cmd", ["command", "fit"])
def test_an_explicit_variant_is_refused_rather_than_replaced(cmd):
    code, out, err = run(cmd, LLAMA, "--hardware", "rtx_pro_6000", "--variant", "default")
    assert code == 1 and out == ""
    assert "variant 'default' needs 168 GB, more than one rtx_pro_6000 holds (96 GB)" in err
    assert "cannot be clustered; variants that fit on rtx_pro_6000: fp8, nvfp4, int8, int4" in err
    # a checkpoint only one variant serves names that variant as plainly as --variant does
    code, out, err = run(
        cmd, "nvidia/Llama-4-Scout-17B-16E-Instruct-FP8", "--hardware", "rtx_pro_6000"
    )
    assert code == 1 and out == "" and "variant 'fp8' needs" in err


def test_an_implied_variant_swap_is_noted():
    code, out, err = run("command", LLAMA, "--hardware", "rtx_pro_6000")
    assert code == 0 and out.startswith("vllm serve nvidia/Llama-3.3-70B-Instruct-FP8 ")
    assert "# note: variant 'default' needs 168 GB" in err and "showing variant 'fp8'" in err


def test_fit_refuses_a_max_model_len_beyond_the_context():
    code, out, err = run("fit", LLAMA, "--hardware", "h100", "--max-model-len", "131073")
    assert code == 1 and out == ""
    assert "--max-model-len 131,073 is beyond the model's context of 131,072 tokens" in err
    assert "VLLM_ALLOW_LONG_MAX_MODEL_LEN" in err
    code, out, _ = run("fit", LLAMA, "--hardware", "h100", "--max-model-len", "131072", "--json")
    assert code == 0 and json.loads(out)["hardware"] == "h100"


def test_fit_refuses_a_tp_larger_than_the_gpus_present():
    code, out, err = run("fit", LLAMA, "--hardware", "h100", "--tp", "16")
    assert code == 1 and out == ""
    assert "TP 16 needs 16 GPUs, but 1 node of h100 has 8" in err and "at most --tp 8" in err
    assert run("fit", LLAMA, "--hardware", "h100", "--tp", "8")[0] == 0
    # across nodes the GPUs of every node count
    multi = ("fit", DEEPSEEK, "--hardware", "h200", "--strategy", "multi_node_tp", "--nodes", "2")
    assert run(*multi, "--tp", "16")[0] == 0
    code, _, err = run(*multi, "--tp", "32")
    assert code == 1 and "TP 32 needs 32 GPUs, but 2 nodes of h200 have 16" in err


def _first_error_line(err: str) -> str:
    line = next(l for l in err.splitlines() if "error:" in l or l.startswith("recipes-site:"))
    return line.replace("recipes-site fit:", "recipes-site X:").replace(
        "recipes-site command:", "recipes-site X:"
    )


@pytest.mark.parametrize(
    "choice",
    [
        (LLAMA, "h100", None),
        (DEEPSEEK, "h200", "multi_node_tp"),
        (DEEPSEEK, "h200", "pd_cluster"),
    ],
)
def test_nodes_checks_are_the_same_in_command_and_fit(choice):
    model, hw, strategy = choice
    base = [model, "--hardware", hw] + (["--strategy", strategy] if strategy else [])
    verdicts = {}
    for nodes in ("0", "-1", "x", "1", "2", "3", "4", "17"):
        command = run("command", *base, "--nodes", nodes)
        fit = run("fit", *base, "--nodes", nodes)
        assert command[0] == fit[0], (nodes, command, fit)
        if command[0] != 0:
            assert _first_error_line(command[2]) == _first_error_line(fit[2]), nodes
        verdicts[nodes] = command[0]
    assert verdicts["0"] == verdicts["-1"] == verdicts["x"] == 2  # usage errors, before any lookup
    assert verdicts["17"] == 1  # a refusal with a reason
    assert 0 in verdicts.values()


def _arguments(p: argparse.ArgumentParser, name: str = "recipes-site"):
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                yield from _arguments(sub, f"{name} {sub_name}")
        else:
            yield name, action


def test_every_argument_has_help_text():
    missing = [
        f"{name} {'/'.join(a.option_strings) or a.dest}"
        for name, a in _arguments(parser())
        if not a.help or a.help == argparse.SUPPRESS
    ]
    assert missing == []
    subcommands = {name for name, _ in _arguments(parser())}
    assert {"recipes-site command", "recipes-site fit", "recipes-site hardware"} <= subcommands


PART = st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,6}(?:[-_.][A-Za-z0-9]{1,5}){0,3}", fullmatch=True)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(PART, PART), min_size=1, max_size=30, unique=True), st.data())
def test_an_id_typed_in_another_case_or_with_other_separators_is_found_first(pairs, data):
    ids = [f"{org}/{repo}" for org, repo in pairs]
    wanted = data.draw(st.sampled_from(ids))
    typed = "".join(("_" if ch in "-." else ch.swapcase()) for ch in wanted)
    assert suggest.normalise(typed) == suggest.normalise(wanted)
    assert wanted in suggest.NameIndex(ids).suggest(typed)


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ("command", LLAMA, "--nodes", "abc"),
            "--nodes: expected a positive whole number, got 'abc'",
        ),
        (("command", LLAMA, "--nodes", "0"), "--nodes: expected a positive whole number, got '0'"),
        (("fit", LLAMA, "--tp", "2.5"), "--tp: expected a positive whole number, got '2.5'"),
        (
            ("fit", LLAMA, "--gpu-memory-utilization", "lots"),
            "--gpu-memory-utilization: expected a fraction above 0 and at most 1",
        ),
        (("serve", "--port", "http"), "--port: expected a port number from 0 to 65535"),
    ],
)
def test_a_malformed_number_is_named_for_people_not_by_its_parser(args, message):
    code, _, err = run(*args)
    assert code == 2 and message in err, err
    assert "invalid" not in err and "_positive_int" not in err and "_fraction" not in err


@pytest.mark.parametrize("command", ["command", "fit"])
def test_hardware_and_strategy_ids_are_matched_ignoring_case(command):
    _, exact, _ = run(command, LLAMA, "--hardware", "h100", "--strategy", "single_node_tp")
    code, out, err = run(command, LLAMA, "--hardware", "H100", "--strategy", "Single_Node_TP")
    assert code == 0, err
    assert out == exact


@pytest.mark.parametrize("command", ["command", "fit"])
def test_a_mistyped_strategy_is_refused_with_a_did_you_mean(command):
    code, out, err = run(command, LLAMA, "--strategy", "single_node_tq")
    assert code == 1 and out == ""
    assert "unknown strategy 'single_node_tq' (did you mean single_node_tp" in err, err


@pytest.mark.parametrize("command", ["command", "fit"])
def test_unknown_hardware_is_refused_alike_by_command_and_fit(command):
    code, _, err = run(command, LLAMA, "--hardware", "h1000")
    assert code == 1
    assert "unknown hardware 'h1000' (did you mean h100" in err and "recipes-site hardware" in err


@pytest.mark.parametrize(
    "args, message",
    [
        (("command", LLAMA, "--root", "./nope"), "--root ./nope: no such folder"),
        (("fit", LLAMA, "--root", "./nope"), "--root ./nope: no such folder"),
        (("hardware", "--root", "./nope"), "--root ./nope: no such folder"),
        (("diff", "HEAD", "--root", "./nope"), "--root ./nope: no such folder"),
        (("build", "./nope", "--out", "./nope-site"), "recipes root ./nope: no such folder"),
        (("serve", "./nope"), "recipes root ./nope: no such folder"),
        (("new", "acme/Thing-1B", "--config", "./nope.json"), "--config ./nope.json: no such file"),
    ],
)
def test_a_missing_root_folder_or_config_file_is_named_as_missing(args, message, tmp_path):
    r = cli(*args, cwd=tmp_path)
    assert r.returncode == 1 and r.stderr == f"recipes-site: error: {message}\n", r.stderr
    assert list(tmp_path.iterdir()) == []  # nothing written
