"""``ksspec COMMAND ...`` imports only the module of COMMAND: its command line parses exactly as with every
subcommand registered (the same namespace, the same handler's code), for every row of ``ksspec verify`` and a few
more."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conformance.cli.main import COMMAND_MODULES, MODULE_OF_COMMAND, build_parser
from conformance.cli.verify import FAST_CHECKS, THOROUGH_CHECKS

COMMAND_LINES = sorted({check.command for check in (*FAST_CHECKS, *THOROUGH_CHECKS) if check.command} | {
    ("conformance", "coverage"), ("simulate", "--help"), ("report", "--help"), ("verify", "--thorough", "-j", "1"),
    ("check", "--no-such-option"), ("prove", "--only", "cache"),
})


@pytest.mark.parametrize("argv", COMMAND_LINES, ids=" ".join)
def test_one_command_parses_as_with_every_command(argv: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    def parse(command: str | None) -> tuple[object, str]:
        try:
            namespace = vars(build_parser(command).parse_args(argv))
            handler = namespace.pop("handler")  # a lambda made by each register() call: compare its code
            return {**namespace, "handler": handler.__code__}, ""
        except SystemExit as exit_:
            return exit_.code, capsys.readouterr().out + capsys.readouterr().err

    assert parse(argv[0]) == parse(None)


def test_every_command_has_its_module() -> None:
    assert set(MODULE_OF_COMMAND.values()) == set(COMMAND_MODULES)
    assert {action.dest for action in build_parser()._subparsers._group_actions} == {"command"}  # type: ignore[union-attr]
    choices = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert set(choices) == set(MODULE_OF_COMMAND)  # type: ignore[arg-type]


def test_a_check_row_does_not_import_the_conform_runner() -> None:
    script = ("import contextlib, sys\nfrom conformance.cli.main import main\n"
              "with contextlib.suppress(SystemExit):\n    main(['check', '--system', 'cycle', '--help'])\n"
              "print('conformance.runner' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert result.stdout.strip().splitlines()[-1] == "False"
