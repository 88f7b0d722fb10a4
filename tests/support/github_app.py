"""A local stand-in of GitHub's installation-token endpoint, over TLS.

`POST /api/v3/app/installations/{id}/access_tokens` checks the App JWT as GitHub does
(RS256 signature by the App's registered public key, `iss` the App ID, not expired) and
answers 201 with a fresh token and its `expires_at`; anything else gets GitHub's 401. Every
token issued is added to `issued`, so a Git server can accept them as passwords.
"""

import contextlib
import datetime
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import jwt
from aiohttp import web

from tests.support.git_http import serve_https
from tests.support.keys import HOST, CertificateAuthority


@dataclass
class GitHubAppStandIn:
    ca: CertificateAuthority
    app_id: int
    installation_id: int
    public_key_pem: str
    lifetime: datetime.timedelta = datetime.timedelta(hours=1)
    issued: set[str] = field(default_factory=set)
    requests: int = 0
    port: int = 0

    @property
    def base_url(self) -> str:
        return f"https://{HOST}:{self.port}/api/v3"

    async def handle(self, request: web.Request) -> web.Response:
        self.requests += 1
        header = request.headers.get("Authorization", "")
        wanted = f"/api/v3/app/installations/{self.installation_id}/access_tokens"
        if request.method != "POST" or request.path != wanted:
            return web.json_response({"message": "Not Found"}, status=404)
        try:
            claims = jwt.decode(
                header.removeprefix("Bearer "), self.public_key_pem, algorithms=["RS256"]
            )
        except jwt.PyJWTError:
            return web.json_response(
                {"message": "A JSON web token could not be decoded"}, status=401
            )
        if claims.get("iss") != str(self.app_id):
            return web.json_response({"message": "Integration not found"}, status=401)
        token = "ghs_" + secrets.token_hex(18)
        self.issued.add(token)
        expires = datetime.datetime.now(datetime.UTC) + self.lifetime
        return web.json_response(
            {"token": token, "expires_at": expires.strftime("%Y-%m-%dT%H:%M:%SZ")}, status=201
        )


@contextlib.asynccontextmanager
async def github_app_stand_in(stand_in: GitHubAppStandIn) -> AsyncIterator[GitHubAppStandIn]:
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", stand_in.handle)
    async with serve_https(app, stand_in.ca) as port:
        stand_in.port = port
        yield stand_in
