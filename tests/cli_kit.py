"""Running `recipes-site` from tests.

`run` calls `recipes_site.cli.main` in this process and reports what a subprocess would (exit code,
stdout, stderr): an interpreter start and the imports cost more than most commands, and the suite
makes dozens of such calls. `run_module` is the real `python -m recipes_site`, for the tests of that
entry point itself."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout

from recipes_site.catalog import PROJECT_ROOT
from recipes_site.cli import main


def run(*args, cwd=PROJECT_ROOT) -> subprocess.CompletedProcess:
    out, err, before = io.StringIO(), io.StringIO(), os.getcwd()
    os.chdir(cwd)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main([str(a) for a in args])
            except SystemExit as exc:  # argparse: usage errors, --help, --version
                code = exc.code
    finally:
        os.chdir(before)
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


def run_module(*args, cwd=PROJECT_ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "recipes_site", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
    )


def fresh_interpreter(code: str) -> list[str]:
    """Stdout lines of `code` run by a new interpreter: what a command imports at start-up can
    only be seen from a process that has imported nothing yet."""
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
