"""exits.run_cleanly: how a command ends on failures outside the recipes and on signals."""

from __future__ import annotations

import signal
from concurrent.futures.process import BrokenProcessPool

import pytest

from recipes_site.errors import OutputRefused, UnsafePath
from recipes_site.exits import run_cleanly


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


def test_sigint_interrupts_the_command_even_when_the_process_started_with_it_ignored():
    """A background job of a script (`recipes-site build &`, nohup) inherits an ignored SIGINT;
    during the command it raises KeyboardInterrupt (exit 130, after cleanup), and the caller's
    disposition is back afterwards."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        seen = []

        def interrupted(args):
            seen.append(signal.getsignal(signal.SIGINT))
            signal.raise_signal(signal.SIGINT)
            return 0

        assert run_cleanly(interrupted, None) == 130
        assert seen == [signal.default_int_handler]
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
