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


class Terminated(BaseException):
    """SIGTERM arrived (a BaseException like KeyboardInterrupt: no `except Exception` swallows it)."""


def _raise_terminated(signum, frame):
    raise Terminated()


def describe_os_error(exc: OSError) -> str:
    """`Read-only file system: /srv/site/.x` rather than `[Errno 30] Read-only file system: '...'`."""
    text = exc.strerror or str(exc)
    names = [n for n in (exc.filename, getattr(exc, "filename2", None)) if n]
    return f"{text}: {' -> '.join(str(n) for n in names)}" if names else text


def _loaded(*names: str) -> tuple:
    """The exception classes among `names` ("module:Class") whose module is loaded, for an except
    clause: an exception of a module the command never imported cannot have been raised.

    Why: every command ends here, and importing the build's modules just to name their exceptions
    cost `validate`, `command`, `--version` ... the process-pool stack (multiprocessing, logging,
    subprocess, socket) and the writer (orjson, ctypes, hashlib): ~60-110 M instructions."""
    found = []
    for name in names:
        module, _, cls = name.partition(":")
        exc_class = getattr(sys.modules.get(module), cls, None)
        if exc_class is not None:
            found.append(exc_class)
    return tuple(found)


def run_cleanly(func, args) -> int:
    """func(args), with SIGTERM handled and OS failures, refusals and signals reported in one line."""
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        return func(args)
    except BrokenPipeError:  # the caller decides what a vanished reader means
        raise
    except _loaded("recipes_site.outdir:OutputRefused", "recipes_site.write:UnsafePath") as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"error: {describe_os_error(exc)}", file=sys.stderr)
        return 1
    except _loaded("concurrent.futures.process:BrokenProcessPool"):
        print("error: a build worker process died (killed, or out of memory)", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nrecipes-site: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print("recipes-site: terminated", file=sys.stderr)
        return 143
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
