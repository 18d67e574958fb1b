"""Checking ``ksspec``'s command-line arguments: argparse types that name what was wrong, and a parser whose
usage errors are one line and exit code 2.

Every flag of every subcommand is checked here or by one of these types before any work starts; a problem found
later (an ``--impl`` that cannot be loaded, a ``--tag`` that matches no vector) is reported by the command with
:func:`usage_error`, in the same one-line form.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from spec.versions import get_profile

EXIT_USAGE = 2
"""argparse's (and every ``ksspec`` command's) exit code for bad usage."""


class ArgumentParser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose usage errors are one line on stderr (the usage is in ``--help``)."""

    def error(self, message: str) -> NoReturn:
        named = re.fullmatch(r"argument ([^:]+): (.*)", message, re.DOTALL)
        if named and any(named[2].startswith(f"{flag} ") for flag in named[1].split("/")):
            message = named[2]  # the type's message names the flag already
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def usage_error(prog: str, message: str) -> int:
    """Print one usage-error line to stderr, as :class:`ArgumentParser` does; return :data:`EXIT_USAGE`."""
    print(f"{prog}: error: {message}", file=sys.stderr)
    return EXIT_USAGE


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


def report_path(what: str) -> Callable[[str], Path]:
    """An argparse type: where a report can be written (:func:`check_report_path`)."""

    def parse(text: str) -> Path:
        path = Path(text)
        try:
            check_report_path(path, what)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
        return path

    return parse


def check_report_path(path: Path, option: str) -> None:
    """Fail with ``ValueError`` (one line naming ``option``) unless a report can be written at ``path``: its
    directory exists and is writable, and the path is not a directory or a read-only file. Checked before the
    run starts, so a typo does not cost the run's results."""
    if not path.name or path.is_dir():
        raise ValueError(f"{option} {path}: is a directory; give a file name")
    parent = path.parent
    if not parent.is_dir():
        raise ValueError(f"{option} {path}: the directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{option} {path}: the directory {parent} is not writable")
    if path.exists() and not os.access(path, os.W_OK):
        raise ValueError(f"{option} {path}: the file exists and is not writable")


def check_program(argv: list[str], option: str) -> None:
    """Fail with ``ValueError`` unless ``argv[0]`` names a program that can be run (on ``PATH``, or a path to an
    executable file)."""
    program = argv[0]
    if shutil.which(program) is None:
        where = "is not an executable file" if os.sep in program else "is not on PATH"
        raise ValueError(f"{option}: cannot run {program!r}: it {where}")
