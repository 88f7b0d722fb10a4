"""Go-style durations (`5s`, `3m`, `1h30m`, `500ms`) as Argo CD writes them."""

import re

from app.model.errors import SpecError

_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")


def parse_duration(text: str, field: str = "") -> float:
    """Seconds in a Go duration string; a bare number is taken as seconds (Argo CD does too)."""
    s = text.strip()
    if not s:
        raise SpecError(field, "empty duration; write it like 5s, 3m or 1h30m")
    if re.fullmatch(r"\d+", s):
        return float(s)
    sign = -1.0 if s.startswith("-") else 1.0
    body = s.lstrip("+-")
    pos, total = 0, 0.0
    for match in _PART.finditer(body):
        if match.start() != pos:
            break
        total += float(match.group(1)) * _UNITS[match.group(2)]
        pos = match.end()
    if pos != len(body) or pos == 0:
        raise SpecError(field, f"invalid duration {text!r}; write it like 5s, 3m or 1h30m")
    return sign * total
