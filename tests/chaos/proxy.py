"""A TCP proxy a chaos test can cut: the network between one worker and NATS.

`TcpProxy(upstreams)` listens on a loopback port and joins each connection to the first
upstream that accepts (a NATS cluster's members, in order). `cut()` resets every open
connection and refuses new ones until `heal()`, as a partition does to a client that
then keeps trying to reconnect.
"""

import asyncio
import contextlib
from collections.abc import Sequence


class TcpProxy:
    def __init__(self, upstreams: Sequence[tuple[str, int]]) -> None:
        self.upstreams = list(upstreams)
        self.port = 0
        self.cut_off = False
        self._server: asyncio.Server | None = None
        self._open: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def cut(self) -> None:
        """Reset every connection through the proxy and refuse new ones."""
        self.cut_off = True
        for writer in list(self._open):
            writer.transport.abort()

    def heal(self) -> None:
        self.cut_off = False

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        self.cut()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await self._serve(reader, writer)
        finally:
            self._tasks.discard(task)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.cut_off:
            writer.transport.abort()
            return
        upstream = await self._connect()
        if upstream is None:
            writer.transport.abort()
            return
        up_reader, up_writer = upstream
        self._open.update((writer, up_writer))
        try:
            await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
        finally:
            for w in (writer, up_writer):
                self._open.discard(w)
                w.transport.abort()

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        for host, port in self.upstreams:
            with contextlib.suppress(OSError):
                return await asyncio.open_connection(host, port)
        return None


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(64 * 1024):
            writer.write(chunk)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.transport.abort()
