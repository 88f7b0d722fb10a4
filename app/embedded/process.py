"""A server child process: start it, wait until it answers, stop it within a deadline."""

import os
import random
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from app import log

logger = log.get("embedded")

POLL_INTERVAL = 0.02
"""Seconds between readiness probes while a server starts."""
LOG_TAIL_BYTES = 2000
"""How much of a server's log an error quotes."""
EPHEMERAL_RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")
"""Where Linux says which ports outgoing connections take."""
DEFAULT_EPHEMERAL_RANGE = (32768, 60999)
"""Linux's default ephemeral range, assumed where the file cannot be read."""
FIRST_KEPT_PORT = 20000
"""The lowest port `free_port` picks (below it sit the usual services: 4222, 6379, 8080)."""
PORT_PICKS = 50
"""Ports `free_port` tries below the ephemeral range before asking the kernel."""


class EmbeddedError(RuntimeError):
    """A local server could not be found, started or reached; the text says what to do."""


def ephemeral_range(path: Path = EPHEMERAL_RANGE_FILE) -> tuple[int, int]:
    """The ports the kernel hands out as source ports of outgoing connections."""
    try:
        low, high = (int(part) for part in path.read_text().split())
    except (OSError, ValueError):
        return DEFAULT_EPHEMERAL_RANGE
    return low, high


def free_port(host: str, *, ephemeral: tuple[int, int] | None = None) -> int:
    """A TCP port that was free on `host` a moment ago (the caller retries on a clash).

    It is picked below the kernel's ephemeral range, so a server started again on it after a
    crash cannot find it taken by an outgoing connection's source port; the kernel's own
    pick is the fallback when nothing there is free.
    """
    low, _ = ephemeral or ephemeral_range()
    candidates = range(FIRST_KEPT_PORT, low)
    for port in random.sample(candidates, min(PORT_PICKS, len(candidates))):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind((host, port))
            except OSError:
                continue
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        picked: int = sock.getsockname()[1]
        return picked


def log_tail(path: Path) -> str:
    """The last lines of a server log, for an error message."""
    try:
        with path.open("rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - LOG_TAIL_BYTES))
            return f.read().decode("utf-8", "replace").strip()
    except OSError:
        return "(no log)"


class ServerProcess:
    """One child process writing to a log file; `stop` ends it, politely first."""

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        log_path: Path,
        *,
        env: Mapping[str, str] | None = None,
    ) -> None:
        """Start `argv`; `env` adds to (or overrides) this process's environment."""
        self.name = name
        self.log_path = log_path
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with log_path.open("ab") as out:
            # A session of its own: Ctrl-C in a terminal reaches `sluice up`, which then
            # stops its servers in order, instead of killing them under running workers.
            self._proc = subprocess.Popen(
                list(argv),
                env=None if env is None else {**os.environ, **env},
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    @property
    def pid(self) -> int:
        return self._proc.pid

    @property
    def exit_code(self) -> int | None:
        return self._proc.poll()

    def wait_ready(self, probe: Callable[[], bool], *, timeout: float, what: str) -> None:
        """Poll `probe` until it is true; EmbeddedError if the process exits or time runs out."""
        deadline = time.monotonic() + timeout
        while True:
            code = self._proc.poll()
            if code is not None:
                raise EmbeddedError(
                    f"{self.name} exited with code {code} before it answered on {what}; "
                    f"its log ({self.log_path}) ends with:\n{log_tail(self.log_path)}"
                )
            if probe():
                return
            if time.monotonic() > deadline:
                self.stop()
                raise EmbeddedError(
                    f"{self.name} did not answer on {what} within {timeout:g} s; "
                    f"its log ({self.log_path}) ends with:\n{log_tail(self.log_path)}"
                )
            time.sleep(POLL_INTERVAL)

    def kill(self) -> None:
        """SIGKILL at once and reap (a crash, for fault tests). Safe to call twice."""
        if self._proc.poll() is not None:
            return
        self._proc.kill()
        self._proc.wait()
        logger.info("server.killed", server=self.name, pid=self.pid)

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM, wait up to `timeout` seconds, then SIGKILL. Safe to call twice."""
        if self._proc.poll() is not None:
            return
        self._proc.send_signal(signal.SIGTERM)
        try:
            self._proc.wait(timeout)
        except subprocess.TimeoutExpired:
            logger.warning("server.killed", server=self.name, pid=self.pid, after_s=timeout)
            self._proc.kill()
            self._proc.wait()
        logger.info("server.stopped", server=self.name, pid=self.pid, code=self._proc.returncode)


def ask(
    host: str,
    port: int,
    request: bytes,
    *,
    complete: Callable[[bytes], bool],
    timeout: float = 0.5,
    limit: int = 64 * 1024,
) -> bytes | None:
    """A TCP server's reply to `request`, read until `complete` says it is whole.

    None if the server is not there, goes silent or closes first; at most `limit` bytes.
    """
    reply = b""
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(request)
            while not complete(reply):
                chunk = sock.recv(limit)
                if not chunk or len(reply) + len(chunk) > limit:
                    return None
                reply += chunk
    except OSError:
        return None
    return reply
