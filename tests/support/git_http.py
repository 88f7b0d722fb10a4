"""A private Git server over HTTPS: `git http-backend` (CGI) behind an aiohttp TLS server.

The server's certificate is signed by a CA the test generates (`keys.CertificateAuthority`),
so a client trusts it only when given that CA. Every request must authenticate, as a
private GitHub/GitLab repository would: HTTP Basic with one of `passwords` (answering 401
with a `WWW-Authenticate` challenge otherwise), a bearer token from `tokens`, or, when
`require_client_cert` is set, a client certificate the CA signed. `seen` records the path
and Authorization header of every request; `redirect_to` answers every request with a
redirect there (to check credentials never follow one). With `lfs` set, the same server
(and the same authentication) answers Git LFS's batch API and transfers (lfs_http.py).
"""

import asyncio
import base64
import contextlib
import hmac
import os
import ssl
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web

from tests.support.keys import HOST, CertificateAuthority
from tests.support.lfs_http import LfsObjects, is_lfs_path


@dataclass
class GitHttpsServer:
    root: Path
    """The project root: bare repositories under it are served as `/<path>`."""
    ca: CertificateAuthority
    passwords: dict[str, str] = field(default_factory=dict)
    tokens: set[str] = field(default_factory=set)
    app_tokens: set[str] = field(default_factory=set)
    """GitHub App installation tokens accepted as the password of `x-access-token`."""
    require_client_cert: bool = False
    redirect_to: str = ""
    lfs: LfsObjects | None = None
    seen: list[tuple[str, str | None]] = field(default_factory=list)
    port: int = 0

    @property
    def base(self) -> str:
        return f"https://{HOST}:{self.port}"

    def url(self, path: str) -> str:
        return f"{self.base}/{path}"

    def _authorized(self, request: web.Request) -> bool:
        header = request.headers.get("Authorization", "")
        if header.startswith("Bearer "):
            given = header[len("Bearer ") :]
            return any(hmac.compare_digest(given, t) for t in self.tokens)
        if header.startswith("Basic "):
            try:
                user, _, password = base64.b64decode(header[6:]).decode().partition(":")
            except ValueError:
                return False
            if user == "x-access-token" and password in self.app_tokens:
                return True
            expected = self.passwords.get(user)
            return expected is not None and hmac.compare_digest(password, expected)
        if self.require_client_cert:
            transport = request.transport
            peer = transport.get_extra_info("peercert") if transport is not None else None
            return bool(peer)
        return False

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.seen.append((request.path, request.headers.get("Authorization")))
        if self.redirect_to:
            raise web.HTTPFound(self.redirect_to + request.path_qs)
        if not self._authorized(request):
            return web.Response(
                status=401,
                headers={"WWW-Authenticate": 'Basic realm="git"'},
                text="authentication required\n",
            )
        if self.lfs is not None and is_lfs_path(request.path):
            return await self.lfs.handle(request, self.base)
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
            "REMOTE_USER": "git",
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
            stderr=asyncio.subprocess.PIPE,
            env=env,
        )
        out, _ = await proc.communicate(body)
        head, _, payload = out.partition(b"\r\n\r\n")
        if not _:
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


def server_context(ca: CertificateAuthority, *, client_certs: bool) -> ssl.SSLContext:
    issued = ca.issue(HOST, server=True)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    with tempfile.TemporaryDirectory() as directory:
        cert, key = Path(directory, "cert.pem"), Path(directory, "key.pem")
        cert.write_text(issued.cert_pem)
        key.write_text(issued.key_pem)
        context.load_cert_chain(cert, key)
    if client_certs:
        context.load_verify_locations(cadata=ca.cert_pem)
        context.verify_mode = ssl.CERT_OPTIONAL
    return context


@contextlib.asynccontextmanager
async def serve_https(
    app: web.Application, ca: CertificateAuthority, *, client_certs: bool = False
) -> AsyncIterator[int]:
    """Run `app` over TLS on a random loopback port; yields the port."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, HOST, 0, ssl_context=server_context(ca, client_certs=client_certs))
    await site.start()
    server = site._server
    assert isinstance(server, asyncio.Server)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        await runner.cleanup()


@contextlib.asynccontextmanager
async def git_https_server(server: GitHttpsServer) -> AsyncIterator[GitHttpsServer]:
    app = web.Application(client_max_size=64 * 1024 * 1024)
    app.router.add_route("*", "/{tail:.*}", server.handle)
    async with serve_https(app, server.ca, client_certs=server.require_client_cert) as port:
        server.port = port
        yield server
