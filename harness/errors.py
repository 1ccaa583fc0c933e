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
