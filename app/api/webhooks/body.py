"""Reading a webhook body within its size limit and deadline, never more than the limit.

The declared `Content-Length` is checked before a byte is read; the body is then counted as
it streams in (chunked, or compressed: aiohttp inflates `Content-Encoding: gzip` in bounded
pieces, and the count is of inflated bytes) and refused the moment it passes the limit, so
memory never holds more than the limit whatever the sender claims or sends (CVE-2024-40634).
All bodies being read at once are bounded together by a `ByteBudget`.
"""

import asyncio
import contextlib
from collections.abc import Iterator

from aiohttp import web

from app.api.webhooks.errors import BodyTimeout, TooLarge, Unavailable


class ByteBudget:
    """Bytes every webhook body being read holds, all requests together, bounded.

    Bodies are read before anything proves who sent them (an HMAC signs the body), so no
    request takes one of the signed requests' slots while it arrives: what bounds readers
    is the memory they hold. A sender that trickles holds only what it sent, until the
    read deadline; a body that would pass the budget is refused (503) at once."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.held = 0

    def take(self, size: int) -> None:
        if self.held + size > self.limit:
            raise Unavailable(
                f"webhook bodies being read hold {self.held} bytes, the most at once is "
                f"{self.limit}; retry later"
            )
        self.held += size

    @contextlib.contextmanager
    def reading(self) -> Iterator["_Reservation"]:
        reservation = _Reservation(self)
        try:
            yield reservation
        finally:
            self.held -= reservation.size


class _Reservation:
    def __init__(self, budget: ByteBudget) -> None:
        self._budget = budget
        self.size = 0

    def add(self, size: int) -> None:
        self._budget.take(size)
        self.size += size


def _too_large(size: str, limit: int) -> TooLarge:
    return TooLarge(
        f"webhook body {size} is over the {limit}-byte limit; Git hosts' push payloads are "
        "far smaller: check the webhook sends push events only"
    )


async def read_body(
    request: web.BaseRequest, *, limit: int, deadline: float, budget: ByteBudget
) -> bytes:
    """The whole body; TooLarge past `limit` bytes, BodyTimeout after `deadline` seconds,
    Unavailable when the bodies being read would pass `budget`."""
    declared = request.content_length
    if declared is not None and declared > limit:
        raise _too_large(f"of {declared} bytes (Content-Length)", limit)
    body = bytearray()
    with budget.reading() as held:
        try:
            async with asyncio.timeout(deadline):
                async for chunk in request.content.iter_any():
                    if len(body) + len(chunk) > limit:
                        raise _too_large("(counted as it arrived, decompressed)", limit)
                    held.add(len(chunk))
                    body += chunk
        except TimeoutError:
            raise BodyTimeout(
                f"webhook body did not arrive within {deadline:g} s ({len(body)} bytes received)"
            ) from None
        return bytes(body)
