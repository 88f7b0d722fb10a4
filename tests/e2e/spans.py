"""Handler runs read back from the workers' JSON logs: when each began and ended, where.

A run is the pair of `<prefix>.step_started` and `<prefix>.step_ended` records one
replica logged for one message (same app, operation and step); its times are the
records' timestamps. `overlaps` lists the runs of one app that overlapped in time,
whichever replicas ran them.
"""

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from app.model.timestamps import parse_time


@dataclass(frozen=True, slots=True)
class Span:
    app: str
    operation: str
    step: int
    replica: str
    start: float
    end: float


def _time(record: dict[str, Any]) -> float:
    return parse_time(str(record["timestamp"])).timestamp()


def spans(records: Iterable[tuple[str, dict[str, Any]]], prefix: str) -> tuple[list[Span], int]:
    """The runs found in (replica, record) pairs, and how many starts never ended."""
    started: dict[tuple[str, str, str, int], list[float]] = defaultdict(list)
    found: list[Span] = []
    for replica, record in records:
        event = record.get("event")
        if event not in (f"{prefix}.step_started", f"{prefix}.step_ended"):
            continue
        key = (replica, str(record["app"]), str(record["operation"]), int(record["step"]))
        if event.endswith("started"):
            started[key].append(_time(record))
        elif started[key]:
            found.append(Span(key[1], key[2], key[3], replica, started[key].pop(0), _time(record)))
    return found, sum(len(v) for v in started.values())


def overlaps(runs: Iterable[Span]) -> list[tuple[Span, Span]]:
    """Pairs of runs of the same app that overlapped in time."""
    by_app: dict[str, list[Span]] = defaultdict(list)
    for run in runs:
        by_app[run.app].append(run)
    found = []
    for app_runs in by_app.values():
        app_runs.sort(key=lambda r: (r.start, r.end))
        latest = app_runs[0]
        for run in app_runs[1:]:
            if run.start < latest.end:
                found.append((latest, run))
            if run.end > latest.end:
                latest = run
    return found
