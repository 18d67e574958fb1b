"""The ``ksspec`` command line, the project's front door: the parser, ``--version``, and one module per subcommand.

``verify`` (:mod:`conformance.cli.verify`), ``prove`` (:mod:`conformance.cli.prove`), ``check``
(:mod:`conformance.cli.check`), ``conformance generate`` (:mod:`conformance.cli.generate`), ``conformance coverage``
(:mod:`conformance.cli.coverage`), ``conform`` (:mod:`conformance.cli.conform`), ``simulate``
(:mod:`conformance.cli.simulate`) and ``report`` (:mod:`conformance.cli.report`) each parse their arguments, call the
code of their area and print.
"""


from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import sys
from collections.abc import Callable, Sequence
from typing import Any, Final

from conformance.arguments import ArgumentParser
from conformance.format import VECTORS, VectorFormatError, load_manifest
from conformance.usage import EXIT_USAGE

DISTRIBUTION: Final = "kube-scheduler-spec"
COMMAND_MODULES: Final = ("verify", "prove", "check", "conform", "simulate", "report")
"""The modules under ``conformance.cli`` that register the subcommands, in the order ``ksspec --help`` lists them."""
MODULE_OF_COMMAND: Final = {"verify": "verify", "prove": "prove", "check": "check", "conform": "conform",
                            "conformance": "conform", "simulate": "simulate", "report": "report"}
"""The module that registers each subcommand: ``ksspec COMMAND ...`` imports only that one (the others import Z3,
the runner, the simulator: about a CPU-second that ``ksspec verify``'s rows paid once each)."""


def version_text() -> tuple[str, int]:
    """``ksspec --version``: the package version and the format version of the vectors it carries (their
    manifest's), and where they are; exit code 2 if the vectors cannot be read."""
    try:
        package = importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        package = "(not installed)"
    try:
        manifest = load_manifest()
    except VectorFormatError as error:
        return f"ksspec {package}; error: {error}", EXIT_USAGE
    count = len(manifest["vectors"])
    return f"ksspec {package}; vectors format_version {manifest.get('format_version')} ({count} vectors, {VECTORS})", 0


class VersionAction(argparse.Action):
    """``--version``: print :func:`version_text` and exit (computed only when asked for)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        text, code = version_text()
        print(text)
        parser.exit(code)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``ksspec`` parser with every subcommand; with ``command`` the name of one, with that subcommand alone (the
    parse of a command line that starts with it is the same, without importing the other subcommands' modules)."""
    parser = ArgumentParser(
        prog="ksspec",
        description="Check the kube-scheduler cache specification, reference implementation and conformance.",
    )
    parser.add_argument("--version", action=VersionAction,
                        help="print the package version and the vectors' format version, and exit")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    modules = (MODULE_OF_COMMAND[command],) if command in MODULE_OF_COMMAND else COMMAND_MODULES
    for module in modules:
        importlib.import_module(f"conformance.cli.{module}").register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(arguments[0] if arguments else None).parse_args(arguments)
    handler: Callable[[argparse.Namespace], int] = args.handler
    return handler(args)


if __name__ == "__main__":
    from conformance.interrupts import Interrupts, run_main

    with Interrupts() as interrupts:
        sys.exit(run_main(main, interrupts))
