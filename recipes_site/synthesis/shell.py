"""Turning argument units into the copy-pasteable multi-line shell strings.

These strings are pasted into root shells, and every recipe string in them comes from a
stranger's pull request. So every word we print goes through one of the functions below, each
of which leaves a word bare only when the shell reads it back unchanged, and otherwise wraps it
in single quotes. The contract (tests/test_security_shell.py holds every build to it):

    shlex.split(command) == shell_words(argv)     for every process and its docker form

"Quote only where needed" keeps the reference's commands byte-identical (its valid recipes only
ever need quotes where it already puts them, REFERENCE-BEHAVIOUR.md section 3.7). Two kinds of
`$NAME` stay expandable: a `Placeholder` (a `$NAME` we or the strategy/kv-store vocabulary
wrote, anywhere in a command), and a recipe *env value* that is one variable and nothing else
(`$IFACE_NAME`, `${IB_IF}`: `ENV_PLACEHOLDER`), which the reference prints bare too: the recipe
means "the interface the user names", and NCCL must not receive the text `$IB_IF`. Expanding
one name runs nothing; anything more (`$(...)`, a backquote, `${X:-$(cmd)}`, two names, a name
and text) stays quoted. A recipe's `$NAME` in an argument stays literal, as before.
`expanded_variables` lists the names a pasted text expands, for the page and the API.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from recipes_site.jsish import js_str

SAFE_CHARS = r"A-Za-z0-9_./=:@,+%-"
_SAFE = re.compile(rf"[{SAFE_CHARS}]+")  # the reference's bare-value set (section 3.7)
FLAG_NAME = re.compile(r"--?[A-Za-z0-9][A-Za-z0-9._-]*")  # what vLLM's argparse reads as an option
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # POSIX shell variable names
PLACEHOLDER = re.compile(r"\$[A-Z_][A-Z0-9_]*")
# an env value that is one shell variable and nothing else: `$NAME` or `${NAME}`
ENV_PLACEHOLDER = re.compile(r"\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\})")
# Two shapes of the public corpus that the reference prints bare and that split into several
# safe words (validate warns about both): "--max-model-len auto" as one list item, and a
# docker_image written as "docker pull <image>".
LEGACY_FLAG = re.compile(rf"(--?[A-Za-z0-9][A-Za-z0-9._-]*)((?: [{SAFE_CHARS}]+)+)")
LEGACY_IMAGE = re.compile(rf"docker pull [{SAFE_CHARS}]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")

Unit = tuple  # ("flag", value) | ("flag",) | (positional,)


class Placeholder(str):
    """A `$NAME` whose provenance is ours: written by synthesis ($HEAD_IP, $PREFILL_NODE_1, ...)
    or by the trusted strategy / kv-store vocabulary ($IFACE_NAME, $MOONCAKE_CONFIG_PATH).
    Printed bare so the user's shell expands it; a recipe string is never one, whatever it
    looks like, so a recipe's `$HOME` reaches vLLM literally."""

    def __new__(cls, value: str):
        if not PLACEHOLDER.fullmatch(value):
            raise ValueError(f"not a placeholder: {value!r}")
        return super().__new__(cls, value)


def trusted(value: Any) -> Any:
    """A value from the trusted vocabulary (strategies/, kv_store/): a `$NAME` becomes a Placeholder."""
    if isinstance(value, str) and value.startswith("$") and PLACEHOLDER.fullmatch(value):
        return Placeholder(value)
    return value


def trusted_env(env: dict) -> dict:
    return {k: trusted(v) for k, v in env.items()}


def trusted_args(tokens: list) -> list:
    return [trusted(t) for t in tokens]


def text(value: Any) -> str:
    """A scalar as the reference prints it (`true`, `8`), keeping a Placeholder one."""
    return value if isinstance(value, Placeholder) else js_str(value)


def quote(value: str) -> str:
    """One shell word that the shell reads back as `value` (a Placeholder: as its variable)."""
    if isinstance(value, Placeholder):
        return value
    return _quote_str(value)


