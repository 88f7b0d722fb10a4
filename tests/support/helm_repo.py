"""A Helm chart repository for tests: `index.yaml` and `.tgz` archives over plain HTTP.

`HelmRepoServer` (aiohttp, random port on 127.0.0.1) serves what tests add with
`add_chart(files, name, version)` (packaged here with tarfile, one top-level directory as
`helm package` writes) or `add_archive(name, data)` (raw bytes: bombs, traversal,
symlinks). With `passwords` set every request needs HTTP Basic (401 otherwise). `seen`
records the path and Authorization header of every request. `archive_base` makes the
index point archives at another server (absolute URLs), as CDN-hosted repositories do.
"""

import asyncio
import base64
import hashlib
import hmac
import io
import tarfile
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field

import pytest
import yaml
from aiohttp import web

HOST = "127.0.0.1"


def package(files: Mapping[str, str], name: str) -> bytes:
    """A chart archive of `files` (chart-relative paths) under `name/`."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path, text in sorted(files.items()):
            data = text.encode()
            info = tarfile.TarInfo(f"{name}/{path}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@dataclass
class HelmRepoServer:
    passwords: dict[str, str] = field(default_factory=dict)
    archive_base: str = ""
    seen: list[tuple[str, str | None]] = field(default_factory=list)
    archives: dict[str, bytes] = field(default_factory=dict)
    entries: dict[str, list[dict[str, object]]] = field(default_factory=dict)
    index_padding: int = 0
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/charts"

    def add_archive(self, name: str, version: str, data: bytes) -> None:
        filename = f"{name}-{version}.tgz"
        self.archives[filename] = data
        where = f"{self.archive_base}/{filename}" if self.archive_base else filename
        self.entries.setdefault(name, []).append(
            {
                "apiVersion": "v2",
                "name": name,
                "version": version,
                "urls": [where],
                "digest": hashlib.sha256(data).hexdigest(),
            }
        )

    def add_chart(self, files: Mapping[str, str], name: str, version: str) -> None:
        self.add_archive(name, version, package(files, name))

    def _authorized(self, request: web.Request) -> bool:
        if not self.passwords:
            return True
        header = request.headers.get("Authorization", "")
        if not header.startswith("Basic "):
            return False
        user, _, password = base64.b64decode(header[6:]).decode().partition(":")
        expected = self.passwords.get(user)
        return expected is not None and hmac.compare_digest(password, expected)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        self.seen.append((request.path, request.headers.get("Authorization")))
        if not self._authorized(request):
            return web.Response(status=401, headers={"WWW-Authenticate": 'Basic realm="charts"'})
        name = request.match_info["name"]
        if name == "index.yaml":
            index = {"apiVersion": "v1", "entries": self.entries}
            body = yaml.safe_dump(index) + ("#" * self.index_padding)
            return web.Response(text=body, content_type="text/yaml")
        data = self.archives.get(name)
        if data is None:
            return web.Response(status=404)
        return web.Response(body=data, content_type="application/gzip")

    async def start(self) -> web.AppRunner:
        app = web.Application()
        app.router.add_get("/charts/{name}", self._handle)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, HOST, 0)
        await site.start()
        server = site._server
        assert isinstance(server, asyncio.Server)
        self.port = server.sockets[0].getsockname()[1]
        return runner


@pytest.fixture
async def helm_repo() -> AsyncIterator[HelmRepoServer]:
    server = HelmRepoServer(passwords={"charts": "s3cr3t-chart-pass"})
    runner = await server.start()
    try:
        yield server
    finally:
        await runner.cleanup()


@pytest.fixture
async def other_host() -> AsyncIterator[HelmRepoServer]:
    """A second, open server: where an index may point archives (it records who asks)."""
    server = HelmRepoServer()
    runner = await server.start()
    try:
        yield server
    finally:
        await runner.cleanup()
