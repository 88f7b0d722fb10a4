"""The helpers `when` expressions and templates share: Go's time and strings, as values.

Argo CD hands its expressions and templates Go values: `time.Parse(s)` is a `time.Time`
with `Add`, `Sub`, `Before`, `After`, `Format`, `Unix`, ...; `time.Minute` is a
`time.Duration` (nanoseconds) with `Minutes()`, `Seconds()`, `Hours()`. `GoTime` and
`GoDuration` are those values; the expression and template evaluators call only the
methods named in `METHODS`, never an attribute by name.
"""

import datetime as dt
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app.model.timestamps import parse_time


class EvalError(ValueError):
    """An expression or template that cannot be evaluated (the message says where)."""


@dataclass(frozen=True, slots=True, order=True)
class GoDuration:
    nanoseconds: int

    def __str__(self) -> str:
        seconds = self.nanoseconds / 1e9
        hours, rest = divmod(abs(seconds), 3600)
        minutes, secs = divmod(rest, 60)
        sign = "-" if seconds < 0 else ""
        if hours:
            return f"{sign}{int(hours)}h{int(minutes)}m{secs:g}s"
        if minutes:
            return f"{sign}{int(minutes)}m{secs:g}s"
        return f"{sign}{secs:g}s"


@dataclass(frozen=True, slots=True, order=True)
class GoTime:
    value: dt.datetime

    def __str__(self) -> str:
        return self.value.strftime("%Y-%m-%d %H:%M:%S %z")


_LAYOUT = re.compile(
    r"2006|Z07:00|-07:00|-0700|Z0700|January|Jan|Monday|Mon|MST|\.000000|\.000|"
    r"01|02|_2|15|03|04|05|PM|pm|06|1|2|3|4|5"
)


def _colon_offset(t: dt.datetime) -> str:
    raw = t.strftime("%z")
    return f"{raw[:3]}:{raw[3:]}" if raw else "+00:00"


_LAYOUT_PARTS: dict[str, Callable[[dt.datetime], str]] = {
    "2006": lambda t: f"{t.year:04d}",
    "06": lambda t: f"{t.year % 100:02d}",
    "January": lambda t: t.strftime("%B"),
    "Jan": lambda t: t.strftime("%b"),
    "01": lambda t: f"{t.month:02d}",
    "1": lambda t: str(t.month),
    "Monday": lambda t: t.strftime("%A"),
    "Mon": lambda t: t.strftime("%a"),
    "02": lambda t: f"{t.day:02d}",
    "_2": lambda t: f"{t.day:2d}",
    "2": lambda t: str(t.day),
    "15": lambda t: f"{t.hour:02d}",
    "03": lambda t: f"{(t.hour % 12) or 12:02d}",
    "3": lambda t: str((t.hour % 12) or 12),
    "04": lambda t: f"{t.minute:02d}",
    "4": lambda t: str(t.minute),
    "05": lambda t: f"{t.second:02d}",
    "5": lambda t: str(t.second),
    "PM": lambda t: "PM" if t.hour >= 12 else "AM",
    "pm": lambda t: "pm" if t.hour >= 12 else "am",
    "MST": lambda t: t.strftime("%Z") or "UTC",
    ".000": lambda t: f".{t.microsecond // 1000:03d}",
    ".000000": lambda t: f".{t.microsecond:06d}",
    "-0700": lambda t: t.strftime("%z"),
    "-07:00": _colon_offset,
    "Z0700": lambda t: "Z" if t.utcoffset() == dt.timedelta(0) else t.strftime("%z"),
    "Z07:00": lambda t: "Z" if t.utcoffset() == dt.timedelta(0) else _colon_offset(t),
}


def go_format(t: dt.datetime, layout: str) -> str:
    """`t` written with a Go reference-time layout (`2006-01-02T15:04:05Z07:00`)."""
    return _LAYOUT.sub(lambda m: _LAYOUT_PARTS[m.group(0)](t), layout)


def _duration(value: Any) -> GoDuration:
    if isinstance(value, GoDuration):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return GoDuration(value)
    raise EvalError(f"expected a duration, got {type_name(value)}")


