"""The InvalidSpecError condition of an Application that does not parse.

An Application whose spec Sluice cannot read is not reconciled; the user learns why from
one `InvalidSpecError` condition on its status, whose message names the field and the
fix (the SpecError text). The condition is replaced when the problem changes and removed
once the spec parses again; every other condition is left as it is (other stages own
them). Each function returns the new condition list, or None when nothing would change,
so an unchanged Application is never written.
"""

from typing import Any

from app.model.status import CONDITION_INVALID_SPEC

MAX_MESSAGE = 1024
"""Characters of a condition message kept (the rest is cut, marked with "...")."""


def _bounded(message: str) -> str:
    return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 3] + "..."


def _entries(conditions: Any) -> list[dict[str, Any]]:
    return [c for c in conditions if isinstance(c, dict)] if isinstance(conditions, list) else []


def with_invalid_spec(conditions: Any, message: str, now: str) -> list[dict[str, Any]] | None:
    """`status.conditions` carrying InvalidSpecError `message`; None if it already does."""
    entries = _entries(conditions)
    text = _bounded(message)
    current = [c for c in entries if c.get("type") == CONDITION_INVALID_SPEC]
    if len(current) == 1 and current[0].get("message") == text:
        return None
    others = [c for c in entries if c.get("type") != CONDITION_INVALID_SPEC]
    condition = {"type": CONDITION_INVALID_SPEC, "message": text, "lastTransitionTime": now}
    return [*others, condition]


def without_invalid_spec(conditions: Any) -> list[dict[str, Any]] | None:
    """`status.conditions` without InvalidSpecError; None if there is none to remove."""
    entries = _entries(conditions)
    kept = [c for c in entries if c.get("type") != CONDITION_INVALID_SPEC]
    return None if len(kept) == len(entries) else kept
