"""``ksspec conformance export``: the vectors, their manifest and the JSON Schemas as one versioned archive.

Implementers in any language pin and run the suite from the archive without Python: it holds
``kube-scheduler-spec-conformance-<format_version>/`` with ``vectors/`` (every vector file and ``manifest.json``),
``schema/`` (``vector.schema.json``, ``protocol.schema.json``) and ``VERSION`` (the format and protocol versions).
The bytes depend only on the files: sorted entries, fixed times, owners and modes, and a gzip header without a
name or time, so two exports of the same vectors are identical (and so is their checksum).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import tarfile
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Final

from rich.markup import escape

from conformance.console import make_console
from conformance.format import SCHEMA_DIR, VECTORS_DIR, VectorFormatError, load_manifest, load_vectors
from conformance.protocol import PROTOCOL_VERSION
from conformance.report import write_atomically
from conformance.schemas import SCHEMA_FILES
from conformance.usage import check_report_path, usage_error

PREFIX: Final = "kube-scheduler-spec-conformance"


def archive_name(format_version: str) -> str:
    """``kube-scheduler-spec-conformance-<format_version>.tar.gz``."""
    return f"{PREFIX}-{format_version}.tar.gz"


def _entries(vectors: Traversable, schemas: Traversable, format_version: str) -> list[tuple[str, bytes]]:
    root = f"{PREFIX}-{format_version}"
    files = [p for p in vectors.iterdir() if p.name.endswith(".json") and not p.name.startswith(".")]
    entries = [(f"{root}/vectors/{p.name}", p.read_bytes()) for p in sorted(files, key=lambda p: p.name)]
    entries += [(f"{root}/schema/{name}", (schemas / name).read_bytes()) for name in sorted(SCHEMA_FILES)]
    version = f"format_version {format_version}\nprotocol_version {PROTOCOL_VERSION}\n".encode()
    return sorted([*entries, (f"{root}/VERSION", version)])


def archive_bytes(vectors: Traversable, schemas: Traversable) -> tuple[str, bytes]:
    """The archive's name and bytes for the vectors in ``vectors`` (checked first: every vector valid and matching
    its manifest) and the schemas in ``schemas``. Fails with
    :class:`conformance.format.VectorFormatError` for vectors that do not load, ``OSError`` for a missing file."""
    load_vectors(vectors)
    format_version = str(load_manifest(vectors).get("format_version", "unknown"))
    tar_buffer = io.BytesIO()
    with tarfile.open(fileobj=tar_buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in _entries(vectors, schemas, format_version):
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0) as gz:
        gz.write(tar_buffer.getvalue())
    return archive_name(format_version), out.getvalue()


def conformance_export(args: argparse.Namespace) -> int:
    """Write the vectors, their manifest and the JSON Schemas as one deterministic tar.gz (default name
    kube-scheduler-spec-conformance-<format_version>.tar.gz in the current directory) and print its sha256. Exit 0,
    or 2 when the vectors do not load or the archive cannot be written."""
    console = make_console()
    vectors: Path = args.vectors
    try:
        name, data = archive_bytes(vectors, args.schema_directory)
        output: Path = args.output if args.output is not None else Path(name)
        check_report_path("--output", output)
        write_atomically(output, data)
    except (VectorFormatError, ValueError, OSError) as error:
        return usage_error(console, error)
    console.print(f"wrote {escape(str(output))} ({len(data):,} bytes, sha256 {hashlib.sha256(data).hexdigest()})",
                  highlight=False)
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``ksspec conformance export``."""
    parser.add_argument("--output", type=Path, help="the archive to write (default: "
                        "kube-scheduler-spec-conformance-<format_version>.tar.gz here)")
    parser.add_argument("--vectors", type=Path, default=VECTORS_DIR, help="vector directory (default: %(default)s)")
    parser.add_argument("--schema-directory", type=Path, default=SCHEMA_DIR,
                        help="JSON Schema directory (default: %(default)s)")
    parser.set_defaults(handler=conformance_export)
