"""One HTTP call to the API server: deadline, concurrency slot, size cap, raw JSON.

Requests go out on kubernetes-asyncio's ApiClient's session (its auth, TLS, proxy and
connection pool), sent here rather than by `call_api`, so no typed model is ever built
and a body is encoded once: the answer is read here,
capped at `max_response_bytes`, and decoded to plain dicts. Every failure leaves as a
`ClusterError` built in `errors.py`; nothing else in the package looks at HTTP statuses.
Every request is counted in `argocd_app_k8s_request_total` (status 0: no answer).
"""

import asyncio
import contextlib
import ssl
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlencode

import aiohttp
from aiohttp.helpers import get_env_proxy_for_url
from yarl import URL

from app import jsonio, log
from app.cluster.errors import (
    ClusterError,
    Target,
    error_for_exception,
    error_for_status,
)
from app.cluster.settings import ClusterSettings
from app.metrics.argocd import count_k8s_request

JSON = "application/json"
MAX_ERROR_BODY_BYTES = 64 * 1024
"""An error answer is read up to this size; the Status message sits well inside it."""

READ_BUFSIZE = 2**21
"""aiohttp's read buffer, as kubernetes-asyncio sets it: one watch event may hold a 1.5 MiB
object (etcd's request limit)."""

Query = Sequence[tuple[str, str]]
NETWORK_ERRORS = (TimeoutError, aiohttp.ClientError, OSError, ssl.SSLError)
"""Exceptions meaning the server gave no (complete) answer."""


def read_environment_once(api_client: Any) -> None:
    """Stop the ApiClient's session from consulting the environment on every request.

    kubernetes-asyncio opens its aiohttp session with `trust_env=True`, so aiohttp looks up
    the proxy variables and parses ~/.netrc, each in a worker thread, before every request:
    two thread hops and a file read per call, a tenth of the sync worker's CPU when 1,000
    apps sync. The proxy the environment names for this server (HTTPS_PROXY, NO_PROXY …)
    is looked up here, once, and sent with every request; netrc is not consulted at all
    (its Basic auth would clash with the bearer token anyway).
    """
    rest = api_client.rest_client
    if not rest.proxy:
        with contextlib.suppress(LookupError):
            proxy, proxy_auth = get_env_proxy_for_url(URL(api_client.configuration.host))
            rest.proxy = str(proxy)
            if proxy_auth is not None:
                rest.proxy_headers = {
                    **(rest.proxy_headers or {}),
                    "Proxy-Authorization": proxy_auth.encode(),
                }
    session: aiohttp.ClientSession = rest.pool_manager
    rest.pool_manager = aiohttp.ClientSession(
        connector=session.connector, trust_env=False, read_bufsize=READ_BUFSIZE
    )
    session.detach()


async def read_capped(resp: aiohttp.ClientResponse, limit: int, target: Target) -> bytes:
    """The whole response body, or a ClusterError if it is larger than `limit` bytes."""
    if resp.content_length is not None and resp.content_length > limit:
        raise _too_large(resp.content_length, limit, target)
    body = bytearray()
    async for chunk in resp.content.iter_any():
        body += chunk
        if len(body) > limit:
            raise _too_large(len(body), limit, target)
    return bytes(body)


def _too_large(size: int, limit: int, target: Target) -> ClusterError:
    return ClusterError(
        f"the answer is over the {limit}-byte limit (at least {size} bytes)",
        target=target,
        hint="narrow the request (namespace, label selector) or raise max_response_bytes",
    )


