"""Options and checks shared by several commands, written once so they cannot drift apart.

The checks raise `UserError` (one `error:` line, exit status 2) rather than argparse's error, so a
value from a profile or a default passes through the same door as one typed on the command line.
"""
from __future__ import annotations

import argparse

from harness.errors import UserError


def add_stats_options(p: argparse.ArgumentParser, with_steady_state: bool = True) -> None:
    """Options shared by every command that computes intervals."""
    from harness.analysis.methods import DEFAULT_METHOD, METHODS

    p.add_argument("--method", default=DEFAULT_METHOD, choices=METHODS,
                   help="CI method (default process-bootstrap: process means resampled, t quantile, log scale)")
    p.add_argument("--confidence", type=float, default=0.99, help="confidence level (default 0.99)")
    p.add_argument("--resamples", type=int, default=10000, help="bootstrap resamples (default 10000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--keep-contaminated", action="store_true",
                   help="estimate from every process, also those the runner flagged as disturbed by other "
                        "programs on the worker's CPU (default: left out; counted in the columns disturbed/excluded)")
    if with_steady_state:
        g = p.add_mutually_exclusive_group()
        g.add_argument("--all-iterations", dest="steady_state", action="store_false",
                       help="keep every iteration, warm-up included (default: each process from its detected "
                            "steady state; the other choice is still shown where it disagrees)")
        g.add_argument("--steady-state", dest="steady_state", action="store_true",
                       help="the default: only iterations from each process's detected steady state")
        p.set_defaults(steady_state=True)


def check_fraction(option: str, value: float, example: float) -> None:
    """A level or probability (--confidence, --alpha) strictly between 0 and 1."""
    if not 0 < value < 1:
        raise UserError(f"{option} must be between 0 and 1, e.g. {example}")


def check_confidence(value: float, example: float = 0.99) -> None:
    """--confidence: the interval's level, strictly between 0 and 1."""
    check_fraction("--confidence", value, example)


def check_resamples(value: int, minimum: int = 1) -> None:
    """--resamples: enough bootstrap resamples for the interval, and not so many it never ends."""
    if not minimum <= value <= 10_000_000:
        raise UserError(f"--resamples must be between {minimum} and 10000000, got {value}")


def check_target_ci(value: float) -> None:
    """--target-ci: the wanted half-width of the interval, in percent of the mean."""
    if not 0 < value < 100:
        raise UserError("--target-ci is a percentage between 0 and 100, e.g. 3")
