"""Shell injection (issue 10): recipe strings must reach pasted commands as inert words.

Every case is a real attempt: an attacker's recipe (tests/fixtures/security/) is built, and each
command a user can copy (the page's export lines + `vllm serve`, the `docker run` form, the
router / Mooncake / install tabs, `recipes-site command`) is run by bash with `vllm`, `docker`
and friends replaced by stubs that record their argv. A payload that escapes leaves a `pwNN`
file behind; an intact command hands the stubs exactly the rendering's `argv` / `docker_argv`.
The invariant over every build (our recipes, the attacker's, the public corpus when present):
`split(command) == shell_words(argv)` for every process and docker form.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recipes_site.build import build, synthesis_context
from recipes_site.catalog import load_catalog
from recipes_site.catalog.diagnostics import Level
from recipes_site.catalog.shell_rules import arg_problem, image_problem
from recipes_site.cli import _rendering_text
from recipes_site.jsish import js_str
from recipes_site.synthesis import render_strategy, synthesize_recipe
from recipes_site.synthesis.shell import shell_words, unit_line

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
FIXTURES = HERE / "fixtures" / "security"
COMPAT = ROOT.parent / "shared" / "compat" / "corpus"  # beside the checkout (as in conftest)
RECIPE = "models/acme/Hostile-7B.yaml"
BASH = shutil.which("bash")
STUBS = ("vllm", "docker", "vllm-router", "mooncake_master", "uv", "python3")
# Every $NAME our commands leave for the user's shell (synthesis and the strategy/kv vocabulary).
PLACEHOLDERS = (
    "HEAD_IP",
    "IFACE_NAME",
    "MOONCAKE_CONFIG_PATH",
    "MOONCAKE_STORE_CONFIG_PATH",
    "MOONCAKE_MASTER_IP",
    "MOONCAKE_DEVICE_NAME",
    "MOONCAKE_STORE_DEVICE_NAME",
    "ROUTER_HOST",
    "ROUTER_PORT",
    "PREFILL_DP_RPC_PORT",
    "DECODE_DP_RPC_PORT",
    *(
        f"{role}_{i}"
        for role in ("PREFILL_NODE", "DECODE_NODE", "VLLM_INSTANCE")
        for i in range(1, 5)
    ),
)

needs_bash = pytest.mark.skipif(BASH is None, reason="bash is not installed")


# -- running a pasted command ---------------------------------------------------------------------

STUB = """#!/bin/sh
printf '%s\\0' "${0##*/}" "$@" > "$CALLS/$$.argv"
env -0 > "$CALLS/$$.env"
"""


def paste(text: str, tmp: Path, env: dict | None = None) -> tuple[set, list]:
    """Run `text` as a user pasting it would (bash, cwd = a fresh folder). Returns the files the
    text left in that folder named pw* (escaped payloads) and the stub calls as (argv, environ)."""
    tmp.mkdir(parents=True, exist_ok=True)
    stubs, calls, work = tmp / "bin", tmp / "calls", tmp / "work"
    for d in (stubs, calls, work):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir()
    for name in STUBS:
        (stubs / name).write_text(STUB)
        (stubs / name).chmod(0o755)
    environ = {
        "PATH": f"{stubs}:/usr/bin:/bin",
        "HOME": "~",
        "CALLS": str(calls),
        "LC_ALL": "C.UTF-8",
        **{name: f"${name}" for name in PLACEHOLDERS},
        **(env or {}),
    }
    script = tmp / "pasted.sh"
    script.write_text(text)
    subprocess.run(
        [BASH, "--noprofile", "--norc", str(script)],
        cwd=work,
        env=environ,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
    )
    recorded = []  # in no particular order (a stub names its record by its pid)
    for record in sorted(calls.glob("*.argv")):
        argv = record.read_bytes().decode().split("\0")[:-1]
        env_items = record.with_suffix(".env").read_bytes().decode().split("\0")[:-1]
        recorded.append((argv, dict(item.split("=", 1) for item in env_items)))
    return {p.name for p in work.iterdir() if p.name.startswith("pw")}, recorded


# -- what a build lets a user copy ------------------------------------------------------------------


def _get(doc, path):
    for key in path:
        doc = doc[key]
    return doc


def _argv_path(path: list) -> list:
    return [
        k.replace("commands", "argvs").replace("command", "argv") if isinstance(k, str) else k
        for k in path
    ]


def hw_documents(site: Path):
    yield from (
        json.loads(p.read_text())
        for p in sorted((site / "api" / "v1" / "models").rglob("hw/*.json"))
    )


def processes(site: Path):
    """(rendering, part, command, argv, docker_command, docker_argv) of every process on every page."""
    for doc in hw_documents(site):
        for r in doc["renderings"]:
            for part in r["parts"]["processes"]:
                yield (
                    r,
                    part,
                    _get(r, part["path"]),
                    _get(r, _argv_path(part["path"])),
                    _get(r, part["docker_path"]),
                    _get(r, _argv_path(part["docker_path"])),
                )


def extra_texts(site: Path):
    """Router, Mooncake and install tabs, and the recipe's install block."""
    for doc in hw_documents(site):
        for r in doc["renderings"]:
            for extra in doc["extra_sets"][r["parts"]["extras"]]:
                yield (
                    extra["text"]
                    if "text" in extra
                    else extra.get("prefix", "") + _get(r, extra["path"])
                )
    for path in (site / "api" / "v1" / "models").rglob("*.json"):
        install = (
            json.loads(path.read_text()).get("model", {}).get("install", {})
            if path.parent.name != "hw"
            else {}
        )
        if "docker" in install:
            yield install["docker"]["command"]


