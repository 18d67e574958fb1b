"""Talking to an implementation: in-process, or a subprocess speaking JSON lines, with timeouts.

A :class:`Session` sends one request and returns its response, or raises :class:`AdapterFailure` with a message
that says what the adapter did wrong (crashed, hung, printed garbage, answered out of order, spoke another
protocol version). After a failure the session is dead; the runner starts a new one for the next vector.
"""

from __future__ import annotations

import contextlib
import queue
import shlex
import subprocess
import threading
from collections import deque
from typing import Any, Protocol

from conformance import protocol
from conformance.protocol import PROTOCOL_VERSION, ProtocolError

JSON = Any
STDERR_TAIL = 5


class AdapterFailure(Exception):
    """The adapter broke the protocol or died; the current vector gets an error and the session is restarted."""


class Session(Protocol):
    def request(self, message: JSON) -> JSON: ...

    def close(self) -> None: ...


def check_response(request: JSON, response: JSON) -> JSON:
    """The response, if it answers ``request``; else :class:`AdapterFailure` saying how it does not."""
    if response.get("id") != request["id"]:
        raise AdapterFailure(
            f"answered request {request['id']} ({request['type']}) with a response for id {response.get('id')!r} "
            "(out of order)"
        )
    if response.get("type") == "failure":
        raise AdapterFailure(f"adapter refused the {request['type']} request: {response.get('message', '')}")
    return response


def handshake(session: Session) -> JSON:
    """Send ``hello``; return the adapter's capabilities or fail on a protocol version mismatch."""
    request = protocol.hello_request(1)
    response = check_response(request, session.request(request))
    if response.get("type") != "hello":
        raise AdapterFailure(f"expected a hello response, got {response.get('type')!r}")
    version = response.get("protocol_version")
    if version != PROTOCOL_VERSION:
        raise AdapterFailure(f"adapter speaks protocol version {version!r}; this runner speaks {PROTOCOL_VERSION!r}")
    capabilities = response.get("capabilities")
    if not isinstance(capabilities, dict) or not isinstance(capabilities.get("areas"), list):
        raise AdapterFailure("hello response has no capabilities.areas list")
    return response


class InProcessSession:
    """An adapter object in this process; an exception it raises is reported as a crash."""

    def __init__(self, adapter: protocol.Adapter) -> None:
        self.adapter = adapter

    def request(self, message: JSON) -> JSON:
        try:
            return protocol.handle(self.adapter, message)
        except Exception as error:  # the implementation crashed
            raise AdapterFailure(f"adapter raised {type(error).__name__}: {error}") from error

    def close(self) -> None:
        pass


class SubprocessSession:
    """An adapter command; each request waits at most ``timeout`` seconds for its response line."""

    def __init__(self, command: str, timeout: float, startup_timeout: float = 30.0) -> None:
        self.command = command
        self.timeout = timeout
        self.startup_timeout = max(timeout, startup_timeout)
        """The hello request may take longer: the adapter's process is starting."""
        try:
            self.process = subprocess.Popen(
                shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, encoding="utf-8", errors="replace", bufsize=1,
            )
        except OSError as error:
            raise AdapterFailure(f"cannot start adapter {command!r}: {error}") from None
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.stderr: deque[str] = deque(maxlen=STDERR_TAIL)
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr.append(line.rstrip())

    def _died(self) -> AdapterFailure:
        try:
            code = self.process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            code = None
        tail = " | ".join(self.stderr)
        return AdapterFailure(f"adapter exited (code {code}) before answering" + (f"; stderr: {tail}" if tail else ""))

    def request(self, message: JSON) -> JSON:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(protocol.encode(message) + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._died() from None
        timeout = self.startup_timeout if message["type"] == "hello" else self.timeout
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            self.kill()
            raise AdapterFailure(
                f"adapter did not answer the {message['type']} request within {timeout:g} s (hung); killed it"
            ) from None
        if line is None:
            raise self._died()
        try:
            return protocol.decode(line)
        except ProtocolError as error:
            raise AdapterFailure(f"adapter printed garbage: {error}") from None

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=2)

    def close(self) -> None:
        """Say bye, then make sure the process is gone."""
        if self.process.poll() is None:
            with contextlib.suppress(AdapterFailure, OSError, ValueError):
                self.request({"type": "bye", "id": 0})
        self.kill()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
