"""suggest.NameIndex: ids meet whatever their case and separators; close() finds references a
typo or two away, and nothing else."""

from __future__ import annotations

from recipes_site.suggest import NameIndex, normalise


def test_normalise_keeps_ascii_letters_and_digits_lowered():
    assert normalise("Meta-Llama/Llama_3.3_70B") == "metallamallama3370b"
    assert normalise("") == ""
    assert normalise("é-ß_Ⅻ٣") == ""  # letters and digits outside ASCII do not count
    assert normalise("\u212aelvin") == "kelvin"  # the Kelvin sign lowers to an ASCII k


def test_suggest_meets_ids_across_case_and_separators():
    index = NameIndex(["meta-llama/Llama-3.3-70B-Instruct", "Qwen/Qwen3-8B", "h200"])
    assert index.suggest("Meta-Llama/Llama_3.3_70B_Instruct") == [
        "meta-llama/Llama-3.3-70B-Instruct"
    ]
    assert index.suggest("llama-3.3-70b-instruct") == ["meta-llama/Llama-3.3-70B-Instruct"]
    assert index.suggest("qwen/qwen3-8") == ["Qwen/Qwen3-8B"]
    assert index.suggest("h20") == ["h200"]
    assert index.suggest("nothing/like-it") == []


def test_close_finds_ids_a_typo_away():
    index = NameIndex(["acme/model-7b-instruct", "acme/model-7b-instrucx", "zeta/other-1b"])
    assert index.close("acme/model-7b-instruc") == ["acme/model-7b-instruct"]
    assert index.close("acme/model-7b-instruc", limit=2) == [
        "acme/model-7b-instruct",
        "acme/model-7b-instrucx",
    ]
    assert index.close("acme/model-7b-instruc", cutoff=0.99) == []
    assert index.close("zeta/other-1") == ["zeta/other-1b"]
    assert index.close("zeta/otehr-1b") == ["zeta/other-1b"]  # a swap
    assert index.close("zeta/something-else") == []
    assert NameIndex(["zeta/other-1c"]).close("zeta/other-1") == ["zeta/other-1c"]
