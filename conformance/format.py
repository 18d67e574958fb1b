"""Conformance vectors: the trace format, its JSON Schema, and reading and writing vector files.

A vector is data (``docs/conformance.md`` documents every field): a stable dotted id, a description, tags (area,
origin, the Kubernetes behaviours exercised, the version profiles the expectations hold for), the profile and TTL
to start the implementation with, the initial observation, and steps. Each step names an operation
(:data:`conformance.codec.OPERATIONS`), its arguments (spec objects as JSON, :mod:`conformance.codec`) and the
expected outcome: ``ok``, ``error`` with a normalised error kind, or ``fatal`` (the Kubernetes process exits; the
vector ends there). Error messages are information, never compared. Observations are JSON merge patches of the
previous step's full expected observation (:mod:`conformance.observe`).

The format has a semantic version: the major part changes with the format, the minor part with the coverage.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

import jsonschema

JSON = Any

FORMAT_VERSION: Final = "2.1.0"
"""Major: the format; minor: coverage; patch: fixes to expectations that do not change coverage.

2.0.0 (from 1.0.0) is a major bump: cache-area observations gained two keys every adapter must report
(``returned``, ``metrics``), so an adapter that conformed to 1.x fails every cache vector, and the schema gained
operations (``update_metrics`` and the cycle area's) that a 1.x runner's schema refuses. Coverage alone (new
vectors over existing operations and observations) would have been a minor bump.

2.1.0 is a minor bump: a new area, ``queue`` (the scheduling queue), with its own operations and observation. No
vector of an existing area changed, and an adapter that does not declare the area skips its vectors, so every
2.0 adapter conforms to 2.1 as it did."""
FORMAT_MAJOR: Final = FORMAT_VERSION.split(".")[0]

AREAS: Final = ("cache", "snapshot", "node_tree", "dispatcher", "cycle", "queue")
"""What a vector exercises; an implementation declares the areas it supports in its handshake."""
ORIGINS: Final = ("curated", "exploration", "random")
STATUSES: Final = ("ok", "error", "fatal")

PACKAGE_DIR: Final = Path(__file__).resolve().parent
SCHEMA_PATH: Final = PACKAGE_DIR / "schema" / "vector.schema.json"
VECTORS_DIR: Final = PACKAGE_DIR / "vectors"
MANIFEST_NAME: Final = "manifest.json"


class VectorFormatError(ValueError):
    """A vector (or vector file) is not valid; the message says which vector, where, and what is wrong."""


@dataclass(frozen=True)
class Expect:
    """The expected outcome of a step."""

    status: str
    kind: str | None = None
    message: str = ""
    """Kubernetes' message, for information only."""
    observation: JSON = None
    """A merge patch of the previous full observation; None exactly for ``fatal``."""


@dataclass(frozen=True)
class Step:
    op: str
    args: JSON
    expect: Expect


@dataclass(frozen=True)
class Tags:
    area: str
    origin: str
    behaviours: tuple[str, ...] = ()
    profiles: tuple[str, ...] = ()


@dataclass(frozen=True)
class Vector:
    id: str
    description: str
    tags: Tags
    profile: str
    ttl_ns: int
    initial_observation: JSON
    steps: tuple[Step, ...]
    format_version: str = FORMAT_VERSION

    def to_json(self) -> JSON:
        """The vector as the JSON object the schema describes (keys in a fixed order)."""
        steps = []
        for step in self.steps:
            expect: dict[str, JSON] = {"status": step.expect.status}
            if step.expect.kind is not None:
                expect["kind"] = step.expect.kind
            if step.expect.message:
                expect["message"] = step.expect.message
            if step.expect.observation is not None:
                expect["observation"] = step.expect.observation
            steps.append({"op": step.op, "args": step.args, "expect": expect})
        return {
            "format_version": self.format_version,
            "id": self.id,
            "description": self.description,
            "tags": {"area": self.tags.area, "origin": self.tags.origin,
                     "behaviours": list(self.tags.behaviours), "profiles": list(self.tags.profiles)},
            "profile": self.profile,
            "ttl_ns": self.ttl_ns,
            "initial_observation": self.initial_observation,
            "steps": steps,
        }

    def matches_tag(self, tag: str) -> bool:
        """Whether ``tag`` is this vector's area, origin, a behaviour, a profile, or a prefix of its id."""
        t = self.tags
        return tag in (t.area, t.origin) or tag in t.behaviours or tag in t.profiles or self.id.startswith(tag)


@cache
def schema() -> JSON:
    """The vector JSON Schema (``conformance/schema/vector.schema.json``)."""
    loaded: JSON = json.loads(SCHEMA_PATH.read_text())
    return loaded


@cache
def _validator() -> jsonschema.protocols.Validator:
    cls = jsonschema.validators.validator_for(schema())
    cls.check_schema(schema())
    validator: jsonschema.protocols.Validator = cls(schema())
    return validator


def schema_errors(data: JSON) -> list[str]:
    """Every schema violation in ``data``, as "at <path>: <what>" lines; [] if it is a valid vector."""
    errors = sorted(_validator().iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    return [f"at {e.json_path}: {e.message}" for e in errors]


def vector_from_json(data: JSON, where: str = "vector") -> Vector:
    """Validate ``data`` against the schema and the format version, and read it; fails with
    :class:`VectorFormatError` naming the vector and each violation."""
    name = data.get("id", where) if isinstance(data, dict) else where
    problems = schema_errors(data)
    if problems:
        raise VectorFormatError(f"{where}: vector {name!r} is not valid:\n  " + "\n  ".join(problems[:10]))
    if data["format_version"].split(".")[0] != FORMAT_MAJOR:
        raise VectorFormatError(
            f"{where}: vector {name!r} has format version {data['format_version']}; this runner reads "
            f"{FORMAT_MAJOR}.x. Use a runner of the vector's major version or regenerate the vectors."
        )
    tags = data["tags"]
    steps = tuple(
        Step(s["op"], s["args"], Expect(s["expect"]["status"], s["expect"].get("kind"),
                                        s["expect"].get("message", ""), s["expect"].get("observation")))
        for s in data["steps"]
    )
    return Vector(
        id=data["id"], description=data["description"],
        tags=Tags(tags["area"], tags["origin"], tuple(tags["behaviours"]), tuple(tags["profiles"])),
        profile=data["profile"], ttl_ns=data["ttl_ns"], initial_observation=data["initial_observation"],
        steps=steps, format_version=data["format_version"],
    )


def canonical_bytes(data: JSON) -> bytes:
    """The bytes a vector's checksum is taken over: sorted keys, no whitespace, UTF-8."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def checksum(vector: Vector) -> str:
    """The sha256 of the vector's canonical JSON."""
    return hashlib.sha256(canonical_bytes(vector.to_json())).hexdigest()


def file_name(vector: Vector) -> str:
    """Vectors are grouped one file per area and origin: ``<area>.<origin>.json``."""
    return f"{vector.tags.area}.{vector.tags.origin}.json"


def render_files(vectors: Sequence[Vector]) -> dict[str, str]:
    """The contents of every vector file and of the manifest, by file name."""
    groups: dict[str, list[Vector]] = {}
    for vector in sorted(vectors, key=lambda v: v.id):
        groups.setdefault(file_name(vector), []).append(vector)
    files = {
        name: json.dumps({"format_version": FORMAT_VERSION, "vectors": [v.to_json() for v in group]},
                         indent=1, ensure_ascii=False) + "\n"
        for name, group in sorted(groups.items())
    }
    manifest = {
        "format_version": FORMAT_VERSION,
        "generated_by": "ksspec conformance generate",
        "vectors": [
            {"id": v.id, "file": file_name(v), "area": v.tags.area, "origin": v.tags.origin,
             "behaviours": list(v.tags.behaviours), "profiles": list(v.tags.profiles), "steps": len(v.steps),
             "sha256": checksum(v)}
            for v in sorted(vectors, key=lambda v: v.id)
        ],
    }
    files[MANIFEST_NAME] = json.dumps(manifest, indent=1) + "\n"
    return files


def load_manifest(directory: Path = VECTORS_DIR) -> JSON:
    path = directory / MANIFEST_NAME
    if not path.is_file():
        raise VectorFormatError(f"no manifest at {path}; run `ksspec conformance generate` first")
    manifest: JSON = json.loads(path.read_text())
    return manifest


def iter_vector_files(directory: Path = VECTORS_DIR) -> Iterator[tuple[str, JSON]]:
    for path in sorted(directory.glob("*.json")):
        if path.name != MANIFEST_NAME:
            yield path.name, json.loads(path.read_text())


def load_vectors(directory: Path = VECTORS_DIR, *, verify_checksums: bool = True) -> list[Vector]:
    """Every vector in ``directory``, validated; with ``verify_checksums``, each must match its manifest entry.

    Fails with :class:`VectorFormatError` for an invalid vector, a duplicate id, a vector missing from the
    manifest (or the reverse), or a checksum mismatch.
    """
    manifest = {entry["id"]: entry for entry in load_manifest(directory)["vectors"]}
    vectors: list[Vector] = []
    seen: set[str] = set()
    for name, content in iter_vector_files(directory):
        for index, data in enumerate(content.get("vectors", [])):
            vector = vector_from_json(data, f"{name}[{index}]")
            if vector.id in seen:
                raise VectorFormatError(f"{name}: duplicate vector id {vector.id!r}")
            seen.add(vector.id)
            if verify_checksums:
                entry = manifest.get(vector.id)
                if entry is None:
                    raise VectorFormatError(f"{name}: vector {vector.id!r} is not in the manifest")
                if entry["sha256"] != checksum(vector):
                    raise VectorFormatError(
                        f"{name}: vector {vector.id!r} does not match its manifest checksum; "
                        "regenerate with `ksspec conformance generate`"
                    )
            vectors.append(vector)
    missing = sorted(set(manifest) - seen)
    if verify_checksums and missing:
        raise VectorFormatError(f"the manifest lists vectors no file holds: {', '.join(missing[:10])}")
    return vectors
