"""The C allocator setting of a build's own process (posix.keep_freed_memory): freed memory is
reused instead of being handed back to the kernel and faulted in again; only the process's own
build and serve commands set it."""

import os
import subprocess
import sys

import pytest
from cli_kit import fresh_interpreter


def _glibc() -> bool:
    try:
        return bool(os.confstr("CS_GNU_LIBC_VERSION"))
    except (AttributeError, ValueError, OSError):
        return False


needs_glibc = pytest.mark.skipif(not _glibc(), reason="mallopt's parameters are glibc's")

# 20 rounds of 20 MB held in 100 KB objects, then freed: the shape of a build's pages and
# documents. Page faults are counted over a second pass, after the first has grown the heap.
_CHURN = (
    "import resource, sys\n"
    "from recipes_site.posix import keep_freed_memory\n"
    "if sys.argv[-1] == 'tuned':\n"
    "    print(keep_freed_memory())\n"
    "def churn():\n"
    "    for _ in range(20):\n"
    "        held = [b'x' * 100_000 for _ in range(200)]\n"
    "        del held\n"
    "churn()\n"
    "before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt\n"
    "churn()\n"
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)\n"
)


@needs_glibc
def test_freed_memory_is_reused_instead_of_faulted_in_again():
    def faults(mode: str) -> list[str]:
        return subprocess.run(
            [sys.executable, "-c", _CHURN, mode], capture_output=True, text=True, check=True
        ).stdout.split()

    plain, tuned = faults("plain"), faults("tuned")
    assert tuned[0] == "True"
    # glibc's defaults hand each freed 20 MB back and fault it in again (~5,000 pages a round)
    assert int(plain[0]) > 20_000
    assert int(tuned[1]) < int(plain[0]) // 20


def test_only_the_process_own_build_and_serve_tune_the_allocator():
    """main([...]) in a longer-lived process (these tests) leaves the allocator alone; the
    console script's (argv None) build and serve set it before they import or build anything."""
    probe = (
        "import sys; import recipes_site.cli as cli, recipes_site.posix as posix, recipes_site.serve as serve\n"
        "seen = []\n"
        "posix.keep_freed_memory = lambda: seen.append(len(seen)) or True\n"
        "cli._build = lambda args: 0\n"
        "serve.serve = lambda *a, **k: 0\n"
        "cli.main(['build', 'x']); cli.main(['serve', 'x'])\n"
        "print(len(seen))\n"
        "sys.argv = ['recipes-site', 'build', 'x']; cli.main()\n"
        "sys.argv = ['recipes-site', 'serve', 'x']; cli.main()\n"
        "print(len(seen))\n"
        "sys.argv = ['recipes-site', 'hardware', '--json']; cli.main()\n"
        "print(len(seen))"
    )
    lines = fresh_interpreter(probe)
    assert [lines[0], lines[1], lines[-1]] == ["0", "2", "2"]