def split(command: str) -> list[str]:
    """shlex.split after the shell's own first step: a backslash-newline outside quotes is a line
    continuation and disappears (shlex would keep the newline as a word)."""
    out, i, quoted = [], 0, False
    while i < len(command):
        c = command[i]
        if quoted:
            quoted = c != "'"
        elif c == "'":
            quoted = True
        elif c == "\\":
            if command[i + 1 : i + 2] != "\n":
                out.append(command[i : i + 2])
            i += 2
            continue
        out.append(c)
        i += 1
    return shlex.split("".join(out))


def without_header(docker_command: str) -> str:
    """The docker text minus our `# <model> must already exist` line (bash skips it as a comment)."""
    return docker_command.split("\n", 1)[1] if docker_command.startswith("# ") else docker_command


def docker_words(docker_argv: list) -> list:
    """shell_words of a docker argv, with the reference's one spelling difference between its two
    docker forms folded (`--shm-size=16g` in the text, `--shm-size 16g` in the argv; section 5.2)."""
    words = shell_words(docker_argv)
    for i in range(len(words) - 1):
        if words[i] == "--shm-size":
            return words[:i] + [f"--shm-size={words[i + 1]}"] + words[i + 2 :]
    return words


def assert_round_trip(site: Path) -> int:
    """The invariant over a built site, read back from its API documents."""
    n = 0
    for r, _, command, argv, docker_command, docker_argv in processes(site):
        where = (r["hardware"], r["strategy"], r["variant"])
        assert split(command) == shell_words(argv), where
        assert split(without_header(docker_command)) == docker_words(docker_argv), where
        n += 1
    return n


def assert_round_trip_of_root(root: Path) -> int:
    """The invariant over every rendering the build of `root` publishes, taken from synthesis (the
    API documents print these very strings; writing the pages is not needed to check them)."""
    catalog, diags = load_catalog(root)
    assert not [d for d in diags if d.level is Level.ERROR]
    ctx = synthesis_context(catalog)
    standalone = {d.hf_id for d in catalog.recipes}
    n = 0
    for doc in catalog.recipes:
        for tree in synthesize_recipe(ctx, doc.hf_id, doc.data, standalone).trees:
            for res in tree.by_hardware:
                for r in (res.recommended, *res.alternatives):
                    for p in r.processes:
                        where = (doc.hf_id, r.hardware, r.strategy, r.variant)
                        assert split(p.command) == shell_words(p.argv), where
                        assert split(without_header(p.docker_command)) == docker_words(
                            p.docker_argv
                        ), where
                        n += 1
    return n


