"""A stdio adapter that misbehaves on purpose: ``python -m tests.conformance.adversarial.adversary MODE [PREFIX]``.

It serves the reference implementation, except as :data:`MODES` says; a *victim* is a vector whose id starts with
PREFIX (default ``cache.forget``). It writes its pid (and those of the processes it starts) into the directory
``$ADVERSARY_PIDS``, so the test can check that none outlives the run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from conformance.adapters.refimpl_adapter import RefimplAdapter
from conformance.protocol import decode, handle

MODES = {
    "serve": "behaves (a wrapper row runs it through sh -c without exec)",
    "hang-step": "hangs at the first step of each victim",
    "spawn-then-crash": "starts a child that keeps its stdout open, then exits 3 at a victim's first step",
    "hang-hello": "never answers, not even hello",
    "ignore-eof": "answers bye but keeps running after it and after stdin closes",
    "control-failure": "answers a victim's first step with an error whose kind and message hold control characters "
                       "and a lone surrogate",
    "control-stderr": "writes control characters to stderr, then exits 3 at a victim's first step",
    "answer-twice": "answers a victim's step 2 (the last of every cache.forget vector) twice at once",
    "answer-twice-late": "answers a victim's step 2 twice, the second time 0.3 s later (while the next vector runs)",
    "bad-profiles": "says capabilities.profiles is null",
    "flood-stderr": "writes 8 MiB to stderr at each victim's first step, then answers",
    "huge-line": "pads each victim's first answer to a 4 MiB line",
    "slow": "takes 0.05 s per step",
    "deep-reply": "answers a victim's first step with an observation nested 200,000 levels deep",
    "huge-int": "answers a victim's first step with an integer of 5,000 digits",
    "setsid-child": "starts a child in a session of its own (setsid), which a process-group kill misses",
}


DEEP = 200_000
"""How deep the deep-reply mode nests (far beyond Python's recursion limit)."""


TWICE_AT = 2
"""The step the answer-twice modes answer twice: the last one of every ``cache.forget`` vector."""


def record_pid(pid: int) -> None:
    directory = os.environ.get("ADVERSARY_PIDS")
    if directory:
        (Path(directory) / str(pid)).write_text(str(os.getpgid(pid)) if pid == os.getpid() else "")


def send(response: Any) -> None:
    sys.stdout.write(json.dumps(response) + "\n")  # ASCII: a lone surrogate travels as the JSON escape \ud800
    sys.stdout.flush()


def main() -> int:
    mode = sys.argv[1]
    prefix = sys.argv[2] if len(sys.argv) > 2 else "cache.forget"
    record_pid(os.getpid())
    if mode == "spawn-then-crash":  # the child inherits stdout and stderr and outlives us
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
        record_pid(child.pid)
    if mode == "setsid-child":  # escapes the adapter's process group; only a subreaper finds it again
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"], start_new_session=True,
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        record_pid(child.pid)
    if mode == "hang-hello":
        time.sleep(3600)
    adapter = RefimplAdapter()
    victim = False
    step = 0
    vectors = 0
    for line in sys.stdin:
        request = decode(line)
        response = handle(adapter, request)
        kind = request["type"]
        if kind == "hello" and mode == "bad-profiles":
            response["capabilities"]["profiles"] = None
        if kind == "reset":
            victim = request["vector"].startswith(prefix)
            if mode == "slow" and vectors == 1 and os.environ.get("ADVERSARY_PROGRESS"):
                Path(os.environ["ADVERSARY_PROGRESS"]).touch()  # the first vector has ended: the run is under way
            vectors += 1
            step = 0
        if kind == "step":
            step += 1
            if mode == "slow":
                time.sleep(0.05)
            if victim and step == 1:
                if mode == "hang-step":
                    time.sleep(3600)
                if mode in ("spawn-then-crash", "control-stderr"):
                    sys.stderr.write("panic: \x1b[31mboom\x1b[0m\x00\x07 at step\n")
                    sys.stderr.flush()
                    return 3
                if mode == "control-failure":
                    response = {"type": "result", "id": request["id"], "status": "error", "kind": "Bogus\x01\x1b",
                                "message": "\x00\x1b[2J\ud800 bell \x07"}
                if mode == "flood-stderr":
                    for _ in range(128):
                        sys.stderr.write("x" * 65535 + "\n")
                    sys.stderr.flush()
                if mode == "huge-line":
                    response["padding"] = "p" * (4 * 2**20)
                if mode in ("deep-reply", "huge-int"):
                    value = "[" * DEEP + "]" * DEEP if mode == "deep-reply" else "7" * 5_000
                    sys.stdout.write(f'{{"type":"result","id":{request["id"]},"status":"ok","observation":'
                                     f'{{"nodes":{value}}}}}\n')
                    sys.stdout.flush()
                    continue
        if kind == "bye":
            send(response)
            if mode == "ignore-eof":
                time.sleep(3600)
            return 0
        send(response)
        if kind == "step" and victim and mode.startswith("answer-twice") and request["index"] == TWICE_AT:
            if mode == "answer-twice-late":
                time.sleep(0.3)
            send(response)
    if mode == "ignore-eof":
        time.sleep(3600)
    return 0


if __name__ == "__main__":
    sys.exit(main())
