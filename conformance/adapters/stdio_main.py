"""``python -m conformance.adapters.stdio_main [module:Class]``: serve an adapter over stdin and stdout.

Without an argument it serves the reference implementation, so the runner's subprocess path is tested end to
end with the same implementation as the in-process path.
"""

from __future__ import annotations

import sys

from conformance.adapters.refimpl_adapter import load_adapter
from conformance.protocol import serve


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    factory = load_adapter(args[0] if args else "refimpl")
    return serve(factory())


if __name__ == "__main__":
    sys.exit(main())
