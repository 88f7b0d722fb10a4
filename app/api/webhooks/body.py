"""Reading a webhook body within its size limit and deadline, never more than the limit.

The declared `Content-Length` is checked before a byte is read; the body is then counted as
it streams in (chunked, or compressed: aiohttp inflates `Content-Encoding: gzip` in bounded
pieces, and the count is of inflated bytes) and refused the moment it passes the limit, so
memory never holds more than the limit whatever the sender claims or sends (CVE-2024-40634).
"""

import asyncio

from aiohttp import web

from app.api.webhooks.errors import BodyTimeout, TooLarge


def _too_large(size: str, limit: int) -> TooLarge:
    return TooLarge(
        f"webhook body {size} is over the {limit}-byte limit; Git hosts' push payloads are "
        "far smaller: check the webhook sends push events only"
    )


async def read_body(request: web.BaseRequest, *, limit: int, deadline: float) -> bytes:
    """The whole body; TooLarge past `limit` bytes, BodyTimeout after `deadline` seconds."""
    declared = request.content_length
    if declared is not None and declared > limit:
        raise _too_large(f"of {declared} bytes (Content-Length)", limit)
    body = bytearray()
    try:
        async with asyncio.timeout(deadline):
            async for chunk in request.content.iter_any():
                if len(body) + len(chunk) > limit:
                    raise _too_large("(counted as it arrived, decompressed)", limit)
                body += chunk
    except TimeoutError:
        raise BodyTimeout(
            f"webhook body did not arrive within {deadline:g} s ({len(body)} bytes received)"
        ) from None
    return bytes(body)
