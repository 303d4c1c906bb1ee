"""exits.run_cleanly: how a command ends on failures outside the recipes, and what it imports."""

from __future__ import annotations

import sys
from concurrent.futures.process import BrokenProcessPool

import pytest
from cli_kit import fresh_interpreter

from recipes_site.exits import _loaded, run_cleanly
from recipes_site.outdir import OutputRefused
from recipes_site.write import UnsafePath


def _raising(exc: BaseException):
    def func(args):
        raise exc

    return func


@pytest.mark.parametrize(
    "exc, line",
    [
        (
            OutputRefused("--out /srv is not a build's output"),
            "error: --out /srv is not a build's output",
        ),
        (UnsafePath("../x escapes the output folder"), "error: ../x escapes the output folder"),
        (
            BrokenProcessPool("gone"),
            "error: a build worker process died (killed, or out of memory)",
        ),
        (
            PermissionError(13, "Permission denied", "/srv/site"),
            "error: Permission denied: /srv/site",
        ),
    ],
)
def test_failures_outside_the_recipes_end_in_one_error_line(exc, line, capsys):
    assert run_cleanly(_raising(exc), None) == 1
    assert capsys.readouterr().err.strip() == line


def test_an_exception_is_named_only_when_its_module_is_loaded(monkeypatch):
    """An except clause over _loaded(...) matches nothing for a module that is not loaded (an
    empty tuple), and the class itself once it is: run_cleanly never imports a module to name one."""
    assert _loaded(
        "recipes_site.write:UnsafePath", "concurrent.futures.process:BrokenProcessPool"
    ) == (UnsafePath, BrokenProcessPool)
    monkeypatch.delitem(sys.modules, "recipes_site.write")
    assert _loaded("recipes_site.write:UnsafePath", "no.such.module:Error") == ()
    with pytest.raises(ValueError):  # not swallowed: nothing is named for it
        try:
            raise ValueError("x")
        except _loaded("recipes_site.write:UnsafePath"):
            pass


def test_commands_that_write_nothing_do_not_import_the_writer_or_the_process_pool():
    """`--version`, `hardware` and `validate` end through run_cleanly without importing the build's
    writer (orjson, ctypes, hashlib) or the process-pool stack (multiprocessing, logging, socket)."""
    probe = (
        "import sys; from recipes_site.cli import main\n"
        "for argv in (['--version'], ['hardware'], ['validate', '--help']):\n"
        "    try:\n        main(argv)\n    except SystemExit:\n        pass\n"
        "print(sorted(m for m in ('concurrent.futures.process', 'multiprocessing', 'recipes_site.write',"
        " 'recipes_site.outdir') if m in sys.modules))"
    )
    assert fresh_interpreter(probe)[-1] == "[]"
