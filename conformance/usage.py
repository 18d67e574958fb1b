"""Checks of command-line input that several ``ksspec`` subcommands share.

Bad input is one clear line and exit code 2 (:data:`EXIT_USAGE`), found before any work starts, never a traceback
after it: each check raises :class:`UsageError` naming the flag, the value and what is wrong, and the command prints
it with :func:`usage_error`.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from pathlib import Path
from typing import Final

from rich.console import Console
from rich.markup import escape

from spec.verify.dask_pool import ClusterFailed, EngineMissing

EXIT_USAGE: Final = 2
"""The exit code of bad usage (the same code ``ksspec conform`` gives adapter errors, and argparse gives)."""


class UsageError(ValueError):
    """A command-line value ``ksspec`` cannot use; the message is one line naming the flag and the value."""


def usage_error(console: Console, error: Exception | str) -> int:
    """Print ``error`` as the one line ``error: <message>`` and return :data:`EXIT_USAGE`."""
    console.print(f"[bold red]error:[/] {escape(str(error))}", highlight=False, soft_wrap=True)
    return EXIT_USAGE


def check_choice(flag: str, value: str, known: Collection[str], what: str) -> None:
    """Fails with :class:`UsageError` unless ``value`` is one of ``known`` (a ``what``, e.g. "version profile")."""
    if value not in known:
        raise UsageError(f"{flag}: unknown {what} {value!r}; known: {', '.join(known)}")


def check_version_profile(flag: str, name: str) -> None:
    """Fails with :class:`UsageError` unless ``name`` is a version profile of the spec (:mod:`spec.versions`)."""
    from spec.versions import PROFILES

    check_choice(flag, name, sorted(PROFILES), "version profile")


def check_report_path(flag: str, path: Path) -> None:
    """Fails with :class:`UsageError` unless a report can be written at ``path``: its directory exists and takes a
    new file (probed by creating and removing one), or the file exists and opens for writing. Leaves nothing
    behind and changes no existing file, so it runs before the work whose report it is."""
    if path.is_dir():
        raise UsageError(f"{flag} {path}: is a directory, not a file")
    parent = path.parent
    if not parent.is_dir():
        raise UsageError(f"{flag} {path}: the directory {parent} does not exist")
    try:
        if path.exists():
            with path.open("a"):  # appends nothing: the file keeps its contents until the report replaces them
                pass
        else:
            with path.open("x"):
                pass
            os.unlink(path)
    except OSError as error:
        raise UsageError(f"{flag} {path}: cannot be written ({error.strerror or error})") from None


def cluster_error(console: Console, error: Exception, address: str | None) -> int:
    """One line and the exit status for a run on a Dask cluster (``--cluster``) that cannot go on: the engine is not
    installed (a usage error), a worker could not run its part, or the cluster cannot be reached; 2 in each case.
    Re-raises ``error`` when it is an ``OSError`` of a run without a cluster (then it is not the cluster's)."""
    if isinstance(error, EngineMissing):
        return usage_error(console, error)
    if isinstance(error, ClusterFailed):
        console.print(f"[bold red]the Dask cluster failed[/]: {escape(str(error))}", highlight=False)
        return 2
    if address is None:
        raise error
    # distributed's "Timed out trying to connect to tcp://..."
    console.print(f"[bold red]cannot reach the Dask cluster[/] {escape(address)}: {escape(str(error))}",
                  highlight=False)
    return 2
