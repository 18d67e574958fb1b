"""Talking to an implementation: in-process, or a subprocess speaking JSON lines, with deadlines.

A :class:`Session` sends one request and returns its response, or raises :class:`AdapterFailure` with a message
that says what the adapter did wrong (crashed, hung, printed garbage, answered out of order or twice, spoke another
protocol version). After a failure the session is dead; the runner starts a new one for the next vector.

A subprocess adapter runs in a session (and process group) of its own, so that killing the group also kills what
the adapter started: a wrapper script that does not ``exec``, a child that keeps the adapter's stdout open. The
runner never waits on a pipe or a process without a deadline: one thread multiplexes the adapter's stdin, stdout
and stderr (and, on Linux, a pidfd that says when the adapter exited) with :mod:`selectors`.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shlex
import signal
import subprocess
import time
from collections import deque
from typing import Any, Protocol

from conformance import protocol
from conformance.bounded_json import json_problem
from conformance.protocol import PROTOCOL_VERSION, ProtocolError

JSON = Any
STDERR_TAIL = 5
"""How many of the adapter's last stderr lines a failure message quotes."""
STDERR_LINE_CHARS = 300
"""Each quoted stderr line is cut to this many characters."""
MAX_LINE_BYTES = 64 * 2**20
"""The longest response line the runner reads (an observation is a few kilobytes); a longer one is garbage."""
DEFAULT_STARTUP_TIMEOUT = 30.0
"""Seconds the hello request may take: the adapter's process is starting (a JVM, a ``go run``)."""
EXIT_GRACE = 1.0
"""Seconds an adapter may take to exit after ``bye``, and to be reaped after it is killed."""
POLL_INTERVAL = 0.05
"""Without a pidfd (not Linux), how often a wait checks whether the adapter exited."""
_READ_SIZE = 1 << 16


class AdapterFailure(Exception):
    """The adapter broke the protocol or died; the current vector gets an error and the session is restarted."""


class StaleAnswer(AdapterFailure):
    """A response with an earlier request's id (``request_id``) arrived while the runner waited for another: the
    adapter answered that earlier request twice, or answered this one with a wrong id."""

    def __init__(self, message: str, request_id: int) -> None:
        super().__init__(message)
        self.request_id = request_id


class Session(Protocol):
    def request(self, message: JSON) -> JSON: ...

    def close(self) -> None: ...


class GroupTracker(Protocol):
    """Told of every adapter process group a session starts and of each it has killed and reaped (a worker
    process reports them to the runner, which kills the groups of a worker that died)."""

    def started(self, pgid: int) -> None: ...

    def ended(self, pgid: int) -> None: ...


def split_command(command: str) -> list[str]:
    """The adapter command as an argument vector (shell quoting rules, no shell); fails with ``ValueError`` for
    an empty command or unbalanced quotes."""
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise ValueError(f"--adapter {command!r}: {error} (quote the command as a shell would)") from None
    if not argv:
        raise ValueError("--adapter: the command is empty")
    return argv


def check_response(request: JSON, response: JSON) -> JSON:
    """The response, if it answers ``request``; else :class:`AdapterFailure` saying how it does not (a
    :class:`StaleAnswer` if it answers an earlier request of this session)."""
    rid = response.get("id")
    if rid != request["id"]:
        message = (f"answered request {request['id']} ({request['type']}) with a response for id {rid!r} "
                   "(out of order)")
        if isinstance(rid, int) and not isinstance(rid, bool) and 1 <= rid < request["id"]:
            raise StaleAnswer(message, rid)
        raise AdapterFailure(message)
    if response.get("type") == "failure":
        raise AdapterFailure(f"adapter refused the {request['type']} request: {response.get('message', '')}")
    return response


def _is_str_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def handshake(session: Session) -> JSON:
    """Send ``hello``; return the adapter's response or fail on a protocol version mismatch or capabilities that
    are not ``{"areas": [str, ...], "profiles": [str, ...]}`` (``profiles`` may be left out: then none)."""
    request = protocol.hello_request(1)
    response = check_response(request, session.request(request))
    if response.get("type") != "hello":
        raise AdapterFailure(f"expected a hello response, got {response.get('type')!r}")
    version = response.get("protocol_version")
    if version != PROTOCOL_VERSION:
        raise AdapterFailure(f"adapter speaks protocol version {version!r}; this runner speaks {PROTOCOL_VERSION!r}")
    capabilities = response.get("capabilities")
    if not isinstance(capabilities, dict) or not _is_str_list(capabilities.get("areas")):
        raise AdapterFailure("hello response has no capabilities.areas list of strings")
    if "profiles" in capabilities and not _is_str_list(capabilities["profiles"]):
        raise AdapterFailure(
            f"hello response's capabilities.profiles must be a list of strings, got {capabilities['profiles']!r}")
    return response


