"""RFC 3339 times: written in UTC with a Z, read back from Z or any offset, never naive."""

import datetime as dt

import pytest

from app.model.timestamps import format_time, parse_time

MOMENT = dt.datetime(2026, 11, 29, 12, 0, 5, 250_000, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("timespec", "text"),
    [
        pytest.param("seconds", "2026-11-29T12:00:05Z", id="seconds"),
        pytest.param("milliseconds", "2026-11-29T12:00:05.250Z", id="milliseconds"),
        pytest.param("auto", "2026-11-29T12:00:05.250000Z", id="exact"),
    ],
)
def test_a_time_is_written_in_utc_with_z(timespec: str, text: str) -> None:
    assert format_time(MOMENT, timespec=timespec) == text
    assert parse_time(text) == MOMENT.replace(microsecond=0 if timespec == "seconds" else 250_000)


def test_an_offset_is_converted_to_utc() -> None:
    paris = MOMENT.astimezone(dt.timezone(dt.timedelta(hours=1)))
    assert format_time(paris) == "2026-11-29T12:00:05Z"
    assert parse_time("2026-11-29T13:00:05+01:00") == MOMENT.replace(microsecond=0)


def test_a_naive_time_is_refused_unless_a_zone_is_given() -> None:
    with pytest.raises(ValueError, match="has no time zone"):
        format_time(MOMENT.replace(tzinfo=None))
    with pytest.raises(ValueError, match="has no time zone"):
        parse_time("2026-11-29T12:00:05")
    assert parse_time("2026-11-29T12:00:05", default_zone=dt.UTC) == MOMENT.replace(microsecond=0)


def test_what_is_no_time_is_refused_naming_it() -> None:
    with pytest.raises(ValueError, match="not an RFC 3339 time: 'yesterday'"):
        parse_time("yesterday")
