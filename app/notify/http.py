"""One bounded HTTP request to a notification receiver."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

import aiohttp

from app.notify.errors import DeliveryError, answer_detail, retriable_status


@dataclass(frozen=True, slots=True)
class HttpSettings:
    timeout: float = 10.0
    """Seconds one request may take, connecting included."""
    max_response_bytes: int = 64 * 1024
    """Bytes of an answer read at most (the rest is dropped)."""


def where(url: str) -> str:
    """`scheme://host[:port]` of a URL: what an error may show of it."""
    parts = urlsplit(url)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname or '?'}{port}"


async def request(
    method: str,
    url: str,
    *,
    what: str,
    settings: HttpSettings,
    headers: Mapping[str, str] | None = None,
    body: bytes | None = None,
    auth: aiohttp.BasicAuth | None = None,
    verify: bool = True,
    secrets: Sequence[str] = (),
) -> bytes:
    """The answer's body (at most `max_response_bytes`) of a 2xx answer; DeliveryError else
    (never repeating `secrets`, the service's credentials, from the receiver's answer)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise DeliveryError(f"{what}: the URL must be http(s) with a host", retriable=False)
    timeout = aiohttp.ClientTimeout(total=settings.timeout)
    try:
        async with (
            aiohttp.ClientSession(timeout=timeout, trust_env=False) as session,
            session.request(
                method,
                url,
                headers=dict(headers or {}),
                data=body,
                auth=auth,
                allow_redirects=False,
                ssl=verify,
            ) as response,
        ):
            data = await response.content.read(settings.max_response_bytes)
            status = response.status
    except TimeoutError:
        raise DeliveryError(
            f"{what}: {where(url)} did not answer within {settings.timeout:g} s", retriable=True
        ) from None
    except aiohttp.ClientError as e:
        raise DeliveryError(
            f"{what}: cannot reach {where(url)} ({type(e).__name__})", retriable=True
        ) from None
    if not 200 <= status < 300:
        detail = answer_detail(data, secrets)
        raise DeliveryError(
            f"{what}: {where(url)} answered HTTP {status}" + (f": {detail}" if detail else ""),
            retriable=retriable_status(status),
        )
    return data
