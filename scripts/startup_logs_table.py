"""Print the replay of the startup-log corpus: entry, predicted and logged available KV cache
memory per GPU (GiB) and the relative error (tests/test_startup_logs_replay.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import test_startup_logs_replay as replay  # noqa: E402

if __name__ == "__main__":
    print(replay.table(replay.replay_corpus()))
