"""GitHub App credentials: an installation token for HTTPS, cached until shortly before expiry.

A repository Secret with `githubAppID`, `githubAppInstallationID` and `githubAppPrivateKey`
authenticates as the App's installation: an RS256 JWT signed with the App's key (PyJWT with
`cryptography`: no hand-written signing) is exchanged at
`POST {api}/app/installations/{id}/access_tokens` for a token that git then sends as the
HTTPS password of `x-access-token`. `{api}` is `https://api.github.com`, or
`githubAppEnterpriseBaseUrl` completed with `/api/v3` as GitHub Enterprise serves it.
Tokens live an hour; one is reused until `REFRESH_BEFORE` seconds before its
`expires_at`, and concurrent callers share one exchange. The exchange is the only call that
goes to GitHub's API; it uses the TLS trust configured for the API host.
"""

import asyncio
import datetime
import hashlib
import json
import ssl
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

import aiohttp

from app.model.repository_secret import RepoCreds
from app.repo.credentials import CredentialError
from app.repo.errors import GitError

GITHUB_API = "https://api.github.com"
REFRESH_BEFORE = 300.0
"""Seconds before expiry a cached installation token is replaced."""
JWT_LIFETIME = 540
"""Seconds the App JWT is valid (GitHub allows at most 600)."""
EXCHANGE_TIMEOUT = 30.0
MAX_ANSWER_BYTES = 64 * 1024


class TokenExchangeError(GitError):
    """The token endpoint could not be reached or answered 5xx: retrying may help."""


@dataclass(frozen=True, slots=True)
class InstallationToken:
    token: str
    expires_at: float
    """Unix time."""


def api_base(creds: RepoCreds) -> str:
    """The API root for the App: GitHub's, or the Enterprise URL with `/api/v3`."""
    base = creds.github_app_enterprise_base_url.rstrip("/")
    if not base:
        return GITHUB_API
    parts = urlsplit(base)
    host = parts.hostname or ""
    if parts.path.endswith("/api/v3") or host.startswith("api.") or ".api." in host:
        return base
    return base + "/api/v3"


def _key(creds: RepoCreds) -> tuple[int, int, str, str]:
    digest = hashlib.sha256(creds.github_app_private_key.encode()).hexdigest()
    return (creds.github_app_id, creds.github_app_installation_id, api_base(creds), digest)


def _app_jwt(creds: RepoCreds, now: float, who: str) -> str:
    claims = {"iat": int(now) - 60, "exp": int(now) + JWT_LIFETIME, "iss": str(creds.github_app_id)}
    # PyJWT brings cryptography: 8 MiB in every worker process, so only a process that
    # signs for a GitHub App loads it.
    import jwt

    try:
        return jwt.encode(claims, creds.github_app_private_key, algorithm="RS256")
    except (ValueError, TypeError, jwt.PyJWTError):
        raise CredentialError(
            f"{who}: data.githubAppPrivateKey is not an RSA private key in PEM form; download a "
            "new private key from the App's settings"
        ) from None


def _expiry(text: object, who: str) -> float:
    try:
        stamp = datetime.datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        raise CredentialError(
            f"{who}: the token endpoint answered an unreadable expires_at"
        ) from None
    return stamp.timestamp()


class GitHubApps:
    """Installation tokens of this process, by (App, installation, API, key)."""

    def __init__(self) -> None:
        self._tokens: dict[tuple[int, int, str, str], InstallationToken] = {}
        self._pending: dict[tuple[int, int, str, str], asyncio.Future[InstallationToken]] = {}
        self.exchanges = 0
        """How many token exchanges were made (a cached token needs none)."""

    async def token(
        self, creds: RepoCreds, *, who: str, ssl_context: ssl.SSLContext, proxy: str = ""
    ) -> str:
        """A valid installation token; CredentialError (refused) or TokenExchangeError."""
        key = _key(creds)
        cached = self._tokens.get(key)
        if cached is not None and cached.expires_at - time.time() > REFRESH_BEFORE:
            return cached.token
        pending = self._pending.get(key)
        if pending is None:
            pending = asyncio.ensure_future(self._exchange(creds, who, ssl_context, proxy))
            self._pending[key] = pending
            pending.add_done_callback(lambda _: self._pending.pop(key, None))
        found = await asyncio.shield(pending)
        self._tokens[key] = found
        return found.token

    def known_tokens(self) -> list[str]:
        return [t.token for t in self._tokens.values()]

    async def _exchange(
        self, creds: RepoCreds, who: str, ssl_context: ssl.SSLContext, proxy: str
    ) -> InstallationToken:
        installation = creds.github_app_installation_id
        app = f"{who}: GitHub App {creds.github_app_id} (installation {installation})"
        url = f"{api_base(creds)}/app/installations/{installation}/access_tokens"
        token = _app_jwt(creds, time.time(), app)
        headers = {
            "Authorization": f"Bearer {token}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": "sluice",
        }
        self.exchanges += 1
        timeout = aiohttp.ClientTimeout(total=EXCHANGE_TIMEOUT)
        try:
            async with (
                aiohttp.ClientSession(timeout=timeout) as session,
                session.post(
                    url,
                    headers=headers,
                    ssl=ssl_context,
                    proxy=proxy or None,
                    allow_redirects=False,
                ) as answer,
            ):
                body = await answer.content.read(MAX_ANSWER_BYTES)
                status = answer.status
        except (aiohttp.ClientError, TimeoutError) as e:
            reason = "it timed out" if isinstance(e, TimeoutError) else type(e).__name__
            if isinstance(e, aiohttp.ClientConnectorCertificateError):
                reason = "its TLS certificate is not trusted; add its CA to argocd-tls-certs-cm"
            elif isinstance(e, aiohttp.ClientConnectorError):
                reason = "the connection failed"
            raise TokenExchangeError(
                f"{app}: the token request to {url} failed: {reason}"
            ) from None
        return self._read(body, status, url, app)

    @staticmethod
    def _read(body: bytes, status: int, url: str, app: str) -> InstallationToken:
        try:
            answer = json.loads(body)
        except ValueError:
            answer = {}
        if not isinstance(answer, dict):
            answer = {}
        if status >= 500:
            raise TokenExchangeError(f"{app}: the token endpoint {url} answered {status}")
        if status != 201 or not isinstance(answer.get("token"), str):
            message = str(answer.get("message") or "")[:200]
            raise CredentialError(
                f"{app}: the installation token request was refused ({status}"
                f"{': ' + message if message else ''}); check githubAppID, "
                "githubAppInstallationID and that githubAppPrivateKey is a current key of the App"
            )
        return InstallationToken(answer["token"], _expiry(answer.get("expires_at"), app))