class Transport:
    """Raw requests to one API server through a kubernetes-asyncio ApiClient."""

    def __init__(
        self, api_client: Any, settings: ClusterSettings, cluster: str, server: str = ""
    ) -> None:
        self._api = api_client
        self._server = server
        self._settings = settings
        self._slots = asyncio.Semaphore(settings.max_in_flight)
        self._log = log.get("cluster", cluster=cluster)

    async def _send(
        self,
        method: str,
        path: str,
        *,
        query: Query,
        body: Any,
        content_type: str,
        accept: str,
        client_timeout: aiohttp.ClientTimeout,
    ) -> aiohttp.ClientResponse:
        """One request on the ApiClient's own session, with its auth, TLS and proxy, as
        `ApiClient.call_api` would send it, without its per-call work: the body is
        encoded once, by orjson (call_api walks it to sanitize it, then encodes it with
        the standard library: a sixth of the client's CPU per request, as
        `bench/cluster_client` measures)."""
        api, rest = self._api, self._api.rest_client
        headers = {"Accept": accept, "Content-Type": content_type, **api.default_headers}
        if api.cookie:
            headers["Cookie"] = api.cookie
        url = api.configuration.host + path
        if query:
            url += "?" + urlencode(list(query))
        options: dict[str, Any] = {}
        if rest.proxy:
            options["proxy"] = rest.proxy
        if rest.proxy_headers:
            options["proxy_headers"] = rest.proxy_headers
        if rest.server_hostname:
            options["server_hostname"] = rest.server_hostname
        data = body if body is None or isinstance(body, bytes) else jsonio.dumps(body)
        try:
            token = (await api.configuration.auth_settings()).get("BearerToken")
            if token:
                headers[token["key"]] = token["value"]
            resp: aiohttp.ClientResponse = await rest.pool_manager.request(
                method, url, headers=headers, data=data, timeout=client_timeout, **options
            )
        except BaseException:
            count_k8s_request(self._server, method, path, query, 0)
            raise
        count_k8s_request(self._server, method, path, query, resp.status)
        return resp

    async def call(
        self,
        method: str,
        path: str,
        target: Target,
        *,
        query: Query = (),
        body: Any = None,
        content_type: str = JSON,
        accept: str = JSON,
        time_limit: float | None = None,
        raw: bool = False,
    ) -> Any:
        """The decoded JSON answer of one request (its bytes when `raw`), within
        `time_limit` seconds (default: `request_timeout`)."""
        limit = time_limit if time_limit is not None else self._settings.request_timeout
        started = time.monotonic()
        client_timeout = aiohttp.ClientTimeout(
            total=limit, sock_connect=self._settings.connect_timeout
        )
        try:
            async with asyncio.timeout(limit), self._slots:
                resp = await self._send(
                    method,
                    path,
                    query=query,
                    body=body,
                    content_type=content_type,
                    accept=accept,
                    client_timeout=client_timeout,
                )
                try:
                    ok = 200 <= resp.status < 300
                    cap = self._settings.max_response_bytes if ok else MAX_ERROR_BODY_BYTES
                    data = await read_capped(resp, cap, target)
                finally:
                    resp.release()
        except NETWORK_ERRORS as e:
            error = error_for_exception(e, target, timeout=limit)
            self._log.debug("cluster.request_failed", method=method, path=path, error=str(error))
            raise error from e
        self._log.debug(
            "cluster.request",
            method=method,
            path=path,
            status=resp.status,
            ms=round((time.monotonic() - started) * 1000, 1),
        )
        if not ok:
            raise error_for_status(
                resp.status, data, target, retry_after=resp.headers.get("Retry-After")
            )
        if raw:
            return bytes(data)
        if not data:
            return {}
        try:
            return jsonio.loads(data)
        except ValueError as e:
            raise ClusterError(
                f"the server answered HTTP {resp.status} with a body that is not JSON",
                target=target,
            ) from e

    @asynccontextmanager
    async def stream(
        self, path: str, target: Target, *, query: Query = ()
    ) -> AsyncIterator[aiohttp.ClientResponse]:
        """An open streaming GET (a watch); its body is read by the caller, line by line.

        Opening it has the request deadline; once open, the connection is presumed dead
        after `watch_idle_timeout` seconds without a byte. Streams take no concurrency
        slot, so any number of watches never starve ordinary calls.
        """
        settings = self._settings
        client_timeout = aiohttp.ClientTimeout(
            sock_connect=settings.connect_timeout, sock_read=settings.watch_idle_timeout
        )
        try:
            async with asyncio.timeout(settings.request_timeout):
                resp = await self._send(
                    "GET",
                    path,
                    query=query,
                    body=None,
                    content_type=JSON,
                    accept=JSON,
                    client_timeout=client_timeout,
                )
        except NETWORK_ERRORS as e:
            raise error_for_exception(e, target, timeout=settings.request_timeout) from e
        try:
            if not 200 <= resp.status < 300:
                try:
                    data = await read_capped(resp, MAX_ERROR_BODY_BYTES, target)
                except NETWORK_ERRORS as e:
                    raise error_for_exception(e, target, timeout=settings.request_timeout) from e
                raise error_for_status(
                    resp.status, data, target, retry_after=resp.headers.get("Retry-After")
                )
            yield resp
        finally:
            resp.close()
