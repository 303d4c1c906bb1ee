"""suggest.NameIndex: normalise is the character loop it replaced, and close() keeps its answers
per index without letting one question's answer stand for another's."""

from __future__ import annotations

import random

from recipes_site import suggest
from recipes_site.suggest import NameIndex, normalise


def loop_normalise(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isascii() and ch.isalnum())


def test_normalise_is_the_character_loop():
    rnd = random.Random(11)
    alphabet = [chr(i) for i in range(0x250)] + [
        "\u0130",
        "\u212a",
        "\u017f",
        "ß",
        "\ufb03",
        "Ⅻ",
        "٣",
        "\U0001d400",
        "-",
        "_",
        "/",
    ]
    for text in ["Meta-Llama/Llama_3.3_70B", "", "İstanbul", "\u212aelvin", "ſ", "x\u0307"]:
        assert normalise(text) == loop_normalise(text)
    for _ in range(20000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 14)))
        assert normalise(text) == loop_normalise(text), repr(text)


def test_close_answers_are_kept_per_question(monkeypatch):
    index = NameIndex(["acme/model-7b-instruct", "acme/model-7b-instrucx", "zeta/other-1b"])
    asked = []
    original = NameIndex._close

    def counting(self, wanted, cutoff, limit):
        asked.append((wanted, cutoff, limit))
        return original(self, wanted, cutoff, limit)

    monkeypatch.setattr(NameIndex, "_close", counting)
    first = index.close("acme/model-7b-instruc")
    again = index.close("acme/model-7b-instruc")
    assert first == again == ["acme/model-7b-instruct"] and len(asked) == 1
    again.append("mutated")  # a caller's list is its own
    assert index.close("acme/model-7b-instruc") == ["acme/model-7b-instruct"]
    # another reference, cutoff or limit is another question
    assert index.close("acme/model-7b-instruc", limit=2) == [
        "acme/model-7b-instruct",
        "acme/model-7b-instrucx",
    ]
    assert index.close("acme/model-7b-instruc", cutoff=0.99) == []
    assert index.close("zeta/other-1") == ["zeta/other-1b"]
    assert len(asked) == 4
    # another index answers from its own ids
    assert NameIndex(["zeta/other-1c"]).close("zeta/other-1") == ["zeta/other-1c"]


def test_close_equals_a_fresh_answer_for_every_reference_of_a_catalog():
    rnd = random.Random(2)
    ids = [f"org{k % 7}/model-{k}-{rnd.choice(['it', 'instruct', 'base'])}" for k in range(300)]
    index = NameIndex(ids)
    refs = [i[:-1] for i in ids[:80]] + [i + "x" for i in ids[40:120]] + ["nothing/like-it"] * 3
    rnd.shuffle(refs)
    for ref in refs + refs:
        assert (
            index.close(ref)
            == NameIndex(ids)._close(ref, 0.92, 1)
            == suggest.NameIndex(ids).close(ref)
        )
