"""Running ``ksspec`` subcommands in-process, as the tests do."""

from __future__ import annotations

import argparse

from conformance.cli.conform import register


def ksspec(*argv: str) -> int:
    """``ksspec conform ...`` / ``ksspec conformance ...`` in this process; returns the exit code."""
    parser = argparse.ArgumentParser(prog="ksspec")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code: int = args.handler(args)
    return code
