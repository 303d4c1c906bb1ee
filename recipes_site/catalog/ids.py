"""The one grammar of the ids that become file paths and URLs, and the case/Unicode collision rule.

Why: a recipe's path, a variant's ``model_id`` (its checkpoint page), ``meta.related_recipes``
and the taxonomy's hardware profile ids are joined into output paths (``<org>/<repo>/index.html``,
``api/v1/models/<org>/<repo>/hw/<hw>.json``). Recipes come from strangers' pull requests, so an
id such as ``../templates`` or ``/abs`` must be refused while validating, at its file:line, long
before anything is written.

The grammar is Hugging Face's repo-id rule (``huggingface_hub.utils._validators.validate_repo_id``:
``^(\\b[\\w\\-.]+\\b/)?\\b[\\w\\-.]{1,96}\\b$``, no ``--`` or ``..``, no ``.git`` ending), restricted
to ASCII letters and digits: an id is ``<org>/<name>`` or ``<name>``; each part is 1-96 characters
of ``A-Z a-z 0-9 _ - .``, starts and ends with a letter, digit or ``_``, and holds neither ``..``
nor ``--``. So no part can be ``.``, ``..`` or empty, and no id can be absolute.
"""

from __future__ import annotations

import re
import unicodedata

MAX_PART = 96  # huggingface_hub's REPO_ID_REGEX: [\w\-.]{1,96}
MAX_ID = 2 * MAX_PART + 1  # org/name
_PART = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.\-]{0,94}[A-Za-z0-9_])?\Z")
# JSON Schema spelling for editors (the length and the ".."/"--" rules are checked in code).
JSON_PATTERN = r"^[A-Za-z0-9_](?:[A-Za-z0-9_.\-]*[A-Za-z0-9_])?(?:/[A-Za-z0-9_](?:[A-Za-z0-9_.\-]*[A-Za-z0-9_])?)?$"

EXCERPT = 60


def _shown(text: str) -> str:
    """The id as quoted in a message: one line, at most EXCERPT characters (a 100k-character id
    must not flood the terminal)."""
    flat = text.encode("unicode_escape").decode("ascii")
    return flat if len(flat) <= EXCERPT else flat[:EXCERPT] + f"… ({len(text)} characters)"


def part_problem(part: str) -> str | None:
    """Why ``part`` (one side of ``org/name``) is not a valid id part, or None."""
    if part == "":
        return "has an empty part"
    if len(part) > MAX_PART:
        return f"has a part of {len(part)} characters (at most {MAX_PART})"
    if ".." in part:
        return "contains '..'"
    if "--" in part:
        return "contains '--'"
    if part[0] in ".-" or part[-1] in ".-":
        return "has a part starting or ending with '.' or '-'"
    if not _PART.match(part):
        bad = next((c for c in part if not (c.isascii() and (c.isalnum() or c in "_.-"))), None)
        return f"contains {bad!r}" if bad is not None else "is not a valid id"
    if part.endswith(".git"):
        return "ends with '.git'"
    return None


def id_problem(value: str, *, org_required: bool = False, single: bool = False) -> str | None:
    """Why ``value`` is not a valid id, or None. ``single``: one part only (a hardware profile id);
    ``org_required``: must be ``org/name``."""
    if not isinstance(value, str):
        return "is not a string"
    if value.startswith("/"):
        return "is an absolute path"
    parts = value.split("/")
    if single and len(parts) > 1:
        return "contains '/'"
    if len(parts) > 2:
        return "has more than one '/'"
    if org_required and len(parts) != 2:
        return "has no '<org>/' part"
    for part in parts:
        problem = part_problem(part)
        if problem:
            return problem
    return None


def id_message(value: str, what: str, problem: str) -> str:
    return f"{what} '{_shown(value)}' {problem}"


ID_HINT = (
    "ids follow the Hugging Face repo-id grammar: <org>/<name>, each part 1-96 letters, digits, "
    "'-', '_' or '.', not starting or ending with '.' or '-', without '..' or '--'"
)


def collision_key(path_id: str) -> str:
    """Two ids with the same key name the same file on a case-insensitive (macOS, Windows) or
    normalising (macOS HFS+) file system."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", path_id).casefold())