# Memo: the same model ids and env values are quoted for thousands of processes.
@lru_cache(maxsize=4096)
def _quote_str(value: str) -> str:
    if _SAFE.fullmatch(value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def flag_word(token: str) -> str:
    """A flag token: bare when it is a flag name (`--name`, `--name=<safe>`), the value of
    `--name=value` quoted on its own, anything else quoted whole."""
    if FLAG_NAME.fullmatch(token) or LEGACY_FLAG.fullmatch(token):
        return token
    name, eq, value = token.partition("=")
    if eq and FLAG_NAME.fullmatch(name):
        return name + "=" + quote(value)
    return quote(token)


def token_word(token: str) -> str:
    return flag_word(token) if token.startswith("-") else quote(token)


# Memo: every docker head of a corpus takes its image word from a few dozen images; `typed`: a
# Placeholder and an equal recipe string print differently.
@lru_cache(maxsize=1024, typed=True)
def image_word(image: str | None) -> str:
    if image is None:
        return "undefined"  # the reference's spelling of a missing image (no valid recipe has one)
    return image if LEGACY_IMAGE.fullmatch(image) else quote(image)


def env_value_word(value: Any) -> str:
    """An env value as one shell word: bare when it is one variable (`ENV_PLACEHOLDER`) or a
    Placeholder, so the user's shell expands it; quoted otherwise."""
    if isinstance(value, str) and ENV_PLACEHOLDER.fullmatch(value):
        return value
    return quote(text(value))


def env_word(name: str, value: Any) -> str:
    """`NAME=value` for `docker -e` and `export`: the name bare (validate holds it to the env-name
    grammar), the value quoted on its own so a placeholder stays expandable."""
    if ENV_NAME.fullmatch(name):
        return f"{name}={env_value_word(value)}"
    return quote(f"{name}={text(value)}")


def mount_word(path: Any) -> str:
    """`<path>:<path>:ro` for `docker -v` of an env value (`*_CONFIG_PATH`), each path one word
    (a placeholder bare, as in its `-e`)."""
    p = env_value_word(path)
    return f"{p}:{p}:ro"


def export_lines(env: dict) -> str:
    """The `export NAME=value` lines that precede a bare `vllm serve` command."""
    return "".join(f"export {env_word(k, v)}\n" for k, v in env.items())


# What the shell acts on in the commands we print, in the order the scan meets it: single quotes
# (nothing inside expands), a backslash escape, a variable (`$NAME`, `${NAME}`; `${NAME:-x}` has a
# default, so the user need not set it), a comment, a here-document operator.
_SCAN = re.compile(
    r"""'[^']*'?
    | \\.
    | \$(?P<name>[A-Za-z_][A-Za-z0-9_]*)
    | \$\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)\}
    | (?:^|(?<=[\s;&|]))\#[^\n]*
    | <<-?[ \t]*(?P<quote>['"]?)(?P<delim>[A-Za-z_][A-Za-z0-9_]*)(?P=quote)""",
    re.X | re.S | re.M,
)
_HEREDOC_SCAN = re.compile(
    r"\\.|\$(?P<name>[A-Za-z_][A-Za-z0-9_]*)|\$\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)\}", re.S
)


def expanded_variables(command: str) -> tuple[str, ...]:
    """The variables (`$NAME`) that pasting `command` makes the shell expand, in first-use order:
    what the user must set first. For the text we print (bare words, single quotes, `#` comment
    lines, `<<EOF` here-documents); a double quote is not a quote here (we never print one
    outside single quotes or a here-document)."""
    names: dict[str, None] = {}
    pos = 0
    while (m := _SCAN.search(command, pos)) is not None:
        pos = m.end()
        if m["name"] or m["braced"]:
            names[m["name"] or m["braced"]] = None
        elif m["delim"]:  # the body: from the next line to a line that is the delimiter
            start = command.find("\n", pos)
            if start < 0:
                break
            end = re.compile(rf"^{m['delim']}$", re.M).search(command, start + 1)
            body_end = end.start() if end else len(command)
            if not m["quote"]:
                for v in _HEREDOC_SCAN.finditer(command, start + 1, body_end):
                    if v["name"] or v["braced"]:
                        names[v["name"] or v["braced"]] = None
            # the rest of the operator's line is shell text; the body is skipped after it
            rest = command[pos:start]
            names.update(dict.fromkeys(expanded_variables(rest)))
            pos = end.end() if end else len(command)
    return tuple(names)


def comment_text(value: str) -> str:
    """Text for a `# ...` comment line: control characters escaped so it cannot end the comment."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), value)


def shell_words(argv) -> list[str]:
    """The argv the shell reads from our command text: equal to `argv`, except that the two
    legacy multi-word shapes the reference prints bare split into their words."""
    out: list[str] = []
    for tok in argv:
        if isinstance(tok, str) and (LEGACY_FLAG.fullmatch(tok) or LEGACY_IMAGE.fullmatch(tok)):
            out += tok.split(" ")
        else:
            out.append(tok)
    return out


def units_of(tokens: list[str]) -> list[Unit]:
    """Group tokens as vLLM reads them: a flag takes the next token unless that is a flag too."""
    units: list[Unit] = []
    flag = None  # a flag still waiting for its value
    for tok in tokens:
        if tok.startswith("-"):
            if flag is not None:
                units.append((flag,))
            flag = tok
        elif flag is not None:
            units.append((flag, tok))
            flag = None
        else:
            units.append((tok,))
    if flag is not None:
        units.append((flag,))
    return units


def unit_line(unit: Unit) -> str:
    """One argument line: a flag and its value, or a lone token, as shell words."""
    # Only the last token can be a Placeholder (a flag starts with `-`), and a Placeholder prints
    # bare where an equal recipe string is quoted: only units of plain strings share the memo.
    return _plain_unit_line(unit) if type(unit[-1]) is str else _unit_line(unit)


def _unit_line(unit: Unit) -> str:
    if len(unit) == 2:
        return f"{flag_word(unit[0])} {quote(unit[1])}"
    return token_word(unit[0])


# Memo: the argument lists of a corpus and its feature choices share a few hundred lines.
_plain_unit_line = lru_cache(maxsize=4096)(_unit_line)


def unit_lines(units) -> tuple:
    """`unit_line` of each unit, as a tuple."""
    return tuple(unit_line(u) for u in units)


def continued(lines: list[str], indent: str = "  ") -> str:
    """First line as is, the rest indented, joined with ` \\` continuations."""
    return (" \\\n" + indent).join(lines)


def serve_head(model: str) -> str:
    return f"vllm serve {quote(model)}"


def serve_command(model: str, units: list[Unit]) -> str:
    return serve_head(model) + continuation(unit_lines(units))


def continuation(lines) -> str:
    """Lines appended to a command (`continued`'s first line), each after ` \\`, a newline and
    two spaces; "" for none."""
    lines = tuple(lines)
    return SEP + SEP.join(lines) if lines else ""


SEP = " \\\n  "  # between the lines of a rendered command; the page splits at it too


_HEREDOC_SPECIAL = re.compile(r"\\|`|\$(?![A-Z_][A-Z0-9_]*)")


def heredoc(path_var: str, config: dict, note: str | None) -> str:
    """`cat > $PATH_VAR <<EOF` writing `config` as JSON, after the note as `#` comments.

    The delimiter is unquoted on purpose: the vocabulary's `$MOONCAKE_MASTER_IP`-style names in
    the config must expand (the reference quotes it, so they never did: a documented deviation).
    Everything else the shell would act on inside an unquoted heredoc (`\\`, a backquote, a `$`
    that does not start a variable name, i.e. `$(`, `${`, `$((`) is escaped, so a value can
    only ever name a variable, never run anything. JSON output never holds a line `EOF`."""
    comments = "".join(f"# {comment_text(line)}\n" for line in (note or "").splitlines())
    body = _HEREDOC_SPECIAL.sub(
        lambda m: "\\" + m.group(), json.dumps(config, indent=2, ensure_ascii=False)
    )
    return f"{comments}cat > {path_var} <<EOF\n{body}\nEOF"
