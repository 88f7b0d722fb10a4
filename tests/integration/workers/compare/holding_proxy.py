"""A TCP proxy that holds the first request carrying a marker until the test releases it.

Put between one worker and Redis, it stops that worker exactly where the test wants it
(for instance at the status write, found by a value only that write carries) while
everything else runs on, without touching the worker's code.
"""

import asyncio
import contextlib
from urllib.parse import urlsplit, urlunsplit

CHUNK = 64 * 1024


class HoldingProxy:
    def __init__(self, target_url: str, marker: bytes) -> None:
        parts = urlsplit(target_url)
        self._target = (parts.hostname or "127.0.0.1", parts.port or 6379)
        self._target_url = target_url
        self._marker = marker
        self.held = asyncio.Event()
        """Set once a request carrying the marker is being held."""
        self._released = asyncio.Event()
        self._server: asyncio.Server | None = None
        self._pumps: set[asyncio.Task[None]] = set()
        self.url = ""

    async def start(self) -> "HoldingProxy":
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        parts = urlsplit(self._target_url)
        self.url = urlunsplit(parts._replace(netloc=f"127.0.0.1:{port}"))
        return self

    def release(self) -> None:
        self._released.set()

    async def close(self) -> None:
        self._released.set()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for pump in self._pumps:
            pump.cancel()
        await asyncio.gather(*self._pumps, return_exceptions=True)

    async def _accept(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        server_r, server_w = await asyncio.open_connection(*self._target)
        for pump in (
            self._pump(client_r, server_w, hold=True),
            self._pump(server_r, client_w, hold=False),
        ):
            task = asyncio.create_task(pump)
            self._pumps.add(task)
            task.add_done_callback(self._pumps.discard)

    async def _pump(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, hold: bool
    ) -> None:
        tail = b""
        try:
            while chunk := await reader.read(CHUNK):
                if hold and not self._released.is_set() and self._marker in tail + chunk:
                    self.held.set()
                    await self._released.wait()
                tail = chunk[-len(self._marker) :]
                writer.write(chunk)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError, asyncio.CancelledError):
                await writer.wait_closed()
