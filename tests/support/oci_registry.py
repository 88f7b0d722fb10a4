"""A small stand-in for an OCI registry serving Helm charts, over HTTPS with token auth.

No real registry (distribution, zot) installs from PyPI or Debian here, so this speaks
just the part of the distribution API Helm charts use: `GET /v2/<name>/tags/list`,
`/v2/<name>/manifests/<tag>` (an OCI manifest with one Helm chart layer),
`/v2/<name>/blobs/<digest>`, and `/v2/` (the API's base, which connection checks ask).
Every `/v2/` request needs `Bearer <token>`; without one it answers 401 with
`WWW-Authenticate: Bearer realm="<base>/token",service=…[,scope=…]`, and
`/token` gives the token for HTTP Basic with one of `passwords`, as Docker Hub, GHCR and
Harbor do. `seen` records the path and Authorization header of every request.
"""

import base64
import hashlib
import hmac
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from aiohttp import web

from tests.support.git_http import serve_https
from tests.support.keys import HOST, CertificateAuthority

CHART_LAYER = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
TOKEN = "registry-token-0123456789"


@dataclass
class OciRegistry:
    ca: CertificateAuthority
    passwords: dict[str, str] = field(default_factory=dict)
    blobs: dict[str, bytes] = field(default_factory=dict)
    manifests: dict[tuple[str, str], bytes] = field(default_factory=dict)
    seen: list[tuple[str, str | None]] = field(default_factory=list)
    port: int = 0

    @property
    def base(self) -> str:
        return f"https://{HOST}:{self.port}"

    def url(self, path: str) -> str:
        return f"oci://{HOST}:{self.port}/{path}"

    def push(self, name: str, version: str, archive: bytes) -> None:
        """Store `archive` as `name:version` (a `+` in the version becomes `_`)."""
        layer = "sha256:" + hashlib.sha256(archive).hexdigest()
        config = b"{}"
        config_digest = "sha256:" + hashlib.sha256(config).hexdigest()
        self.blobs[layer] = archive
        self.blobs[config_digest] = config
        manifest = {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {
                "mediaType": "application/vnd.cncf.helm.config.v1+json",
                "digest": config_digest,
                "size": len(config),
            },
            "layers": [{"mediaType": CHART_LAYER, "digest": layer, "size": len(archive)}],
        }
        self.manifests[(name, version.replace("+", "_"))] = json.dumps(manifest).encode()

    def _basic_ok(self, header: str) -> bool:
        if not header.startswith("Basic "):
            return False
        user, _, password = base64.b64decode(header[6:]).decode().partition(":")
        expected = self.passwords.get(user)
        return expected is not None and hmac.compare_digest(password, expected)

    async def _token(self, request: web.Request) -> web.Response:
        self.seen.append((request.path_qs, request.headers.get("Authorization")))
        if not self._basic_ok(request.headers.get("Authorization", "")):
            return web.Response(status=401)
        return web.json_response({"token": TOKEN})

    async def _v2(self, request: web.Request) -> web.Response:
        self.seen.append((request.path, request.headers.get("Authorization")))
        if request.headers.get("Authorization") != f"Bearer {TOKEN}":
            challenge = (
                f'Bearer realm="{self.base}/token",service="{HOST}",'
                f'scope="repository:{request.match_info["name"]}:pull"'
            )
            return web.Response(status=401, headers={"WWW-Authenticate": challenge})
        name, kind, ref = (request.match_info[k] for k in ("name", "kind", "ref"))
        if kind == "tags" and ref == "list":
            tags = sorted(t for (n, t) in self.manifests if n == name)
            return web.json_response({"name": name, "tags": tags})
        if kind == "manifests" and (name, ref) in self.manifests:
            return web.Response(
                body=self.manifests[(name, ref)],
                content_type="application/vnd.oci.image.manifest.v1+json",
            )
        if kind == "blobs" and ref in self.blobs:
            return web.Response(body=self.blobs[ref], content_type="application/octet-stream")
        return web.Response(status=404)

    async def _base(self, request: web.Request) -> web.Response:
        """`/v2/`, the API's base: 200 with a token, else a challenge with no scope."""
        self.seen.append((request.path, request.headers.get("Authorization")))
        if request.headers.get("Authorization") != f"Bearer {TOKEN}":
            challenge = f'Bearer realm="{self.base}/token",service="{HOST}"'
            return web.Response(status=401, headers={"WWW-Authenticate": challenge})
        return web.json_response({})

    async def serve(self) -> AsyncIterator["OciRegistry"]:
        app = web.Application()
        app.router.add_get("/token", self._token)
        app.router.add_get("/v2/", self._base)
        app.router.add_get(r"/v2/{name:.+}/{kind:tags|manifests|blobs}/{ref}", self._v2)
        async with serve_https(app, self.ca) as port:
            self.port = port
            yield self
