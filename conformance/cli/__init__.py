"""The ``ksspec`` command line: :mod:`~conformance.cli.main` (the parser) and one module per subcommand, each of which
parses its arguments, calls the code of its area and prints."""
