"""Conditions the cluster watcher keeps on an Application's status.

- `InvalidSpecError`: the Application does not parse, so it is not reconciled; the
  message names the field and the fix (the SpecError text). Removed once it parses.
- `DeletionError`: deleting the app's resources (cascade deletion) failed; the message
  says what and what to do. Removed once a step succeeds.

Each condition type appears at most once; it is replaced when its message changes and
every other condition is left as it is (other stages own them). Each function returns the
new condition list, or None when nothing would change, so an Application is never
written for nothing.
"""

from typing import Any

from app.model.status import CONDITION_INVALID_SPEC

DELETION_ERROR = "DeletionError"
"""Argo CD's condition type for a cascade deletion that failed."""
INVALID_SPEC = CONDITION_INVALID_SPEC
MAX_MESSAGE = 1024
"""Characters of a condition message kept (the rest is cut, marked with "...")."""


def _bounded(message: str) -> str:
    return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 3] + "..."


def _entries(conditions: Any) -> list[dict[str, Any]]:
    return [c for c in conditions if isinstance(c, dict)] if isinstance(conditions, list) else []


def with_condition(
    conditions: Any, kind: str, message: str, now: str
) -> list[dict[str, Any]] | None:
    """`status.conditions` carrying one `kind` condition with `message`; None if it does."""
    entries = _entries(conditions)
    text = _bounded(message)
    current = [c for c in entries if c.get("type") == kind]
    if len(current) == 1 and current[0].get("message") == text:
        return None
    others = [c for c in entries if c.get("type") != kind]
    return [*others, {"type": kind, "message": text, "lastTransitionTime": now}]


def without_condition(conditions: Any, kind: str) -> list[dict[str, Any]] | None:
    """`status.conditions` without `kind` conditions; None if there is none to remove."""
    entries = _entries(conditions)
    kept = [c for c in entries if c.get("type") != kind]
    return None if len(kept) == len(entries) else kept
