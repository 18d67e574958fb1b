"""A stdio adapter that misbehaves on purpose: ``python -m tests.conformance.broken_adapter MODE PREFIX``.

It serves the reference implementation, except that on the first step of every vector whose id starts with
PREFIX it crashes (exit 3), hangs, prints garbage, or answers with a wrong id; in mode ``version`` its hello names
another protocol version.
"""

from __future__ import annotations

import sys
import time

from conformance.adapters.refimpl_adapter import RefimplAdapter
from conformance.protocol import decode, encode, handle


def main() -> int:
    mode, prefix = sys.argv[1], sys.argv[2]
    adapter = RefimplAdapter()
    armed = False
    for line in sys.stdin:
        request = decode(line)
        response = handle(adapter, request)
        if request["type"] == "hello" and mode == "version":
            response["protocol_version"] = "0"
        if request["type"] == "reset":
            armed = request["vector"].startswith(prefix)
        if request["type"] == "step" and armed:
            armed = False
            if mode == "crash":
                sys.stderr.write("panic: runtime error: index out of range\n")
                return 3
            if mode == "hang":
                time.sleep(60)
            if mode == "garbage":
                sys.stdout.write("I0101 12:00:00 log line on stdout\n")
                sys.stdout.flush()
                continue
            if mode == "order":
                response["id"] = request["id"] - 1
        sys.stdout.write(encode(response) + "\n")
        sys.stdout.flush()
        if request["type"] == "bye":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
