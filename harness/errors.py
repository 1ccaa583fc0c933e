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