@pytest.fixture(scope="module")
def accepted_site(tmp_path_factory):
    out = tmp_path_factory.mktemp("accepted") / "site"
    result = build(FIXTURES / "accepted", out)
    assert result.ok, [d.format() for d in result.diagnostics if d.level is Level.ERROR]
    return out


# -- the attacks ------------------------------------------------------------------------------------


def test_the_attacker_recipe_validates(accepted_site):
    """The payloads sit in fields whose values may hold any text: validation cannot stop them."""
    text = (FIXTURES / "accepted" / RECIPE).read_text()
    for n in (1, 4, 8, 9, 10, 11, 14, 17, 18, 19, 20, 21, 22, 23, 24, 25):
        assert f"touch pw{n:02d}" in text
    assert any(p.name == "Hostile-7B.json" for p in accepted_site.rglob("*.json"))


@needs_bash
def test_no_pasted_serve_or_docker_command_runs_the_payload(accepted_site, tmp_path):
    """Exports + `vllm serve`, and `docker run`, exactly as the page shows them: bash runs each,
    nothing escapes, and the stubs receive the rendering's argv and environment."""
    seen = 0
    for r, part, command, argv, docker_command, docker_argv in processes(accepted_site):
        where = (r["hardware"], r["strategy"], r["variant"], part["id"])
        # each variable set to its own `$NAME`, but HOME, which `~/.cache` reads: paste's "~"
        own = {name: f"${name}" for name in r["user_variables"] if name != "HOME"}
        environ = {**own, "HOME": "~"}
        touched, calls = paste(part["exports"] + command, tmp_path, env=own)
        assert touched == set(), where
        assert [c[0] for c in calls] == [shell_words(argv)], where
        env = r[part["id"]]["env"] if r["deploy_type"] == "pd_cluster" else r["env"]
        for name, value in env.items():
            assert calls[0][1][name] == expanded(js_str(value), environ), (where, name)
        touched, calls = paste(docker_command, tmp_path, env=own)
        assert touched == set(), where
        assert [c[0] for c in calls] == [expanded_docker(docker_words(docker_argv), environ)], where
        seen += 1
    assert seen >= 40  # single, multi-node head/worker, prefill/decode, kv instances, on 9 GPUs


@needs_bash
def test_router_mooncake_and_install_tabs_run_nothing_else(accepted_site, tmp_path):
    texts = sorted(set(extra_texts(accepted_site)))
    assert any("vllm-router" in t for t in texts) and any("mooncake_master" in t for t in texts)
    for text in texts:
        touched, _ = paste(text, tmp_path)
        assert touched == set(), text


@needs_bash
def test_recipes_site_command_output_is_inert(accepted_site, tmp_path):
    """`recipes-site command` prints the same processes with their export lines."""
    catalog, _ = load_catalog(FIXTURES / "accepted")
    ctx = synthesis_context(catalog)
    doc = next(d for d in catalog.recipes if d.hf_id == "acme/Hostile-7B")
    rendered = synthesize_recipe(ctx, doc.hf_id, doc.data, {doc.hf_id})
    renderings = [
        r
        for tree in rendered.trees
        for res in tree.by_hardware
        for r in (res.recommended, *res.alternatives)
    ]
    assert {r.deploy_type for r in renderings} == {
        "single_node",
        "multi_node",
        "pd_cluster",
        "kv_store_lb",
    }
    texts = [_rendering_text(r, docker) for r in renderings for docker in (False, True)]
    touched, calls = paste("\n".join(texts), tmp_path)
    assert touched == set()
    assert len([argv for argv, _ in calls if argv[0] in ("vllm", "docker")]) >= len(texts)


_ONE_VARIABLE = re.compile(r"\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})")


def expanded(value: str, environ: dict) -> str:
    """An env value as the shell passes it under `environ`: one variable is expanded."""
    m = _ONE_VARIABLE.fullmatch(value)
    return environ[m[1] or m[2]] if m else value


