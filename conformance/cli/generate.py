"""``ksspec conformance generate``: write every vector from the spec (:mod:`conformance.generate`) and the JSON Schemas
from the contract (:mod:`conformance.schemas`), or check them.
"""


from __future__ import annotations

import argparse
import time
from pathlib import Path

from rich.markup import escape

from conformance import generate, schemas
from conformance.console import make_console
from conformance.usage import usage_error


def conformance_generate(args: argparse.Namespace) -> int:
    """Generate every vector from the spec and write them with their manifest, and the JSON Schemas (vectors, protocol
    messages) from the contract (the directory is checked first; of its other files only vector files an earlier run
    wrote and no longer generates are removed); with --check, fail (exit 1, naming each drifted vector or schema) if
    the committed files differ from what the code generates."""
    console = make_console()
    directory: Path = args.directory
    if args.check and not directory.is_dir():
        return usage_error(console, f"--directory {directory}: no such directory")
    if not args.check:
        try:
            generate.prepare_directory(directory)
        except OSError as error:  # before the minute of generating, not after it
            reason = error.strerror or error
            return usage_error(console, f"--directory {directory}: cannot write the vectors ({reason})")
    started = time.perf_counter()
    vectors = generate.generate_all()
    if args.check:
        problems = generate.drift(vectors, directory) + schemas.schema_drift(args.schema_directory)
        for line in problems[:50]:
            console.print(f"[red]drift[/] {escape(line)}", highlight=False)
        if problems:
            console.print(f"[bold red]{len(problems)} difference(s)[/]: run `ksspec conformance generate` and commit")
            return 1
        console.print(f"[green]{len(vectors)} vectors match the spec[/] ({time.perf_counter() - started:.1f}s)")
        return 0
    try:
        generate.write(vectors, directory)
    except OSError as error:
        return usage_error(console, f"--directory {directory}: cannot write the vectors ({error.strerror or error})")
    try:
        schemas.write_schemas(args.schema_directory)
    except OSError as error:
        return usage_error(console, f"--schema-directory {args.schema_directory}: cannot write the schemas "
                                    f"({error.strerror or error})")
    console.print(f"wrote {len(vectors)} vectors to {directory} ({time.perf_counter() - started:.1f}s)")
    return 0
