"""How the command ends when something outside the recipes goes wrong: one line, never a traceback.

People run `recipes-site build` in CI logs and root shells; a full disk, a read-only folder, a
refused `--out`, Ctrl-C or a `kill` are facts about their machine, not bugs of ours, so each
gets one `error: ...` line (or a short notice for signals) and a distinct exit status:
1 for errors, 130 for SIGINT, 143 for SIGTERM (the shell's 128 + signal number). SIGTERM is
turned into an exception so the same unwinding that cleans up after Ctrl-C (staging folder
removed, workers stopped, lock released) runs for it too.
"""

from __future__ import annotations

import signal
import sys
import threading
from concurrent.futures.process import BrokenProcessPool

from recipes_site.errors import OutputRefused, SettingRefused, UnsafePath


class Terminated(BaseException):
    """SIGTERM arrived (a BaseException like KeyboardInterrupt: no `except Exception` swallows it)."""


def _raise_terminated(signum, frame):
    raise Terminated()


def describe_os_error(exc: OSError) -> str:
    """`Read-only file system: /srv/site/.x` rather than `[Errno 30] Read-only file system: '...'`."""
    text = exc.strerror or str(exc)
    names = [n for n in (exc.filename, getattr(exc, "filename2", None)) if n]
    return f"{text}: {' -> '.join(str(n) for n in names)}" if names else text


def run_cleanly(func, args) -> int:
    """func(args), with SIGINT and SIGTERM handled and OS failures, refusals and signals reported
    in one line.

    SIGINT raises KeyboardInterrupt for the call even when the process started with it ignored:
    a shell script's background job (`recipes-site build &`) and nohup inherit an ignored SIGINT,
    and someone who later runs `kill -INT` on it expects the same cleanup as after Ctrl-C."""
    previous = (
        {
            signal.SIGTERM: signal.signal(signal.SIGTERM, _raise_terminated),
            signal.SIGINT: signal.signal(signal.SIGINT, signal.default_int_handler),
        }
        if threading.current_thread() is threading.main_thread()
        else {}
    )
    try:
        return func(args)
    except BrokenPipeError:  # the caller decides what a vanished reader means
        raise
    except (OutputRefused, SettingRefused, UnsafePath) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"error: {describe_os_error(exc)}", file=sys.stderr)
        return 1
    except BrokenProcessPool:
        print("error: a build worker process died (killed, or out of memory)", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nrecipes-site: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print("recipes-site: terminated", file=sys.stderr)
        return 143
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
