"""User-facing errors: the CLI prints their message and exits with their status, no traceback."""
from __future__ import annotations


class UserError(Exception):
    """A mistake in what the user asked for (bad name, bad file, bad option): exit status 2."""

    exit_status = 2


class DataError(UserError):
    """A stored file (timings, manifest, import) is malformed or corrupt."""


class RunStopped(UserError):
    """A run stopped by the environment (disk full, I/O error): what finished is stored and the
    run can be resumed; the CLI prints one line and the run directory, and exits 1."""

    exit_status = 1

    def __init__(self, message: str, run_dir: object = None) -> None:
        super().__init__(message)
        self.run_dir = run_dir


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) stopped a run whose directory exists: every finished process is stored
    and a resume finishes it, so the CLI says how in one line (exit 130) instead of a bare
    "interrupted". A KeyboardInterrupt, so code that catches Ctrl-C still sees it."""

    exit_status = 130

    def __init__(self, run_dir: object) -> None:
        super().__init__(f"interrupted: every finished process is stored; finish the run with: "
                         f"python -m harness run --resume {run_dir}")
        self.run_dir = run_dir


def close_names(typed: str, names: "list[str]", n: int = 3) -> "list[str]":
    """The names a mistyped one most likely meant: those with a part (split at `/` or `.`) equal
    to it (`sqlite3` -> `sqlite/sqlite3`, `select_fold` -> `bindings.select_fold`; a family,
    `sqlite` -> `sqlite/*`), else difflib's close matches on whole names and parts."""
    import difflib
    import re

    def parts(name: str) -> "list[str]":
        return re.split(r"[/.]", name.lower())

    word = typed.strip().lower().strip("*?[]")
    if not word:
        return []
    exact = [name for name in names if word in parts(name) and word != name.lower()]
    family = [name for name in exact if parts(name)[0] == word]
    if len(family) > 1:  # `sqlite`: the family's glob, then its members
        sep = family[0][len(word)]
        return [word + sep + "*", *family][:n + 1]
    if exact:
        return exact[:n]
    index: "dict[str, list[str]]" = {}
    for name in names:
        for part in [name.lower(), *parts(name)]:
            index.setdefault(part, []).append(name)
    close = [name for part in difflib.get_close_matches(word, list(index), n=2 * n, cutoff=0.6)
             for name in index[part]]
    return list(dict.fromkeys(close))[:n]


def did_you_mean(typed: "list[str] | str", names: "list[str]") -> str:
    """` (did you mean X?)` for the names a user mistyped, or ''; for error messages."""
    found = [c for t in ([typed] if isinstance(typed, str) else typed) for c in close_names(t, names)]
    found = list(dict.fromkeys(found))
    if not found:
        return ""
    return " (did you mean " + " or ".join(found) + "?)"


def env_int(name: str, default: int, low: int, high: int) -> int:
    """The environment variable `name` as a whole number in low..high (unset or blank: `default`).
    Why: a malformed setting is the user's mistake, said in one line, never a traceback."""
    import os

    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise UserError(f"{name}={text!r}: expected a whole number from {low} to {high}") from None
    if not low <= value <= high:
        raise UserError(f"{name}={value}: expected a whole number from {low} to {high}")
    return value


def env_words(name: str, default: str = "") -> list:
    """The environment variable `name` split as a shell would (options for a compiler or the JVM);
    an unbalanced quote is a UserError naming it."""
    import os
    import shlex

    text = os.environ.get(name, default)
    try:
        return shlex.split(text)
    except ValueError as exc:
        raise UserError(f"{name}={text!r}: cannot split it into words ({exc})") from None
