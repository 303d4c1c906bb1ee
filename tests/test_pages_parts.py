"""Small page parts (render/pages.py) against their plain definitions: hardware labels and the
strategy notes, whose first sentences are kept per process (`_first_sentence`)."""
from __future__ import annotations

from types import SimpleNamespace

from recipes_site.jsish import mapping
from recipes_site.render import pages


def test_hardware_labels_add_the_gpu_count_only_where_names_are_shared():
    profiles = {"h100": {"display_name": "H100", "gpu_count": 8}, "h100x4": {"display_name": "H100", "gpu_count": 4},
                "mi300": {"display_name": "MI300X"}, "b200": {}, "x": {"display_name": 7}, "y": {"display_name": "7"},
                "z": {"display_name": "H100"}}
    assert pages.hw_labels(profiles) == {"h100": "H100 (8×)", "h100x4": "H100 (4×)", "mi300": "MI300X", "b200": "b200",
                                         "x": "7 (1×)", "y": "7 (1×)", "z": "H100 (1×)"}
    assert list(pages.hw_labels(profiles)) == list(profiles)


def _notes_plainly(strategies: dict, used: set) -> dict:
    out = {}
    for sid, spec in strategies.items():
        desc = " ".join(str(mapping(spec).get("description") or "").split())
        first = desc.split(". ")[0].rstrip(".")
        if sid in used and first:
            out[sid] = first + "."
    return out


def test_strategy_notes_equal_their_plain_definition():
    descriptions = ["One replica.  Scales out.", "Ends with a dot.", "...", ".", "", None, 3.5, ["a. b"], "no dot",
                    "  spaced\n out . x", "A. B. C", "Dots... then. more", "é. ü"]
    strategies = {f"s{i}": {"description": d} for i, d in enumerate(descriptions)} | {"bare": {}, "odd": "text"}
    docs = [{"renderings": [{"strategy": sid} for sid in list(strategies)[::2]]},
            {"renderings": [{"strategy": "s1"}, {"strategy": "odd"}, {"strategy": "missing"}]}]
    used = {r["strategy"] for d in docs for r in d["renderings"]}
    ctx = SimpleNamespace(strategies=strategies)
    for _ in range(2):   # the second time from the memo
        assert pages.strategy_notes(ctx, docs) == _notes_plainly(strategies, used)
    assert pages.strategy_notes(ctx, docs)["s0"] == "One replica."
    assert pages._first_sentence.cache_info().hits > 0