def _time(value: Any) -> GoTime:
    if not isinstance(value, GoTime):
        raise EvalError(f"expected a time, got {type_name(value)}")
    return value


def type_name(value: Any) -> str:
    if value is None:
        return "nil"
    return {
        bool: "bool",
        int: "int",
        float: "float",
        str: "string",
        list: "array",
        dict: "map",
        GoTime: "time.Time",
        GoDuration: "time.Duration",
    }.get(type(value), type(value).__name__)


def parse(value: Any) -> GoTime:
    """`time.Parse`: RFC 3339, as Argo CD's helper reads it."""
    if not isinstance(value, str):
        raise EvalError(f"time.Parse: expected a string, got {type_name(value)}")
    try:
        return GoTime(parse_time(value))
    except ValueError as e:
        raise EvalError(f"time.Parse: {e}") from None


def now() -> GoTime:
    return GoTime(dt.datetime.now(dt.UTC))


_TIME_METHODS: dict[str, Callable[..., Any]] = {
    "Add": lambda t, d: GoTime(t.value + dt.timedelta(microseconds=_duration(d).nanoseconds / 1e3)),
    "Sub": lambda t, u: GoDuration(int((t.value - _time(u).value).total_seconds() * 1e9)),
    "Before": lambda t, u: t.value < _time(u).value,
    "After": lambda t, u: t.value > _time(u).value,
    "Equal": lambda t, u: t.value == _time(u).value,
    "Unix": lambda t: int(t.value.timestamp()),
    "UTC": lambda t: GoTime(t.value.astimezone(dt.UTC)),
    "Local": lambda t: GoTime(t.value.astimezone()),
    "Format": lambda t, layout: go_format(t.value, str(layout)),
    "IsZero": lambda t: t.value.timestamp() == 0,
}
_DURATION_METHODS: dict[str, Callable[..., Any]] = {
    "Hours": lambda d: d.nanoseconds / 3.6e12,
    "Minutes": lambda d: d.nanoseconds / 6e10,
    "Seconds": lambda d: d.nanoseconds / 1e9,
    "Milliseconds": lambda d: d.nanoseconds // 1_000_000,
    "String": str,
}
METHODS: dict[type, dict[str, Callable[..., Any]]] = {
    GoTime: _TIME_METHODS,
    GoDuration: _DURATION_METHODS,
}
"""The only methods an expression or template may call, by the type of the value."""


def method(value: Any, name: str) -> Callable[..., Any] | None:
    """The bound method `name` of a Go value, or None (maps, lists and scalars have none)."""
    found = METHODS.get(type(value), {}).get(name)
    if found is None:
        return None
    return lambda *args: found(value, *args)


NANOSECOND = 1
TIME: Mapping[str, Any] = {
    "Now": now,
    "Parse": parse,
    "Nanosecond": GoDuration(NANOSECOND),
    "Microsecond": GoDuration(1000),
    "Millisecond": GoDuration(1_000_000),
    "Second": GoDuration(1_000_000_000),
    "Minute": GoDuration(60_000_000_000),
    "Hour": GoDuration(3_600_000_000_000),
    "RFC3339": "2006-01-02T15:04:05Z07:00",
    "RFC3339Nano": "2006-01-02T15:04:05.999999999Z07:00",
    "RFC1123": "Mon, 02 Jan 2006 15:04:05 MST",
    "Kitchen": "3:04PM",
}
"""The `time` helper, as Argo CD's `time.*` functions and constants."""

STRINGS: Mapping[str, Any] = {
    "ReplaceAll": lambda s, old, new: str(s).replace(str(old), str(new)),
    "ToUpper": lambda s: str(s).upper(),
    "ToLower": lambda s: str(s).lower(),
}
"""The `strings` helper, as Argo CD's `strings.*` functions."""

HELPERS: Mapping[str, Any] = {"time": TIME, "strings": STRINGS}
"""Names both evaluators see next to `app`, `appProject` and `context`."""
