"""Checking ``ksspec``'s command-line arguments as they are parsed: argparse types that name what was wrong, and a
parser whose usage errors are one line (``error: ...``) and exit code 2.

Every flag of every subcommand is checked by one of these types, or, where the check needs more than the value
(a report path, a version profile, an ``--impl`` to load, a ``--tag`` that must match a vector), by the command
before any work starts, with :mod:`conformance.usage`'s checks and the same one-line form.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from conformance.usage import EXIT_USAGE
from spec.verify.dask_pool import cluster_address
from spec.versions import get_profile


class ArgumentParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose usage errors are one line on stderr, ``error: <what> (see <prog>
    --help)``, as the commands' own checks print them (the usage itself is in ``--help``)."""

    def error(self, message: str) -> NoReturn:
        named = re.fullmatch(r"argument ([^:]+): (.*)", message, re.DOTALL)
        if named and any(named[2].startswith(f"{flag} ") for flag in named[1].split("/")):
            message = named[2]  # the type's message names the flag already
        self.exit(EXIT_USAGE, f"error: {message} (see {self.prog} --help)\n")


# --------------------------------------------------------------------------------------------
# Numbers
# --------------------------------------------------------------------------------------------


def finite_number(text: str, what: str) -> float:
    """``text`` as a finite number; fails with ``argparse.ArgumentTypeError`` naming ``what``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} must be a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{what} must be a finite number, got {text!r}")
    return value


def whole_number(text: str, what: str) -> int:
    """``text`` as a whole number; fails with ``argparse.ArgumentTypeError`` naming ``what``."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} must be a whole number, got {text!r}") from None


MAX_BOUND = 1_000_000
"""The largest count a bound or universe flag of ``ksspec prove`` or ``ksspec check`` accepts (far beyond what can
be explored; it only keeps a typo from allocating for ever)."""


def int_in(low: int, high: int, what: str) -> Callable[[str], int]:
    """An argparse type: a whole number in [low, high]."""

    def parse(text: str) -> int:
        value = whole_number(text, what)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{what} must be between {low:,} and {high:,}, got {value:,}")
        return value

    return parse


def positive(what: str) -> Callable[[str], float]:
    """An argparse type: a finite number > 0 (``nan``, ``inf`` and ``-1`` are refused)."""

    def parse(text: str) -> float:
        value = finite_number(text, what)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"{what} must be greater than 0, got {text}")
        return value

    return parse


def non_negative(what: str) -> Callable[[str], float]:
    """An argparse type: a finite number >= 0."""

    def parse(text: str) -> float:
        value = finite_number(text, what)
        if value < 0:
            raise argparse.ArgumentTypeError(f"{what} must not be negative, got {text}")
        return value

    return parse


# --------------------------------------------------------------------------------------------
# Names and paths
# --------------------------------------------------------------------------------------------


def profile_name(text: str) -> str:
    """An argparse type: a known version profile (:data:`spec.versions.PROFILES`)."""
    try:
        return get_profile(text).name
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def cluster(text: str) -> str:
    """An argparse type: ``--cluster``, a Dask scheduler address (``tcp://host:8786``) or ``local:N``
    (:func:`spec.verify.dask_pool.cluster_address`)."""
    try:
        return cluster_address(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def non_empty(what: str) -> Callable[[str], str]:
    """An argparse type: a string with something in it."""

    def parse(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"{what} must not be empty")
        return text

    return parse


def existing_directory(what: str) -> Callable[[str], Path]:
    """An argparse type: a directory that exists."""

    def parse(text: str) -> Path:
        path = Path(text)
        if not path.is_dir():
            problem = "not a directory" if path.exists() else "no such directory"
            raise argparse.ArgumentTypeError(f"{what} {text}: {problem}")
        return path

    return parse


def check_readable_file(path: Path, option: str) -> None:
    """Fail with ``ValueError`` (one line naming ``option``) unless ``path`` is a file that can be read."""
    if not path.is_file():
        raise ValueError(f"{option} {path}: {'not a file' if path.exists() else 'no such file'}")
    if not os.access(path, os.R_OK):
        raise ValueError(f"{option} {path}: not readable")


def check_program(argv: list[str], option: str) -> None:
    """Fail with ``ValueError`` unless ``argv[0]`` names a program that can be run (on ``PATH``, or a path to an
    executable file)."""
    program = argv[0]
    if shutil.which(program) is None:
        where = "is not an executable file" if os.sep in program else "is not on PATH"
        raise ValueError(f"{option}: cannot run {program!r}: it {where}")
