"""The documents' command examples are what the tool prints today (scripts/doc_examples.py):
a figure in the docs is generated, never typed, so it cannot drift from the code."""

from __future__ import annotations

import importlib.util
import sys

from recipes_site.catalog import PROJECT_ROOT

_spec = importlib.util.spec_from_file_location(
    "doc_examples", PROJECT_ROOT / "scripts" / "doc_examples.py"
)
assert _spec is not None and _spec.loader is not None
doc_examples = importlib.util.module_from_spec(_spec)
sys.modules["doc_examples"] = doc_examples  # dataclasses look their module up there
_spec.loader.exec_module(doc_examples)


def test_every_example_in_the_docs_prints_what_it_shows():
    paths = doc_examples.documents()
    count = sum(len(doc_examples.examples(p)) for p in paths)
    assert count >= 5  # the sizing guide's worked examples at least
    assert doc_examples.stale(paths) == [], "run: python scripts/doc_examples.py --update"


def test_a_changed_figure_is_caught_and_update_restores_it(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text(
        "Profiles:\n\n```console\n$ recipes-site hardware\nnot what it prints\n```\n"
        "\nTrimmed:\n\n```console\n$ recipes-site hardware\nwrong first line\n...\n```\n",
        encoding="utf-8",
    )
    assert len(doc_examples.stale([doc])) == 2
    doc.write_text(doc_examples.updated_text(doc), encoding="utf-8")
    assert doc_examples.stale([doc]) == []
    text = doc.read_text(encoding="utf-8")
    assert text.count("\n...\n") == 1 and "not what it prints" not in text
