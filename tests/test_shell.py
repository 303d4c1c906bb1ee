"""Shell quoting and the layout of the copy-pasteable `vllm serve` command."""

from __future__ import annotations

import pytest

from recipes_site.synthesis.shell import (
    Placeholder,
    continued,
    env_word,
    expanded_variables,
    export_lines,
    heredoc,
    mount_word,
    quote,
    serve_command,
    unit_line,
    unit_lines,
    units_of,
)


@pytest.mark.parametrize(
    "value, quoted",
    [
        ('{"a":1}', "'{\"a\":1}'"),
        ("it's", "'it'\\''s'"),
        (Placeholder("$HEAD_IP"), "$HEAD_IP"),  # ours: left for the shell to expand
        (Placeholder("$VLLM_INSTANCE_1"), "$VLLM_INSTANCE_1"),
        ("$HEAD_IP", "'$HEAD_IP'"),  # a recipe string that looks the same stays literal
        ("0.92", "0.92"),
        ("deepseek-ai/DeepSeek-V3.2", "deepseek-ai/DeepSeek-V3.2"),
        ("a=b,c:d@e+f%g", "a=b,c:d@e+f%g"),
        ("expandable_segments:True", "expandable_segments:True"),
        ("hello world", "'hello world'"),
        ("$lower", "'$lower'"),  # not an upper-case variable name
        ("$HOME/x", "'$HOME/x'"),  # a variable plus more text is quoted
        ("${HEAD_IP}", "'${HEAD_IP}'"),
        ("a*b", "'a*b'"),
        ("a;b", "'a;b'"),
    ],
)
def test_quote(value, quoted):
    assert quote(value) == quoted


@pytest.mark.parametrize("value", ["hermes\n", "$HEAD_IP\n"])
def test_quote_value_with_trailing_newline(value):
    assert quote(value) == "'" + value + "'"


def test_units_of_tells_a_flag_by_its_leading_dash_alone():
    """units_of reads `tok[:1] == "-"` for speed: the same as tok.startswith("-") for every string
    (empty ones and Placeholders included)."""
    tokens = ["", "-", "--", "a-", " -x", "-1", Placeholder("$HEAD_IP"), "--a", "", "x", "\u2013x"]
    for first in tokens:
        for second in tokens:
            pair = [first, second]
            flags = [t for t in pair if t.startswith("-")]
            units = units_of(pair)
            assert [u[0] for u in units if u[0].startswith("-")] == flags
            assert sum(map(len, units)) == 2 and [t for u in units for t in u] == pair


def test_unit_lines_are_each_units_line():
    units = [
        ("--a", "1"),
        ("--a", Placeholder("$HEAD_IP")),
        ("--a", "$HEAD_IP"),
        ("pos",),
        ("--x=$Y",),
        (Placeholder("$HEAD_IP"),),
        ("$HEAD_IP",),
        ("--b", "two words"),
    ]
    assert unit_lines(units) == tuple(unit_line(u) for u in units) and unit_lines([]) == ()
    assert unit_lines(units)[1:3] == ("--a $HEAD_IP", "--a '$HEAD_IP'")


def test_unit_lines_quote_recipe_strings_and_leave_placeholders_bare():
    units = [
        ("--a", "1"),
        ("--a", "$HEAD_IP"),
        ("pos",),
        ("--x=$Y",),
        ("$HEAD_IP",),
        ("--b", "two words"),
    ]
    assert unit_lines(units) == (
        "--a 1",
        "--a '$HEAD_IP'",
        "pos",
        "--x='$Y'",
        "'$HEAD_IP'",
        "--b 'two words'",
    )
    ours = [("--a", Placeholder("$HEAD_IP")), (Placeholder("$HEAD_IP"),)]
    assert unit_lines(ours) == ("--a $HEAD_IP", "$HEAD_IP") and unit_lines([]) == ()


def test_units_of():
    tokens = ["--a", "1", "--b", "--c", "x", "pos", "--d", "--e", "-1", "--f"]
    assert units_of(tokens) == [
        ("--a", "1"),
        ("--b",),
        ("--c", "x"),
        ("pos",),
        ("--d",),
        ("--e",),
        ("-1",),
        ("--f",),
    ]


def test_unit_line_quotes_only_values():
    assert unit_line(("--kv-transfer-config", '{"k":"v"}')) == '--kv-transfer-config \'{"k":"v"}\''
    assert unit_line(("--x=a b",)) == "--x='a b'"  # a flag's inline value is quoted on its own
    assert (
        unit_line(("--max-model-len auto",)) == "--max-model-len auto"
    )  # the corpus's legacy one-item form
    assert unit_line(("stray positional",)) == "'stray positional'"
    assert unit_line(("--a;b",)) == "'--a;b'"