class InProcessSession:
    """An adapter object in this process; an exception it raises is reported as a crash."""

    def __init__(self, adapter: protocol.Adapter) -> None:
        self.adapter = adapter

    def request(self, message: JSON) -> JSON:
        try:
            response = protocol.handle(self.adapter, message)
        except Exception as error:  # the implementation crashed
            raise AdapterFailure(f"adapter raised {type(error).__name__}: {error}") from error
        except SystemExit as stop:  # sys.exit() in the implementation ends neither the run nor its reports
            raise AdapterFailure(f"adapter called sys.exit({stop.code!r}) (an in-process adapter must not exit)") \
                from None
        problem = json_problem(response)  # what a stdio adapter could not have sent: the runner reads JSON only
        if problem is not None:
            raise AdapterFailure(f"adapter answered with something other than JSON the runner reads: {problem}")
        return response

    def close(self) -> None:
        pass


class SubprocessSession:
    """An adapter command in its own process group; each request waits at most ``timeout`` seconds for its
    response line (the hello request ``startup_timeout``), and closing or killing the session kills the group."""

    def __init__(self, command: str, timeout: float, startup_timeout: float = DEFAULT_STARTUP_TIMEOUT, *,
                 groups: GroupTracker | None = None) -> None:
        self.command = command
        self.timeout = timeout
        self.startup_timeout = startup_timeout  # as given: a shorter one than ``timeout`` is meant
        self.groups = groups
        try:
            argv = split_command(command)
            self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=subprocess.PIPE, start_new_session=True)
        except (OSError, ValueError) as error:
            raise AdapterFailure(f"cannot start adapter {command!r}: {error}") from None
        self.pgid = self.process.pid  # start_new_session: the adapter leads its own session and group
        if groups is not None:
            groups.started(self.pgid)
        self.selector = selectors.DefaultSelector()
        assert self.process.stdin is not None and self.process.stdout is not None and self.process.stderr is not None
        self._stdin, self._stdout, self._stderr = self.process.stdin, self.process.stdout, self.process.stderr
        for stream in (self._stdin, self._stdout, self._stderr):
            os.set_blocking(stream.fileno(), False)
        self.selector.register(self._stdout, selectors.EVENT_READ, "out")
        self.selector.register(self._stderr, selectors.EVENT_READ, "err")
        self._pidfd: int | None = None
        with contextlib.suppress(AttributeError, OSError):  # os.pidfd_open: Linux 5.3 and later
            self._pidfd = os.pidfd_open(self.process.pid)
            self.selector.register(self._pidfd, selectors.EVENT_READ, "exit")
        self._out = bytearray()
        self._scanned = 0  # bytes of _out known to hold no newline
        self._lines: deque[bytes] = deque()
        self._err = bytearray()
        self.stderr: deque[str] = deque(maxlen=STDERR_TAIL)
        self._stdout_open = self._stderr_open = True
        self._exited = False
        self._killed = False

    # -- reading and writing with a deadline --------------------------------------------------

    def _feed_stdout(self, chunk: bytes) -> None:
        self._out += chunk
        while (end := self._out.find(b"\n", self._scanned)) >= 0:
            self._lines.append(bytes(self._out[:end]))
            del self._out[:end + 1]
            self._scanned = 0
        self._scanned = len(self._out)
        if len(self._out) > MAX_LINE_BYTES:
            raise AdapterFailure(f"adapter printed a line longer than {MAX_LINE_BYTES:,} bytes without a newline")

    def _feed_stderr(self, chunk: bytes) -> None:
        self._err += chunk
        *complete, rest = self._err.split(b"\n")
        for line in complete:
            self.stderr.append(line.decode("utf-8", "replace").rstrip()[:STDERR_LINE_CHARS])
        self._err = bytearray(rest[:STDERR_LINE_CHARS * 4])  # a flood without newlines is cut, never buffered

    def _read(self, key: selectors.SelectorKey) -> bool:
        """Read what one ready stream holds (an empty read is its end of file); whether there was more to read."""
        try:
            chunk = os.read(key.fd, _READ_SIZE)
        except BlockingIOError:
            return False
        except OSError:
            chunk = b""
        if not chunk:
            self.selector.unregister(key.fileobj)
            if key.data == "out":
                self._stdout_open = False
            else:
                self._stderr_open = False
            return False
        if key.data == "out":
            self._feed_stdout(chunk)
        else:
            self._feed_stderr(chunk)
        return True

    def _drain(self) -> None:
        """Read whatever the adapter has already written to stdout and stderr, without waiting."""
        for key in list(self.selector.get_map().values()):
            if key.data in ("out", "err"):
                for _ in range(64):  # bounded: a flooding adapter never stops the runner here
                    if not self._read(key):
                        break

    def _poll_exit(self) -> bool:
        """Whether the adapter process has exited (it is not reaped, so its group id stays taken)."""
        if not self._exited:
            with contextlib.suppress(ChildProcessError):
                result = os.waitid(os.P_PID, self.process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
                self._exited = result is not None or self.process.returncode is not None
        return self._exited

    def _exchange(self, data: bytes, deadline: float) -> bytes:
        """Write ``data`` to the adapter's stdin and return its next stdout line, draining stderr meanwhile."""
        outgoing = memoryview(data)
        if outgoing:
            self.selector.register(self._stdin, selectors.EVENT_WRITE, "in")
        try:
            while True:
                if not outgoing and self._lines:
                    return self._lines.popleft()
                if not self._stdout_open or self._exited:
                    self._drain()
                    if not outgoing and self._lines:
                        return self._lines.popleft()
                    raise self._died()
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError
                wait = remaining if self._pidfd is not None else min(remaining, POLL_INTERVAL)
                for key, _ in self.selector.select(wait):
                    if key.data == "in":
                        try:
                            written = os.write(key.fd, outgoing)
                        except BlockingIOError:
                            continue
                        except OSError:  # BrokenPipeError: the adapter closed its stdin or died
                            raise self._died() from None
                        outgoing = outgoing[written:]
                        if not outgoing:
                            self.selector.unregister(self._stdin)
                    elif key.data == "exit":
                        self._exited = True
                        self.selector.unregister(key.fileobj)
                    else:
                        self._read(key)
                if self._pidfd is None:
                    self._poll_exit()
        finally:
            self._stop_writing()

    def _stop_writing(self) -> None:
        if not self._killed and self._stdin in (key.fileobj for key in self.selector.get_map().values()):
            self.selector.unregister(self._stdin)

    def _died(self) -> AdapterFailure:
        """The failure for an adapter that exited, or closed its stdin or stdout, before answering; it is
        killed (after at most :data:`EXIT_GRACE` to exit by itself, so that its exit code can be quoted)."""
        self._stop_writing()
        self._wait_exit(EXIT_GRACE)
        self._drain()
        code = self._exit_code()
        tail = " | ".join(self.stderr)
        if code is not None:
            what = f"adapter exited (code {code}) before answering"
        else:
            what = f"adapter closed its {'stdout' if not self._stdout_open else 'stdin'} before answering"
        self.kill()
        return AdapterFailure(what + (f"; stderr: {tail}" if tail else ""))

    def _exit_code(self) -> int | None:
        """The exit code (negative: killed by that signal) once the adapter exited, without reaping it."""
        if self.process.returncode is not None:
            return self.process.returncode
        with contextlib.suppress(ChildProcessError):
            result = os.waitid(os.P_PID, self.process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            if result is not None:
                return -result.si_status if result.si_code in (os.CLD_KILLED, os.CLD_DUMPED) else result.si_status
        return None

    def _wait_exit(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the adapter to exit (without reaping it); whether it did."""
        deadline = time.monotonic() + seconds
        while not self._poll_exit():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if self._pidfd is not None and self._pidfd in (k.fileobj for k in self.selector.get_map().values()):
                for key, _ in self.selector.select(remaining):
                    if key.data == "exit":
                        self._exited = True
                        self.selector.unregister(key.fileobj)
                    elif key.data != "in":
                        self._read(key)
            else:
                time.sleep(min(remaining, POLL_INTERVAL))
        return True

    # -- the Session protocol -------------------------------------------------------------------

    def request(self, message: JSON, *, send: bool = True) -> JSON:
        if self._killed:
            raise AdapterFailure("the adapter was killed after an earlier failure")
        timeout = self.startup_timeout if message["type"] == "hello" else self.timeout
        data = (protocol.encode(message) + "\n").encode("utf-8", "surrogatepass") if send else b""
        try:
            line = self._exchange(data, time.monotonic() + timeout)
        except TimeoutError:
            self.kill()
            raise AdapterFailure(
                f"adapter did not answer the {message['type']} request within {timeout:g} s (hung); killed it"
            ) from None
        except AdapterFailure:
            self.kill()
            raise
        try:
            return protocol.decode(line.decode("utf-8", "replace"))
        except ProtocolError as error:
            self.kill()
            raise AdapterFailure(f"adapter printed garbage: {error}") from None

    def receive(self, message: JSON) -> JSON:
        """Read one more response line for ``message`` (already sent), within its timeout: after an answer that
        carried an earlier request's id, whether the right one follows."""
        return self.request(message, send=False)

    def unsolicited(self) -> list[bytes]:
        """Lines the adapter has written beyond the responses read so far (read without waiting)."""
        if not self._killed:
            self._drain()
        return list(self._lines)

    def kill(self) -> None:
        """Kill the adapter's whole process group, reap the adapter, and close the pipes. Idempotent."""
        if self._killed:
            return
        self._killed = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pgid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=EXIT_GRACE)
        self.selector.close()
        for stream in (self._stdin, self._stdout, self._stderr):
            with contextlib.suppress(OSError):
                stream.close()
        if self._pidfd is not None:
            with contextlib.suppress(OSError):
                os.close(self._pidfd)
        if self.groups is not None:
            self.groups.ended(self.pgid)

    def close(self) -> None:
        """Say bye (waiting at most :data:`EXIT_GRACE` for the answer and the exit), then kill the group, so
        nothing the adapter started outlives it."""
        if not self._killed and not self._exited:
            with contextlib.suppress(AdapterFailure, TimeoutError, OSError, ValueError):
                data = (protocol.encode({"type": "bye", "id": 0}) + "\n").encode()
                self._exchange(data, time.monotonic() + min(self.timeout, EXIT_GRACE))
                self._wait_exit(EXIT_GRACE)
        self.kill()