def expanded_docker(words: list, environ: dict) -> list:
    """docker words, each `-e NAME=value` as it arrives (`expanded`)."""
    return [
        w.split("=", 1)[0] + "=" + expanded(w.split("=", 1)[1], environ)
        if i and words[i - 1] == "-e" and "=" in w
        else w
        for i, w in enumerate(words)
    ]


USER_SET = {
    "HEAD_IP": "10.0.0.1",
    "IFACE_NAME": "eth9",
    "HOME": "/root",
    "IB_IF": "ib0",
    "iface": "eth1",
}


@needs_bash
@pytest.mark.parametrize("form", ["serve", "docker"])
def test_what_expands_is_one_variable_and_nothing_else(accepted_site, tmp_path, form):
    """$HEAD_IP and $IFACE_NAME that synthesis wrote expand, and so does a recipe env value that
    is one variable (`$HOME`, `${IB_IF}`, `$iface`: the reference prints them bare, and NCCL must
    get the interface, not its name). Anything more reaches vLLM as written; a recipe's `$NAME`
    in an argument too."""
    doc = json.loads((accepted_site / "api/v1/models/acme/Hostile-7B/hw/h200.json").read_text())
    multi = next(r for r in doc["renderings"] if r["deploy_type"] == "multi_node")
    part = multi["parts"]["processes"][0]
    text = (
        part["exports"] + multi["head_command"] if form == "serve" else multi["head_docker_command"]
    )
    touched, calls = paste(text, tmp_path, env=USER_SET)
    assert touched == set()
    argv, environ = calls[0]
    if form == "docker":  # the container's environment is what `-e` says
        environ = dict(w.split("=", 1) for w in argv[1:] if "=" in w and w[0].isupper())
    assert argv[argv.index("--master-addr") + 1] == "10.0.0.1"
    assert environ["GLOO_SOCKET_IFNAME"] == "eth9"
    assert environ["HEAD_LOOKALIKE"] == "10.0.0.1" and environ["HOME_ENV"] == "/root"
    assert environ["IB_ENV"] == "ib0" and environ["LOWER_ENV"] == "eth1"
    for name, literal in {
        "DEFAULT_ENV": "${X:-$(touch pw23)}",
        "TWO_ENV": "$HOME$HEAD_IP",
        "TEXT_ENV": "$HOME/x",
        "ARITH_ENV": "$((1+1))",
        "DOLLAR_TICK_ENV": "$`touch pw24`",
        "NESTED_ENV": "${IB_IF$(touch pw25)}",
        "BAR_ENV": "$(touch pw09)",
    }.items():
        assert environ[name] == literal, name
    assert "$(touch pw04)" in argv  # an argument is never expanded
    assert {"HEAD_IP", "IFACE_NAME", "HOME", "IB_IF", "iface"} <= set(multi["user_variables"])


