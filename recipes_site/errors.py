"""The project's exceptions that cross modules: raised in one stage, caught by the command line.

They live here, apart from the stages that raise them, so that `exits.run_cleanly` and the
commands name them in plain `except` clauses without importing the build (a renamed class
then fails at import, not silently at the moment it should have been caught), and so that the
modules raising them need nothing from each other to share them. Each message is for people:
the command prints it as it is.
"""

from __future__ import annotations


class OutputRefused(Exception):
    """`--out` names a folder the build must not replace; the message says why and what to do."""


class SettingRefused(Exception):
    """A site setting from the environment (RECIPES_SITE_URL, RECIPES_SITE_REPO_URL) that fails
    the checks its recipes-site.yaml key and command-line flag pass."""


class UnsafePath(ValueError):
    """A document path that would be written outside the output folder."""


class DiffSourceError(Exception):
    """A side of `recipes-site diff` that cannot be turned into a built site."""


class ChoiceError(ValueError):
    """A user's choice (hardware, variant, strategy, nodes) that the recipe does not offer."""
