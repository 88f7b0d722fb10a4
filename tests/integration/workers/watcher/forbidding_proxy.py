"""An HTTP proxy in front of the local cluster that can refuse one resource's requests.

While `forbid(fragment)` is in force, every request whose path contains the fragment is
answered 403 Forbidden (a Kubernetes Status, as an RBAC refusal looks) and the open
watches of that path are cut; everything else is passed through, watches streamed.
`kubeconfig(path)` writes a kubeconfig that points at the proxy.
"""

from pathlib import Path

import aiohttp
import yaml
from aiohttp import web

CHUNK = 64 * 1024


class ForbiddingProxy:
    def __init__(self, target_url: str) -> None:
        self._target = target_url.rstrip("/")
        self._forbidden: str | None = None
        self.refused = 0
        """Requests answered 403 so far."""
        self._streams: dict[int, web.Request] = {}
        self._session: aiohttp.ClientSession | None = None
        self._runner: web.AppRunner | None = None
        self.url = ""

    async def start(self) -> "ForbiddingProxy":
        self._session = aiohttp.ClientSession(auto_decompress=False)
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._forward)
        self._runner = web.AppRunner(app, handler_cancellation=True)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"
        return self

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self._session is not None:
            await self._session.close()

    def forbid(self, fragment: str | None) -> None:
        """Refuse requests whose path contains `fragment` (None: refuse nothing), and cut
        the open watches of that path."""
        self._forbidden = fragment
        for request in list(self._streams.values()):
            if fragment is not None and fragment in request.path and request.transport:
                request.transport.abort()

    def kubeconfig(self, path: Path) -> Path:
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "proxy", "cluster": {"server": self.url}}],
            "users": [{"name": "proxy", "user": {}}],
            "contexts": [{"name": "proxy", "context": {"cluster": "proxy", "user": "proxy"}}],
            "current-context": "proxy",
        }
        path.write_text(yaml.safe_dump(config))
        return path

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        assert self._session is not None
        if self._forbidden is not None and self._forbidden in request.path:
            self.refused += 1
            return web.json_response(
                {
                    "kind": "Status",
                    "apiVersion": "v1",
                    "status": "Failure",
                    "message": f"forbidden: {request.path}",
                    "reason": "Forbidden",
                    "code": 403,
                },
                status=403,
            )
        headers = {k: v for k, v in request.headers.items() if k.lower() != "host"}
        async with self._session.request(
            request.method,
            self._target + request.rel_url.path_qs,
            headers=headers,
            data=await request.read(),
        ) as upstream:
            response = web.StreamResponse(status=upstream.status)
            for name in ("Content-Type", "Content-Encoding"):
                if name in upstream.headers:
                    response.headers[name] = upstream.headers[name]
            await response.prepare(request)
            self._streams[id(request)] = request
            try:
                async for chunk in upstream.content.iter_any():
                    await response.write(chunk)
            except (aiohttp.ClientError, ConnectionError):
                return response
            finally:
                self._streams.pop(id(request), None)
            await response.write_eof()
            return response
