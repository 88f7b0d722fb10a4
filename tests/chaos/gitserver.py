"""The fleet's Git server over plain HTTP (`git http-backend`), with a fault switch.

`mode` is `ok` (serve), `unreachable` (every connection is reset before an answer, as a
server that is down) or `garbage` (every request answered 200 with random bytes under
the right content type, as a broken proxy in front of Git).
"""

import asyncio
import os
import random
from pathlib import Path

from aiohttp import web

OK = "ok"
UNREACHABLE = "unreachable"
GARBAGE = "garbage"


class GitHttpServer:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.mode = OK
        self.port = 0
        self._runner: web.AppRunner | None = None
        self._random = random.Random(0)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path}"

    async def start(self) -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert isinstance(server, asyncio.Server)
        self.port = server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        if self.mode == UNREACHABLE:
            if request.transport is not None:
                request.transport.abort()
            raise web.HTTPServiceUnavailable()
        if self.mode == GARBAGE:
            kind = "application/x-git-upload-pack-advertisement"
            body = self._random.randbytes(512)
            return web.Response(status=200, body=body, content_type=kind)
        return await self._cgi(request)

    async def _cgi(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        env = {
            "PATH": os.environ.get("PATH", os.defpath),
            "GIT_PROJECT_ROOT": str(self.root),
            "GIT_HTTP_EXPORT_ALL": "1",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "REQUEST_METHOD": request.method,
            "PATH_INFO": request.path,
            "QUERY_STRING": request.query_string,
            "CONTENT_TYPE": request.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "REMOTE_ADDR": request.remote or "",
            "GIT_PROTOCOL": request.headers.get("Git-Protocol", ""),
            # aiohttp has already inflated a gzip body; tell git only when it has not.
            "HTTP_CONTENT_ENCODING": "gzip" if body[:2] == b"\x1f\x8b" else "",
        }
        proc = await asyncio.create_subprocess_exec(
            "git",
            "http-backend",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=env,
        )
        out, _ = await proc.communicate(body)
        head, sep, payload = out.partition(b"\r\n\r\n")
        if not sep:
            head, _, payload = out.partition(b"\n\n")
        status = 200
        headers: dict[str, str] = {}
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers[name.strip()] = value.strip()
        return web.Response(status=status, body=payload, headers=headers)
