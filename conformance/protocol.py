"""The adapter protocol: JSON lines over an implementation's stdin and stdout.

One JSON object per line, UTF-8, each way. The runner sends a request and waits for its response before it
sends the next; every request carries an ``id`` (increasing from 1) that the response repeats.

Runner to adapter::

    {"type": "hello", "id": 1, "protocol_version": "1", "format_version": "1.0.0"}
    {"type": "reset", "id": 2, "vector": "cache.forget.twice.v1_35", "area": "cache", "profile": "v1.35", "ttl_ns": 0}
    {"type": "reset", ..., "area": "cycle", ..., "preemption": true}   # only for a vector with preemption
    {"type": "step", "id": 3, "index": 0, "op": "assume_pod", "args": {"pod": {...}}}
    {"type": "bye", "id": 9}

Adapter to runner::

    {"type": "hello", "id": 1, "protocol_version": "1", "implementation": "refimpl",
     "capabilities": {"areas": ["cache", "snapshot", "node_tree", "dispatcher"], "profiles": ["v1.35", ...]}}
    {"type": "ready", "id": 2}
    {"type": "result", "id": 3, "status": "ok" | "error" | "fatal", "kind": "PodNotAssumed", "message": "...",
     "observation": {...}}
    {"type": "bye", "id": 9}

``reset`` starts a fresh implementation instance; ``result`` reports how the step ended and, unless it was fatal,
the full observation after it (:mod:`conformance.observe`). An adapter that cannot do what a request asks answers
``{"type": "failure", "id": n, "message": "..."}``; the runner records it against the vector and goes on.
"""

from __future__ import annotations

import json
import sys
from typing import IO, Any, Final, Protocol

from conformance.bounded_json import loads
from conformance.format import FORMAT_VERSION

PROTOCOL_VERSION: Final = "1"
JSON = Any


class ProtocolError(Exception):
    """The other side broke the protocol; the message says how."""


class Adapter(Protocol):
    """What an implementation provides to be tested in-process (a stdio adapter wraps the same three calls)."""

    def hello(self) -> JSON:
        """``{"implementation": name, "capabilities": {"areas": [...], "profiles": [...]}}``."""
        ...

    def reset(self, area: str, profile: str, ttl_ns: int, preemption: bool = False) -> None:
        """Start a fresh instance (with DefaultPreemption as PostFilter if ``preemption``, cycle area); fails with
        ``ValueError`` for an area or profile it does not support."""
        ...

    def step(self, op: str, args: JSON) -> JSON:
        """Apply one operation: ``{"status", "kind"?, "message"?, "observation"?}``."""
        ...


def encode(message: JSON) -> str:
    """One protocol line (without the newline)."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


def decode(line: str) -> JSON:
    """Parse one line; fails with :class:`ProtocolError` if it is not a JSON object with a ``type``, or nests
    deeper than :data:`~conformance.bounded_json.MAX_DEPTH`, or holds an integer too long to read."""
    try:
        message = loads(line)
    except json.JSONDecodeError as error:
        raise ProtocolError(f"not a JSON line ({error.msg}): {_shown(line)}") from None
    except ValueError as error:
        raise ProtocolError(f"not a JSON line the runner reads ({error}): {_shown(line)}") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ProtocolError(f"not a protocol message (a JSON object with a 'type'): {line[:80]!r}")
    return message


def _shown(line: str) -> str:
    return repr(line if len(line) <= 80 else line[:77] + "...")


def handle(adapter: Adapter, request: JSON) -> JSON:
    """The response of ``adapter`` to one request (the loop shared by the in-process and stdio paths)."""
    kind, rid = request.get("type"), request.get("id")
    if kind == "hello":
        return {"type": "hello", "id": rid, "protocol_version": PROTOCOL_VERSION, **adapter.hello()}
    if kind == "reset":
        try:
            adapter.reset(request["area"], request["profile"], request["ttl_ns"], bool(request.get("preemption")))
        except ValueError as error:
            return {"type": "failure", "id": rid, "message": str(error)}
        return {"type": "ready", "id": rid}
    if kind == "step":
        return {"type": "result", "id": rid, **adapter.step(request["op"], request["args"])}
    if kind == "bye":
        return {"type": "bye", "id": rid}
    return {"type": "failure", "id": rid, "message": f"unknown request type {kind!r}"}


def serve(adapter: Adapter, stdin: IO[str] = sys.stdin, stdout: IO[str] = sys.stdout) -> int:
    """Answer requests from ``stdin`` until ``bye`` or end of input; returns the process exit code."""
    for line in stdin:
        if not line.strip():
            continue
        request = decode(line)
        response = handle(adapter, request)
        stdout.write(encode(response) + "\n")
        stdout.flush()
        if request["type"] == "bye":
            break
    return 0


def hello_request(request_id: int) -> JSON:
    return {"type": "hello", "id": request_id, "protocol_version": PROTOCOL_VERSION, "format_version": FORMAT_VERSION}