def test_serve_command_layout():
    units = [
        ("--trust-remote-code",),
        ("--tensor-parallel-size", "4"),
        ("--compilation-config", '{"cudagraph_mode":"PIECEWISE"}'),
        ("--master-addr", Placeholder("$HEAD_IP")),
    ]
    assert serve_command("MiniMaxAI/MiniMax-M2.5", units) == (
        "vllm serve MiniMaxAI/MiniMax-M2.5 \\\n"
        "  --trust-remote-code \\\n"
        "  --tensor-parallel-size 4 \\\n"
        '  --compilation-config \'{"cudagraph_mode":"PIECEWISE"}\' \\\n'
        "  --master-addr $HEAD_IP"
    )


def test_serve_command_without_args():
    assert serve_command("acme/M", []) == "vllm serve acme/M"


def test_continued():
    assert continued(["a", "b", "c"]) == "a \\\n  b \\\n  c"
    assert continued(["only"]) == "only"


# -- env values: one variable expands, anything else is literal (issue 24 point 6) ----------------


@pytest.mark.parametrize(
    "value, word",
    [
        ("$IFACE_NAME", "$IFACE_NAME"),  # a placeholder for the user, as the reference prints it
        ("${IB_IF}", "${IB_IF}"),
        ("$iface", "$iface"),
        (Placeholder("$HEAD_IP"), "$HEAD_IP"),
        ("$(touch pw)", "'$(touch pw)'"),
        ("`touch pw`", "'`touch pw`'"),
        ("${X:-$(touch pw)}", "'${X:-$(touch pw)}'"),
        ("${IB_IF$(touch pw)}", "'${IB_IF$(touch pw)}'"),
        ("$A$B", "'$A$B'"),
        ("$HOME/x", "'$HOME/x'"),
        ("${A}x", "'${A}x'"),
        ("$1", "'$1'"),
        ("$$", "'$$'"),
        ("$((1+1))", "'$((1+1))'"),
        ("${#A}", "'${#A}'"),
        ("$A\n", "'$A\n'"),
        (" $A", "' $A'"),
        ("eth0", "eth0"),
        (True, "true"),
    ],
)
def test_an_env_value_expands_only_when_it_is_one_variable(value, word):
    assert env_word("NCCL_SOCKET_IFNAME", value) == f"NCCL_SOCKET_IFNAME={word}"
    assert export_lines({"NCCL_SOCKET_IFNAME": value}) == f"export NCCL_SOCKET_IFNAME={word}\n"


def test_a_recipe_argument_that_looks_like_a_variable_stays_literal():
    assert quote("$IFACE_NAME") == "'$IFACE_NAME'" and quote("${IB_IF}") == "'${IB_IF}'"


def test_a_config_path_mount_expands_like_its_env_value():
    assert mount_word("$MY_CONFIG") == "$MY_CONFIG:$MY_CONFIG:ro"
    assert mount_word("/a b") == "'/a b':'/a b':ro"


@pytest.mark.parametrize(
    "text, names",
    [
        (
            "export A=$IFACE_NAME\nvllm serve m \\\n  --master-addr $HEAD_IP",
            ("IFACE_NAME", "HEAD_IP"),
        ),
        ("docker run -e X=${IB_IF} -e Y='$NOT' img", ("IB_IF",)),
        ("vllm serve m \\\n  --a '$(x) $NOT'\\'' $NOT2'", ()),
        ("# a comment names $NOT, it's fine\nrun $YES", ("YES",)),
        ("run a#$NOT_A_COMMENT", ("NOT_A_COMMENT",)),  # `#` inside a word starts no comment
        ("run \\$ESCAPED ${WITH_DEFAULT:-x}", ()),
        ("cat <<'EOF'\n$QUOTED\nEOF\nrun $AFTER", ("AFTER",)),
    ],
)
def test_expanded_variables(text, names):
    assert expanded_variables(text) == names


def test_expanded_variables_of_a_heredoc():
    text = heredoc(
        "$MOONCAKE_CONFIG_PATH",
        {"master": "$MOONCAKE_MASTER_IP:50051", "x": "it's $(touch pw) `x` ${Y}"},
        "the note names $NOTE_VAR",
    )
    assert expanded_variables(text) == ("MOONCAKE_CONFIG_PATH", "MOONCAKE_MASTER_IP")
