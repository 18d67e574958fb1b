"""The one console every ``ksspec`` command prints through."""

from __future__ import annotations

import os
from typing import Final

from rich.console import Console

LOG_WIDTH: Final = 120
"""Columns used when the output is not a terminal and ``COLUMNS`` is unset: rich would otherwise wrap tables at 80
columns in CI logs."""


def make_console() -> Console:
    """A rich console: the terminal's width on a terminal, ``COLUMNS`` when set, else :data:`LOG_WIDTH`."""
    console = Console()
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(width=LOG_WIDTH)
    return console
