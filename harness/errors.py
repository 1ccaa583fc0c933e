"""User-facing errors: the CLI prints their message and exits with their status, no traceback."""
from __future__ import annotations


class UserError(Exception):
    """A mistake in what the user asked for (bad name, bad file, bad option): exit status 2."""

    exit_status = 2


class DataError(UserError):
    """A stored file (timings, manifest, import) is malformed or corrupt."""