@needs_bash
def test_user_variables_name_every_variable_a_pasted_command_needs(accepted_site, tmp_path):
    """With `set -u` and only the rendering's `user_variables` set, every pasted text (exports,
    serve and docker forms of every process) runs: none expands a variable the list omits."""
    stubs = "vllm() { :; }\ndocker() { :; }\n"  # the commands themselves need not exist
    for r, part, command, _, docker_command, _ in processes(accepted_site):
        for text in (part["exports"] + command, docker_command):
            script = tmp_path / "strict.sh"
            script.write_text("set -u\n" + stubs + text + "\necho done\n")
            done = subprocess.run(
                [BASH, "--noprofile", "--norc", str(script)],
                cwd=tmp_path,
                env={"PATH": "/usr/bin:/bin", **{name: "x" for name in r["user_variables"]}},
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.stdout.strip() == "done", (r["strategy"], done.stderr[-300:])


# -- payloads in fields with a grammar: refused by validate, inert even without it ------------------

REJECTED = {  # key path -> what validate must say about it
    "model.docker_image": "is not a container image reference",
    "model.base_args[0]": "is not a flag name",
    "model.base_args[1]": "is not a flag name",
    "model.base_env.NL_ENV": "control character U+000A",
    "variants.default.hardware_overrides.b200.docker_image": "is not a container image reference",
    "variants.local.model_id": "",
    "variants.other.model_id": "",
    "hardware_overrides.nvidia.extra_args[0]": "is not a flag name",
}


def test_validate_refuses_each_payload_at_its_line(tmp_path):
    text = (FIXTURES / "rejected" / RECIPE).read_text().splitlines()
    _, diags = load_catalog(FIXTURES / "rejected")
    errors = [d for d in diags if d.level is Level.ERROR]
    for key_path, message in REJECTED.items():
        found = [d for d in errors if d.key_path == key_path and message in d.message]
        assert found, key_path
        assert "touch pw" in text[found[0].line - 1], (key_path, found[0].line)
        assert found[0].path.endswith(RECIPE)
    result = build(FIXTURES / "rejected", tmp_path / "site")
    assert not result.ok and not (tmp_path / "site").exists()  # a failed build writes nothing


def test_flag_messages_suggest_the_flag_they_start_with():
    _, diags = load_catalog(FIXTURES / "rejected")
    flag = next(d for d in diags if d.key_path == "model.base_args[0]" and d.level is Level.ERROR)
    assert "did you mean '--foo'?" in flag.hint


@needs_bash
def test_unvalidated_payloads_are_still_inert(tmp_path):
    """Synthesis called on the refused recipe without validation (a library user, a future bug in
    a check): every command and docker form still runs nothing and round-trips."""
    catalog, _ = load_catalog(FIXTURES / "rejected")
    ctx = synthesis_context(catalog)
    doc = next(d for d in catalog.recipes if d.hf_id == "acme/Hostile-7B")
    rendered = synthesize_recipe(ctx, doc.hf_id, doc.data, {doc.hf_id})
    texts = []
    for tree in rendered.trees:
        for res in tree.by_hardware:
            for r in (res.recommended, *res.alternatives):
                for p in r.processes:
                    assert split(p.command) == shell_words(p.argv)
                    assert split(without_header(p.docker_command)) == docker_words(p.docker_argv)
                texts += [_rendering_text(r, False), _rendering_text(r, True)]
    assert {t.variant for t in rendered.trees} >= {"default", "local", "other"} and len(texts) > 20
    touched, calls = paste("\n".join(texts), tmp_path)
    assert touched == set()
    assert len([argv for argv, _ in calls if argv[0] in ("vllm", "docker")]) >= len(texts)


# -- the invariant over whole builds ------------------------------------------------------------------


def test_round_trip_over_the_attacker_build(accepted_site):
    assert assert_round_trip(accepted_site) >= 40


def test_round_trip_over_our_recipes():
    assert assert_round_trip_of_root(ROOT) > 500


@pytest.mark.skipif(not COMPAT.is_dir(), reason="the public compat corpus is not present")
def test_round_trip_over_the_public_corpus():
    assert assert_round_trip_of_root(COMPAT) > 5000


# -- property: any string in any field that reaches a command --------------------------------------

HOSTILE = st.text(
    alphabet=st.sampled_from(list("ab/ -=$(){}`'\"\\;|&<>*?~#!\n\t%^[]") + ["é", "\u2028", "😀"]),
    min_size=1,
    max_size=12,
)
STRATEGIES = ("single_node_tp", "multi_node_tp", "pd_cluster", "kv_store_centralized_mooncake")


def _hostile_recipe(
    value: str, arg: str, positional: str, env_value: str, path: str, model: str, image: str
) -> dict:
    """Hostile strings in every field that reaches a command; model_id and docker_image too, which
    validate refuses, to show synthesis quotes them all the same."""
    return {
        "meta": {"title": "T", "tasks": ["text"]},
        "model": {
            "model_id": model,
            "docker_image": image,
            "base_args": [positional, "--served-model-name", arg, f"--chat-template={value}"],
            "base_env": {"E1": env_value, "A_CONFIG_PATH": path},
        },
        "features": {"f": {"description": "", "args": ["--tool-call-parser", value]}},
        "variants": {
            "default": {"precision": "bf16", "vram_minimum_gb": 16, "extra_env": {"E2": value}}
        },
        "compatible_strategies": list(STRATEGIES[:3]),
        "strategy_overrides": {
            "pd_cluster": {"prefill": {"vllm_args": ["--max-num-seqs", arg], "env": {"E3": value}}}
        },
    }


@pytest.fixture(scope="module")
def project_context():
    catalog, _ = load_catalog(ROOT)
    return synthesis_context(catalog)


@needs_bash
@settings(
    max_examples=40,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    value=HOSTILE,
    arg=HOSTILE.filter(lambda s: not s.startswith("-")),
    positional=HOSTILE.filter(lambda s: not s.startswith("-")),
    env_value=HOSTILE,
    path=HOSTILE,
    model=HOSTILE,
    image=HOSTILE,
)
def test_any_string_reaches_the_command_as_one_inert_word(
    project_context, tmp_path_factory, value, arg, positional, env_value, path, model, image
):
    recipe = _hostile_recipe(value, arg, positional, env_value, path, model, image)
    hw = project_context.hardware("h200")
    tmp = tmp_path_factory.mktemp("prop")
    script = []
    for sid in STRATEGIES:
        r = render_strategy(project_context, recipe, "default", sid, hw)
        for p in r.processes:
            assert split(p.command) == list(p.argv)
            assert split(without_header(p.docker_command)) == list(p.docker_argv)
            assert value in p.argv and arg in p.argv and positional in p.argv
        script += [_rendering_text(r, False), _rendering_text(r, True)]
    touched, calls = paste("\n".join(script), tmp)
    assert touched == set()
    vllm_calls = [argv for argv, _ in calls if argv[0] == "vllm"]
    assert vllm_calls and all(value in argv and arg in argv for argv in vllm_calls)


# -- the recipe-side grammars ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "image",
    [
        "vllm/vllm-openai:latest",
        "quay.io/ascend/vllm-ascend:qwen3.8-a5",
        "localhost:5000/a/b_c:1.0",
        "vllm/vllm-openai-rocm:nightly-cbe9c40f998f",
        "ghcr.io/org/img@sha256:" + "a" * 64,
        "[::1]:5000/x:y",
    ],
)
def test_image_references_that_docker_accepts(image):
    assert image_problem(image) is None


