"""RFC 3339 times as Kubernetes and Argo CD write them: UTC, with a `Z`.

`format_time` writes a moment (`2026-11-29T12:00:00Z`; `timespec` as `isoformat` takes
it, e.g. "milliseconds" for NATS schedules and events, "auto" for stored machine state
that must read back exactly); `parse_time` reads one back, `Z` or any offset. Both refuse
a moment without a time zone: comparing it with an aware one would fail later, far from
the value that caused it.
"""

from datetime import UTC, datetime, tzinfo


def format_time(moment: datetime, *, timespec: str = "seconds") -> str:
    """`moment` in UTC as RFC 3339 with `Z` (ValueError for a naive datetime)."""
    if moment.utcoffset() is None:
        raise ValueError(f"time {moment.isoformat()} has no time zone")
    return moment.astimezone(UTC).isoformat(timespec=timespec).replace("+00:00", "Z")


def parse_time(text: str, *, default_zone: tzinfo | None = None) -> datetime:
    """An RFC 3339 time as an aware datetime. A time without an offset takes
    `default_zone`; without one it is refused. ValueError names what is wrong."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"not an RFC 3339 time: {text[:40]!r}") from None
    if moment.utcoffset() is not None:
        return moment
    if default_zone is None:
        raise ValueError(f"time {text[:40]!r} has no time zone (write it with Z or an offset)")
    return moment.replace(tzinfo=default_zone)
