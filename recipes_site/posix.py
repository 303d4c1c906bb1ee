"""The few operating-system calls the writer relies on for crash safety, with portable fallbacks.

Python's standard library has no atomic directory exchange and no "die with my parent", so these
two Linux system calls are reached through ctypes; everything else (flock) is in the standard
library. Each function says what happens where the call is unavailable (another OS, an old
kernel, a file system without the feature), so the callers need no platform checks.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import sys
from contextlib import contextmanager
from pathlib import Path

# Linux include/uapi/linux/fcntl.h: `#define AT_FDCWD -100`.
AT_FDCWD = -100
# Linux include/uapi/linux/fs.h: `#define RENAME_EXCHANGE (1 << 1)` (renameat2(2), Linux 3.15+).
RENAME_EXCHANGE = 1 << 1
# Linux include/uapi/linux/prctl.h: `#define PR_SET_PDEATHSIG 1` (prctl(2)).
PR_SET_PDEATHSIG = 1


def _libc():
    """The C library with errno capture, or None where ctypes cannot load one.

    CDLL(None) is dlopen(NULL): the interpreter's own symbols, libc's included. (find_library
    would run ldconfig in a subprocess on every start of the command.)"""
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


_LIBC = _libc() if sys.platform.startswith("linux") else None


def exchange(a: Path, b: Path) -> bool:
    """Atomically swap two existing paths (renameat2 with RENAME_EXCHANGE); True when done.

    This is what lets a rebuild replace a live site without a moment in which the output path
    is missing or half-written: before the call the path names the old tree, after it the new
    one, and the old tree sits where the staging folder was. False means the system cannot
    exchange (not Linux, glibc < 2.28, a file system without the flag); the caller falls back.
    """
    call = getattr(_LIBC, "renameat2", None)
    if call is None:
        return False
    call.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if call(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(a), None, str(b))


def die_with_parent(parent_pid: int) -> None:
    """Ask the kernel to SIGKILL this process when its parent dies (prctl PR_SET_PDEATHSIG).

    Build workers are forked children; a parent killed by SIGKILL cannot clean up, and without
    this the workers would live on, orphaned. If the parent died before the call took effect
    the process exits at once. A no-op off Linux.
    """
    prctl = getattr(_LIBC, "prctl", None)
    if prctl is None:
        return
    import signal

    prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent_pid:
        os._exit(1)


@contextmanager
def exclusive_lock(path: Path, waiting_message: str):
    """Hold an exclusive flock on `path` (created when missing) for the block; removed after.

    A second holder waits (printing `waiting_message` once to stderr) instead of failing, so two
    builds into one folder simply run one after the other. The lock file is deleted on release
    so no litter stays next to the output; a waiter that then wins the lock on the deleted file
    notices (its descriptor no longer matches the path) and locks the new file instead. The
    kernel drops the lock when the holder dies, whatever the signal. A symlink at `path` is
    refused (O_NOFOLLOW), so a planted link cannot make us create or truncate another file.
    """
    announced = False
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if not announced:
                    print(waiting_message, file=sys.stderr, flush=True)
                    announced = True
                fcntl.flock(fd, fcntl.LOCK_EX)
            held, now = os.fstat(fd), os.stat(path, follow_symlinks=False)
            if (held.st_dev, held.st_ino) == (now.st_dev, now.st_ino):
                break
        except FileNotFoundError:
            pass
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
    try:
        yield
    finally:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        os.close(fd)