@pytest.mark.parametrize(
    "image",
    [
        "Vllm/Openai:latest",
        "vllm/vllm-openai:latest;id",
        "vllm/x:$(id)",
        "a b",
        "vllm/x:" + "t" * 129,
        "-v/x",
        "vllm/x@sha256:abc",
        "",
    ],
)
def test_image_references_that_are_refused(image):
    assert image_problem(image)[0] == "error"


def test_the_corpus_legacy_shapes_are_warnings_that_print_bare():
    assert image_problem("docker pull vllm/vllm-openai-rocm:nightly")[0] == "warning"
    level, _, hint = arg_problem("--max-model-len auto")
    assert level == "warning" and "'--max-model-len', 'auto'" in hint
    assert unit_line(("--max-model-len auto",)) == "--max-model-len auto"
    assert shell_words(["--max-model-len auto", "docker pull a/b:c", "x y"]) == [
        "--max-model-len",
        "auto",
        "docker",
        "pull",
        "a/b:c",
        "x y",
    ]


@pytest.mark.parametrize(
    "token, level",
    [
        ("--tensor-parallel-size", None),
        ("-O3", None),
        ("--x.y_z=1", None),
        ('--kv-transfer-config={"a": 1}', None),
        ("plain value", None),
        ("--a b;c", "error"),
        ("--é", "error"),
        ("-", "error"),
        ("--a\nb", "error"),
        ("value\x00", "error"),
    ],
)
def test_argument_grammar(token, level):
    found = arg_problem(token)
    assert (found[0] if found else None) == level


@pytest.mark.skipif(not COMPAT.is_dir(), reason="the public compat corpus is not present")
def test_the_public_corpus_still_validates_without_errors():
    _, diags = load_catalog(COMPAT)
    assert [d.format() for d in diags if d.level is Level.ERROR] == []
    shapes = [
        d
        for d in diags
        if "one list item" in d.message or "is a command, not an image" in d.message
    ]
    assert shapes  # its '--max-model-len auto' and 'docker pull ...' image, as warnings
