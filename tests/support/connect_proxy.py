"""A small HTTP CONNECT proxy on a random loopback port, as corporate proxies work for HTTPS.

`CONNECT host:port` opens a TCP tunnel to the target and relays bytes both ways; anything
else is refused with 405. With `credentials` set (`user:password`) a request must carry a
matching `Proxy-Authorization: Basic …` header, else it gets 407 (and the connection
stays open for the answer to the challenge). `tunnels` records each
target it tunnelled to, `refused` each request it turned away.
"""

import asyncio
import base64
import contextlib
import hmac
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from tests.support.keys import HOST

_MAX_HEADER = 16 * 1024


@dataclass
class ConnectProxy:
    credentials: str = ""
    tunnels: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    port: int = 0

    def url(self, userinfo: str = "") -> str:
        return f"http://{userinfo + '@' if userinfo else ''}{HOST}:{self.port}"

    def _authorized(self, headers: dict[str, str]) -> bool:
        if not self.credentials:
            return True
        given = headers.get("proxy-authorization", "")
        expected = "Basic " + base64.b64encode(self.credentials.encode()).decode()
        return hmac.compare_digest(given.encode(), expected.encode())

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Serve one client connection: requests until a tunnel opens (a 407 keeps the
        connection, as proxies do, so a client can answer the challenge on it)."""
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
                await _close(writer)
                return
            lines = head.decode("latin-1").split("\r\n")
            method, _, rest = lines[0].partition(" ")
            target = rest.partition(" ")[0]
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                if name:
                    headers[name.strip().lower()] = value.strip()
            if method != "CONNECT":
                self.refused.append(lines[0])
                writer.write(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
                await _close(writer)
                return
            if self._authorized(headers):
                await self._tunnel(target, reader, writer)
                return
            self.refused.append(target)
            writer.write(
                b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                b'Proxy-Authenticate: Basic realm="proxy"\r\nContent-Length: 0\r\n\r\n'
            )
            await writer.drain()

    async def _tunnel(
        self, target: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        host, _, port = target.rpartition(":")
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(host, int(port))
        except (OSError, ValueError):
            writer.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            await _close(writer)
            return
        self.tunnels.append(target)
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await writer.drain()
        await asyncio.gather(_relay(reader, upstream_writer), _relay(upstream_reader, writer))


async def _close(writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(OSError):
        await writer.drain()
        writer.close()
        await writer.wait_closed()


async def _relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(65536):
            writer.write(chunk)
            await writer.drain()
    except OSError:
        pass
    finally:
        await _close(writer)


@contextlib.asynccontextmanager
async def connect_proxy(proxy: ConnectProxy) -> AsyncIterator[ConnectProxy]:
    server = await asyncio.start_server(proxy.handle, HOST, 0, limit=_MAX_HEADER)
    proxy.port = server.sockets[0].getsockname()[1]
    try:
        yield proxy
    finally:
        server.close()
        await server.wait_closed()
