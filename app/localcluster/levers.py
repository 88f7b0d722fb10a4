"""Test levers: annotations that make a simulated workload slow, stuck or failing.

    localcluster.sluice.dev/never-ready: "true"   never becomes ready (stays Progressing)
    localcluster.sluice.dev/fail: "true"          fails: CrashLoopBackOff pods, a Deployment
                                                  ends ProgressDeadlineExceeded, a Job Failed,
                                                  a PVC Lost
    localcluster.sluice.dev/delay-seconds: "N"    takes N seconds instead of the cluster's delay

They are read from the object and from its pod template (`spec.template.metadata`), and
the Deployment and Job controllers copy them onto what they create. A malformed value is
refused when the object is written (422), so a test never runs with a lever silently off.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.localcluster.errors import Cause

PREFIX = "localcluster.sluice.dev/"
NEVER_READY = PREFIX + "never-ready"
FAIL = PREFIX + "fail"
DELAY = PREFIX + "delay-seconds"
ANNOTATIONS = (NEVER_READY, FAIL, DELAY)
MAX_DELAY_SECONDS = 3600.0
_BOOLEAN = {"true": True, "false": False}


@dataclass(frozen=True, slots=True)
class Levers:
    never_ready: bool = False
    fail: bool = False
    delay: float | None = None
    """Seconds this object takes; None: the cluster's configured delay."""


def lever_causes(annotations: Mapping[str, Any], path: str = "metadata.annotations") -> list[Cause]:
    """Why the lever annotations at `path` are malformed (empty when they are fine)."""
    causes: list[Cause] = []
    for key in (NEVER_READY, FAIL):
        value = annotations.get(key)
        if value is not None and value not in _BOOLEAN:
            causes.append(
                Cause(
                    "FieldValueInvalid",
                    f'Invalid value: {value!r}: use "true" or "false"',
                    f"{path}.{key}",
                )
            )
    value = annotations.get(DELAY)
    if value is not None:
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            seconds = -1.0
        if not 0 <= seconds <= MAX_DELAY_SECONDS:
            causes.append(
                Cause(
                    "FieldValueInvalid",
                    f"Invalid value: {value!r}: "
                    f"a number of seconds from 0 to {MAX_DELAY_SECONDS:g}",
                    f"{path}.{DELAY}",
                )
            )
    return causes


def _annotations(obj: Mapping[str, Any]) -> dict[str, Any]:
    meta = obj.get("metadata") or {}
    found = dict(meta.get("annotations") or {})
    template = (
        (obj.get("spec") or {}).get("template") if isinstance(obj.get("spec"), dict) else None
    )
    if isinstance(template, dict):
        found.update(((template.get("metadata") or {}).get("annotations")) or {})
    return {k: v for k, v in found.items() if k in ANNOTATIONS}


def levers_of(obj: Mapping[str, Any]) -> Levers:
    found = _annotations(obj)
    delay = found.get(DELAY)
    return Levers(
        never_ready=found.get(NEVER_READY) == "true",
        fail=found.get(FAIL) == "true",
        delay=float(delay) if delay is not None else None,
    )


def lever_annotations(obj: Mapping[str, Any]) -> dict[str, str]:
    """The lever annotations of `obj` (and its template), to copy onto what it creates."""
    return {k: str(v) for k, v in _annotations(obj).items()}
