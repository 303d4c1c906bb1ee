"""The policy for recipe-written shell: install, dependency and companion commands.

Everything else a recipe puts into a command is a quoted word (shell_rules.py); these commands are
the recipe's own shell text, pasted by users into root shells. validate admits them only in a
small grammar of well-known install steps, so a reviewer of a pull request reads what each step
does, and nothing can hide behind shell syntax:

    command  := step (("&&" | newline) step)*          blank lines, `# comments` and `\\`-newline
    step     := [NAME=literal ...] program args         continuations are fine
    program  := pip|pip3|uv pip|python[3] -m pip  install|uninstall  [options] requirement...
              | uv venv [PATH] | python[3] -m venv PATH | source|. PATH/bin/activate
              | git clone [options] https://URL [DIR] | git checkout REF
              | git submodule update [--init] [--recursive]
              | cd PATH | export NAME=literal...
              | docker pull IMAGE | docker run [options] IMAGE [bash|sh]
              | hf|huggingface-cli download ORG/REPO [FILE...] [options] | hf auth login
              | [sudo] apt-get|apt update|install [-y] PACKAGE...

Words are literal: no `$` (variables, `$(...)`), backticks, `;`, `|`, `&`, redirections,
subshells, globs or backslash escapes, and only printable ASCII (a look-alike letter could name
another package). Every URL is https without credentials; an image is a container reference.
No variable that changes which code runs (PATH, LD_PRELOAD, PROMPT_COMMAND, ...) is set, `hf
download` writes into no system, home or hidden folder, `docker run` mounts neither `/` nor the
docker socket.

A command outside the grammar is an error unless its entry says `unchecked_shell: true`: the page
and the API then flag it ("This recipe runs its own shell: read it before pasting"). Hidden
characters are refused in every case (text_rules.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from recipes_site.catalog.documents import RecipeDoc
from recipes_site.catalog.schema_errors import did_you_mean
from recipes_site.catalog.shell_rules import NAME_TOTAL_MAX, OCI_REFERENCE

MARKER = "unchecked_shell"
# Shown (page, .md export, diff) beside a recipe command marked `unchecked_shell: true`: shell the
# grammar does not vouch for.
UNCHECKED_SHELL_WARNING = "This recipe runs its own shell: read it before pasting."
EXPECTED = (
    "expected install steps joined by `&&` or new lines: `pip`/`uv pip install` of packages with "
    "version specs, `git clone https://...`, `cd DIR`, `docker pull IMAGE`, `export NAME=value`, "
    "`hf download ORG/REPO` (CONTRIBUTING.md, 'Recipe-written shell')"
)
FIX = (
    "rewrite it in those forms, or add `unchecked_shell: true` beside `command:`; the page then "
    "warns readers that the recipe runs its own shell"
)


class Refused(Exception):
    """One reason a command is outside the policy, with the line of the command it is on."""

    def __init__(self, reason: str, line: int = 0) -> None:
        super().__init__(reason)
        self.reason, self.line = reason, line


# ---- words --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Word:
    text: str  # what the shell passes on (quotes removed)
    line: int  # 0-based line of the command it starts on


AND, NEWLINE = "&&", "\n"
# What each unquoted shell character would do that a literal word must not.
_SPECIAL = {
    "$": "`$` expands a variable or runs a command (`$(...)`); write the literal value",
    "`": "a backtick runs a command and pastes its output",
    ";": "`;` runs the next command whatever the one before did",
    "|": "a pipe `|` feeds one program's output to another (`curl ... | sh` runs what a server sends)",
    "&": "a single `&` runs a command in the background",
    "<": "`<` reads a file into the command; quote a version spec: 'pkg<2'",
    ">": "`>` writes a file; quote a version spec: 'pkg>=1.0'",
    "(": "parentheses start a subshell",
    ")": "parentheses start a subshell",
    "{": "braces group commands or expand into several words",
    "}": "braces group commands or expand into several words",
    "*": "`*` expands to file names; quote it",
    "?": "`?` expands to file names; quote it",
    "[": "brackets expand to file names (zsh refuses them); quote it: 'vllm[audio]'",
    "]": "brackets expand to file names (zsh refuses them); quote it: 'vllm[audio]'",
    "\\": "a backslash escape (only a backslash ending a line is allowed)",
    "!": "`!` recalls shell history",
}
_IN_DOUBLE_QUOTES = {c: _SPECIAL[c] for c in "$`\\!"}


def _printable(c: str, line: int) -> None:
    if not " " <= c <= "~":
        raise Refused(
            f"U+{ord(c):04X} is not printable ASCII: a look-alike letter can name another "
            "package or host",
            line,
        )


def lex(command: str) -> list[Word | str]:
    """The words and operators (AND, NEWLINE) of `command`; Refused at the first character the
    policy does not allow."""
    out: list[Word | str] = []
    i, n, line = 0, len(command), 0
    text: list[str] | None = None  # the word being read
    start = 0

    def end_word() -> None:
        nonlocal text
        if text is not None:
            out.append(Word("".join(text), start))
            text = None

    while i < n:
        c = command[i]
        if c in " \t":
            end_word()
        elif c == "\n":
            end_word()
            out.append(NEWLINE)
            line += 1
        elif c == "\\" and command[i + 1 : i + 2] == "\n":
            line += 1  # bash removes a backslash-newline: `cu\<newline>rl` is `curl`
            i += 1
        elif c == "#" and text is None:
            while i + 1 < n and command[i + 1] != "\n":
                i += 1
        elif c == "&" and command[i + 1 : i + 2] == "&":
            end_word()
            out.append(AND)
            i += 1
        elif c in "'\"":
            if text is None:
                text, start = [], line
            close = command.find(c, i + 1)
            if close < 0:
                raise Refused(f"the quote {c} is never closed", line)
            inner = command[i + 1 : close]
            for q in inner:
                if q == "\n":
                    raise Refused("a quoted word runs over a new line", line)
                _printable(q, line)
                if c == '"' and q in _IN_DOUBLE_QUOTES and not _bang_equals(inner, q):
                    raise Refused(f"inside double quotes, {_IN_DOUBLE_QUOTES[q]}", line)
            text += inner
            i = close
        elif c == "|" and command[i + 1 : i + 2] == "|":
            raise Refused("`||` runs a command when another fails; only `&&` joins commands", line)
        elif c in _SPECIAL and not (c == "!" and command[i + 1 : i + 2] == "="):
            raise Refused(_SPECIAL[c], line)
        else:
            _printable(c, line)
            if text is None:
                text, start = [], line
            text.append(c)
        i += 1
    end_word()
    return out


def _bang_equals(inner: str, q: str) -> bool:
    """`!` is fine in a version spec `!=` (bash does not expand `!` before `=`)."""
    return q == "!" and all(inner[k + 1 : k + 2] == "=" for k, ch in enumerate(inner) if ch == "!")


def steps(command: str) -> list[list[Word]]:
    """The simple commands of `command`, in order; Refused for a dangling `&&`."""
    out: list[list[Word]] = []
    current: list[Word] = []
    after_and = False
    for tok in lex(command):
        if isinstance(tok, Word):
            current.append(tok)
            after_and = False
        elif tok == AND:
            if not current:
                raise Refused("`&&` with no command before it", _line(out))
            out.append(current)
            current, after_and = [], True
        elif current:  # NEWLINE ends a step, unless it follows `&&` (bash reads on)
            out.append(current)
            current = []
    if after_and:
        raise Refused("`&&` with no command after it", _line(out))
    if current:
        out.append(current)
    return out


def _line(done: list[list[Word]]) -> int:
    return done[-1][-1].line if done else 0


# ---- values -------------------------------------------------------------------------------------

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# RFC 3986 characters of a URL, less the quotes and shell characters the lexer already refuses
_HOST = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+"
HTTPS_URL = re.compile(rf"https://{_HOST}(?::[0-9]{{1,5}})?(?:/[A-Za-z0-9._~%!$&'()*+,;=:@/-]*)?")
VCS_URL = re.compile(
    rf"git\+(?P<url>https://{_HOST}(?::[0-9]{{1,5}})?/[A-Za-z0-9._~%+/-]+)"
    r"(?:@[A-Za-z0-9._/+-]+)?(?:#[A-Za-z0-9_=&./-]+)?"
)
PKG_NAME = r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"
EXTRAS = rf"\[\s*{PKG_NAME}(?:\s*,\s*{PKG_NAME})*\s*\]"
VERSION = r"[A-Za-z0-9_.*+!-]+"
SPEC = rf"(?:===|==|!=|~=|>=|<=|>|<)\s*{VERSION}"
# PEP 508 without environment markers: name[extras] [specs] | name[extras] @ URL
REQUIREMENT = re.compile(rf"{PKG_NAME}(?:{EXTRAS})?\s*(?:{SPEC}(?:\s*,\s*{SPEC})*)?")
DIRECT_REFERENCE = re.compile(rf"(?P<name>{PKG_NAME}(?:{EXTRAS})?)\s*@\s*(?P<url>\S+)")
LOCAL_PATH = re.compile(
    rf"(?:\.{{1,2}}|~|\.{{0,2}}/[A-Za-z0-9._/+-]*|[A-Za-z0-9._+-]+/[A-Za-z0-9._/+-]*)(?:{EXTRAS})?"
)
ARCHIVE = re.compile(r"[A-Za-z0-9._/+-]+\.(?:whl|tar\.gz|zip)")
HF_REPO = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*")
APT_PACKAGE = re.compile(r"[a-z0-9][a-z0-9+.-]+(?:=[A-Za-z0-9.+:~-]+)?")
PATHLIKE = re.compile(r"[A-Za-z0-9._/~+:@=-]+")


def https_url(value: str, what: str, line: int) -> None:
    if value.startswith("https://") and "@" in value.split("/", 3)[2]:
        raise Refused(f"{what} {value!r} carries a user name before the host", line)
    if not HTTPS_URL.fullmatch(value):
        scheme = value.split(":", 1)[0] if "://" in value else ""
        got = f"a {scheme}:// URL" if scheme else repr(value)
        raise Refused(f"{what} must be an https:// URL, not {got}", line)


def requirement(word: Word) -> None:
    """One positional argument of `pip install`: a requirement, an https or VCS URL, a path."""
    value = word.text
    if value.startswith("git+"):
        vcs = VCS_URL.fullmatch(value)
        if not vcs:
            scheme = value[4:].split(":", 1)[0]
            raise Refused(
                f"{value!r}: a git requirement must be git+https://host/path[@ref], "
                f"not git+{scheme}://",
                word.line,
            )
        https_url(vcs.group("url"), "the repository", word.line)
        return
    direct = DIRECT_REFERENCE.fullmatch(value)
    if direct:
        requirement(Word(direct.group("url"), word.line))
        return
    if "://" in value:
        https_url(value, "a package URL", word.line)
        return
    if REQUIREMENT.fullmatch(value) or LOCAL_PATH.fullmatch(value) or ARCHIVE.fullmatch(value):
        return
    raise Refused(
        f"{value!r} is not a package requirement (expected name[extras] with version specs, "
        "e.g. 'vllm[audio]>=0.11', a git+https:// URL or a local path)",
        word.line,
    )


# ---- programs -----------------------------------------------------------------------------------


def _literal(word: Word) -> None:
    if not PATHLIKE.fullmatch(word.text) and not REQUIREMENT.fullmatch(word.text):
        raise Refused(f"{word.text!r} is not a literal value", word.line)


@dataclass(frozen=True)
class Options:
    """The options one program takes: flags alone, `valued` with one value (`--x v`, `--x=v`),
    `urls` whose value is an https URL; `check` judges each positional argument."""

    flags: frozenset[str]
    valued: frozenset[str] = frozenset()
    urls: frozenset[str] = frozenset()
    check: Any = None


def _words(*names: str) -> frozenset[str]:
    return frozenset(" ".join(names).split())


PIP_INSTALL = Options(
    flags=_words(
        "-U --upgrade --pre --no-build-isolation --no-deps --force-reinstall --reinstall",
        "--no-cache-dir --no-cache --refresh -q --quiet -v --verbose --system",
        "--break-system-packages --user --no-index --compile-bytecode --exact --no-build",
    ),
    valued=_words(
        "-e --editable -r --requirement -c --constraint --torch-backend --index-strategy",
        "--prerelease --python -p --upgrade-package -P --reinstall-package --only-binary",
        "--no-binary --no-build-isolation-package --resolution --upgrade-strategy",
        "--config-settings -C",
    ),
    urls=_words("--extra-index-url --index-url -i --find-links -f"),
    check=requirement,
)
PIP_UNINSTALL = Options(
    flags=_words("-y --yes -q --quiet --system --break-system-packages"),
    valued=_words("--python -p"),
    check=requirement,
)
UV_VENV = Options(flags=_words("--seed -q --quiet"), valued=_words("--python -p"), check=_literal)
GIT_CLONE = Options(
    flags=_words("--single-branch --recursive --recurse-submodules --shallow-submodules -q"),
    valued=_words("--depth --branch -b"),
)
SUBMODULE_UPDATE = Options(flags=_words("--init --recursive --remote"), valued=_words("--depth"))
HF_DOWNLOAD = Options(
    flags=_words("--quiet"),
    valued=_words("--local-dir --revision --include --exclude --repo-type --cache-dir"),
    check=_literal,
)
APT = Options(
    flags=_words("-y --yes -q -qq --no-install-recommends"),
    check=lambda w: _match(APT_PACKAGE, w, "an apt package name"),
)
DOCKER_RUN = Options(
    flags=_words("--rm -it -i -t -ti -d --detach --init --interactive --tty"),
    valued=_words(
        "--net --network --ipc --shm-size --device -v --volume -e --env -p --publish --name",
        "--gpus --ulimit --group-add --cap-add --security-opt --workdir -w --hostname",
        "--runtime --memory --user -u --platform",
    ),
)


def _match(pattern: re.Pattern, word: Word, what: str) -> None:
    if not pattern.fullmatch(word.text):
        raise Refused(f"{word.text!r} is not {what}", word.line)


def parse_options(words: list[Word], spec: Options, program: str) -> list[Word]:
    """The positional arguments of `words` after checking every option against `spec`."""
    positional: list[Word] = []
    i = 0
    while i < len(words):
        w = words[i]
        name, eq, value = w.text.partition("=")
        if not w.text.startswith("-") or w.text == "-":
            if spec.check:
                spec.check(w)
            positional.append(w)
        elif w.text in spec.flags:
            pass
        elif name in spec.valued or name in spec.urls:
            if not eq:
                i += 1
                if i >= len(words):
                    raise Refused(f"{program} {name} takes a value", w.line)
                value = words[i].text
            if name in spec.urls or "://" in value:  # `-r URL`, `-c URL` fetch files too
                https_url(value, f"the value of {name}", w.line)
            elif name in ("-e", "--editable"):
                requirement(Word(value, w.line))
        else:
            guess = did_you_mean(name, spec.flags | spec.valued | spec.urls)
            raise Refused(
                f"{program} option {name!r} is not one the policy knows"
                + (f" ({guess})" if guess else ""),
                w.line,
            )
        i += 1
    return positional


def _need(positional: list[Word], count: tuple[int, int], usage: str, line: int) -> None:
    low, high = count
    if not low <= len(positional) <= high:
        raise Refused(f"expected `{usage}`", line)


# Variables that make the shell or the next programs run other code than the command shows: the
# program search path, preloaded libraries, prompts and hooks bash runs, Python start-up files,
# git's helper programs.
HIJACKING = re.compile(
    r"PATH|CDPATH|IFS|ENV|BASH_ENV|BASH_FUNC_.*|PROMPT_COMMAND|PS[0-4]|SHELLOPTS|BASHOPTS"
    r"|LD_.*|DYLD_.*|PYTHONSTARTUP|PYTHONPATH|PYTHONHOME|PYTHONUSERBASE|GIT_.*|EDITOR|VISUAL|PAGER"
)


def _assignment(word: Word) -> None:
    name, eq, value = word.text.partition("=")
    if not eq or not NAME.fullmatch(name):
        raise Refused(f"{word.text!r} is not NAME=value", word.line)
    if HIJACKING.fullmatch(name):
        raise Refused(
            f"setting {name} changes which code the shell and later commands run", word.line
        )
    if "://" in value:
        https_url(value, f"the value of {name}", word.line)


SYSTEM_DIRS = frozenset("etc usr bin sbin lib lib32 lib64 boot root var sys proc dev".split())


def _download_target(word: Word, what: str) -> None:
    """A folder or file `hf download` writes: not a system folder, not the home folder itself,
    no `..` and no hidden (dot) component, where shell start-up files and keys live."""
    parts = word.text.split("/")
    if (
        word.text in ("/", "~", "~/")
        or (word.text.startswith("/") and parts[1] in SYSTEM_DIRS)
        or any(p == ".." or (p.startswith(".") and p != ".") for p in parts)
    ):
        raise Refused(
            f"{what} {word.text!r} could overwrite system or start-up files; use a plain folder "
            "such as ./model or /path/to/model",
            word.line,
        )


def _pip(args: list[Word], program: str, line: int) -> None:
    if not args or args[0].text not in ("install", "uninstall"):
        raise Refused(f"expected `{program} install ...` or `{program} uninstall ...`", line)
    spec = PIP_INSTALL if args[0].text == "install" else PIP_UNINSTALL
    positional = parse_options(args[1:], spec, f"{program} {args[0].text}")
    if not positional and not any(
        w.text.split("=")[0] in ("-e", "--editable", "-r", "--requirement") for w in args
    ):
        raise Refused(f"{program} {args[0].text} names no package", line)


def _git(args: list[Word], line: int) -> None:
    sub = args[0].text if args else ""
    if sub == "clone":
        positional = parse_options(args[1:], GIT_CLONE, "git clone")
        _need(positional, (1, 2), "git clone [options] https://host/repo [DIR]", line)
        https_url(positional[0].text, "the repository", positional[0].line)
        if len(positional) == 2:
            _literal(positional[1])
    elif sub == "checkout":
        positional = parse_options(args[1:], Options(flags=frozenset({"-q"})), "git checkout")
        _need(positional, (1, 1), "git checkout REF", line)
        _literal(positional[0])
    elif sub == "submodule" and len(args) > 1 and args[1].text == "update":
        _need(
            parse_options(args[2:], SUBMODULE_UPDATE, "git submodule update"),
            (0, 0),
            "git submodule update [--init] [--recursive]",
            line,
        )
    else:
        raise Refused(
            "expected `git clone https://...`, `git checkout REF` or `git submodule update`", line
        )


def _image(word: Word) -> None:
    m = OCI_REFERENCE.fullmatch(word.text)
    if not m or len(m.group("name")) > NAME_TOTAL_MAX:
        raise Refused(f"{word.text!r} is not a container image reference", word.line)


def _docker(args: list[Word], line: int) -> None:
    sub = args[0].text if args else ""
    if sub == "pull":
        positional = parse_options(
            args[1:], Options(flags=frozenset({"-q", "--quiet"})), "docker pull"
        )
        _need(positional, (1, 1), "docker pull IMAGE", line)
        _image(positional[0])
        return
    if sub != "run":
        raise Refused("expected `docker pull IMAGE` or `docker run [options] IMAGE [bash]`", line)
    rest = args[1:]
    # options end at the first word that is neither an option nor an option's value
    i = 0
    while i < len(rest) and rest[i].text.startswith("-"):
        name = rest[i].text.partition("=")[0]
        if name in DOCKER_RUN.valued and "=" not in rest[i].text:
            i += 1
        i += 1
    parse_options(rest[:i], DOCKER_RUN, "docker run")
    for k, w in enumerate(rest[:i]):
        name, _, value = w.text.partition("=")
        value = value or (rest[k + 1].text if k + 1 < i else "")
        if name in ("-v", "--volume") and (value.split(":")[0] in ("/", "/var/run/docker.sock")):
            raise Refused(f"docker run mounts {value.split(':')[0]} of the host", w.line)
    tail = rest[i:]
    _need(tail, (1, 2), "docker run [options] IMAGE [bash]", line)
    _image(tail[0])
    if len(tail) == 2 and tail[1].text not in ("bash", "sh", "/bin/bash", "/bin/sh"):
        raise Refused(
            f"docker run ... {tail[0].text} {tail[1].text!r}: only an interactive shell "
            "(bash) may follow the image",
            tail[1].line,
        )


def _hf(args: list[Word], program: str, line: int) -> None:
    sub = [w.text for w in args[:2]]
    if sub in (["auth", "login"], ["login"]) and len(args) == len(sub):
        return
    if not args or args[0].text != "download":
        raise Refused(f"expected `{program} download ORG/REPO [FILE...]`", line)
    positional = parse_options(args[1:], HF_DOWNLOAD, f"{program} download")
    _need(positional, (1, 1000), f"{program} download ORG/REPO [FILE...]", line)
    _match(HF_REPO, positional[0], "a Hugging Face repository id (org/name)")
    for w in positional[1:]:
        _download_target(w, "the file")
    for k, w in enumerate(args):
        name, eq, value = w.text.partition("=")
        if name in ("--local-dir", "--cache-dir"):
            target = Word(value, w.line) if eq else args[k + 1]
            _download_target(target, name)


def _apt(args: list[Word], program: str, line: int) -> None:
    sub = args[0].text if args else ""
    if sub not in ("install", "update"):
        raise Refused(f"expected `{program} install PACKAGE...` or `{program} update`", line)
    positional = parse_options(args[1:], APT, f"{program} {sub}")
    _need(positional, (1, 1000) if sub == "install" else (0, 0), f"{program} {sub}", line)


def check_step(words: list[Word]) -> None:
    """Refused unless one simple command follows the grammar."""
    line = words[0].line
    k = 0
    while k < len(words) and "=" in words[k].text and not words[k].text.startswith("-"):
        _assignment(words[k])
        k += 1
    rest = words[k:]
    if not rest:
        return  # assignments alone
    if rest[0].text == "sudo":
        if len(rest) < 2 or rest[1].text not in ("apt-get", "apt"):
            raise Refused("`sudo` is allowed only before apt-get or apt", line)
        rest = rest[1:]
    program, args = rest[0].text, rest[1:]
    if program in ("pip", "pip3"):
        _pip(args, program, line)
    elif program == "uv" and args and args[0].text == "pip":
        _pip(args[1:], "uv pip", line)
    elif program == "uv" and args and args[0].text == "venv":
        _need(parse_options(args[1:], UV_VENV, "uv venv"), (0, 1), "uv venv [PATH]", line)
    elif program in ("python", "python3") and [w.text for w in args[:2]] == ["-m", "pip"]:
        _pip(args[2:], f"{program} -m pip", line)
    elif program in ("python", "python3") and [w.text for w in args[:2]] == ["-m", "venv"]:
        _need(parse_options(args[2:], UV_VENV, "venv"), (1, 1), "python -m venv PATH", line)
    elif program in ("source", "."):
        if len(args) != 1 or not re.fullmatch(r"[A-Za-z0-9._/~-]*bin/activate", args[0].text):
            raise Refused(
                f"`{program}` may only activate a virtual environment (PATH/bin/activate)", line
            )
    elif program == "cd":
        _need(args, (1, 1), "cd DIR", line)
        _literal(args[0])
    elif program == "export":
        _need(args, (1, 1000), "export NAME=value", line)
        for w in args:
            if not NAME.fullmatch(w.text):
                _assignment(w)
    elif program == "git":
        _git(args, line)
    elif program == "docker":
        _docker(args, line)
    elif program in ("hf", "huggingface-cli"):
        _hf(args, program, line)
    elif program in ("apt-get", "apt"):
        _apt(args, program, line)
    else:
        raise Refused(f"`{program}` is not a program the policy knows", line)


def command_problem(command: str) -> tuple[str, int] | None:
    """(reason, 0-based line of the command) when `command` is outside the grammar, else None."""
    try:
        for step in steps(command):
            check_step(step)
    except Refused as refused:
        return refused.reason, refused.line
    return None


def unchecked_note(command: str) -> str | None:
    """The line a report (`recipes-site diff`) prints under a recipe-written command outside the
    grammar, which validate admits only with `unchecked_shell: true`: the pages' warning and the
    first reason. None for a command inside the grammar."""
    problem = command_problem(command)
    if problem is None:
        return None
    return f"warning: {UNCHECKED_SHELL_WARNING} (outside the shell policy: {problem[0]})"


# ---- where recipes hold commands ----------------------------------------------------------------


def recipe_commands(data: Any) -> Iterator[tuple[tuple, dict]]:
    """(key path of the entry, entry) for every command entry a recipe writes: the install
    overrides, the dependencies and the feature companions."""
    if not isinstance(data, dict):
        return
    model = data.get("model")
    install = model.get("install") if isinstance(model, dict) else None
    for method in ("pip", "docker"):
        entry = install.get(method) if isinstance(install, dict) else None
        if isinstance(entry, dict):
            yield ("model", "install", method), entry
    deps = data.get("dependencies")
    for i, dep in enumerate(deps if isinstance(deps, list) else []):
        if isinstance(dep, dict):
            yield ("dependencies", i), dep
    features = data.get("features")
    for name, feature in (features if isinstance(features, dict) else {}).items():
        companion = feature.get("companion") if isinstance(feature, dict) else None
        if isinstance(companion, dict):
            yield ("features", name, "companion"), companion


def check_recipe_shell(doc: RecipeDoc, catalog: Any) -> list:
    """RECIPE_CHECKS rule: every recipe-written command follows the grammar, or says
    `unchecked_shell: true` (then the pages warn); a marker on a command that needs none is a
    warning, since readers would be warned for nothing."""
    report = doc.report()
    for path, entry in recipe_commands(doc.data):
        command = entry.get("command")
        if not isinstance(command, str) or not command.strip():
            continue
        problem = command_problem(command)
        marked = entry.get(MARKER) is True
        if problem and not marked:
            reason, line = problem
            where = f" (line {line + 1} of the command)" if "\n" in command.strip() else ""
            report.error(
                path + ("command",),
                f"this command is outside the shell policy: {reason}{where}; {EXPECTED}",
                FIX,
            )
        elif marked and not problem:
            report.warning(
                path + (MARKER,),
                "`unchecked_shell: true` on a command that follows the shell policy: readers are "
                "warned for nothing",
                "delete `unchecked_shell: true`",
            )
    return report.items
