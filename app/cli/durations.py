"""Durations as `argocd` takes them (`--expires-in 24h`): Go-style `1h30m`, `90s`, `7d`."""

import re

from app.cli.client import CliError

_PART = re.compile(r"(\d+)(d|h|m|s)")
_SECONDS = {"d": 86400, "h": 3600, "m": 60, "s": 1}


def seconds(text: str, flag: str) -> int:
    """`text` in seconds; `0` and `0s` mean never. CliError naming `flag` otherwise."""
    value = text.strip()
    if value == "0":
        return 0
    parts = _PART.findall(value)
    if not parts or "".join(n + u for n, u in parts) != value:
        raise CliError(f"{flag}: {text!r} is not a duration such as 24h, 30m or 7d")
    return sum(int(n) * _SECONDS[u] for n, u in parts)
