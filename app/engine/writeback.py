"""Writing the compare-owned status back to the Application resource: what, and when.

Two writers share `Application.status` (docs/pipeline.md): compare owns `sync`, `health`,
`resources`, `conditions`, `reconciledAt`, `observedAt`, `sourceType(s)` and `summary`;
the sync worker owns `operationState` and `history`. Each writes a JSON merge patch of
its own fields only, so neither can undo the other's write, and no read is needed first.

The patch carries every owned field in full (so a write that failed earlier is repaired
by the next one), `null` for an owned field the new status leaves out (a cleared list
of conditions), and `null` for keys inside owned objects that the previous status had
and the new one drops (a source that lost its `directory` block): a merge patch would
otherwise keep them.

A write is skipped when the new status differs from the previous one only in the
reconcile times (`same_content`), the previous one is known to be on the resource, and
that write is younger than the resync period (with the periodic resync off, reconcile
times alone never cause a write): a steady resync of an unchanged app then costs no API
call. The caller records when a write last landed; a failed write records none, so the
next comparison writes again.
"""

from dataclasses import dataclass, replace
from typing import Any

from app.model import codec
from app.model.status import ApplicationStatus

OWNED_FIELDS = (
    "sync",
    "health",
    "resources",
    "conditions",
    "reconciledAt",
    "observedAt",
    "sourceType",
    "sourceTypes",
    "summary",
)
"""JSON names of the status fields the compare stage writes."""


def owned_fields(status: ApplicationStatus) -> dict[str, Any]:
    """The compare-owned fields of `status` as JSON (fields left out are empty)."""
    encoded = codec.encode(status)
    return {name: encoded[name] for name in OWNED_FIELDS if name in encoded}


def same_content(previous: ApplicationStatus | None, status: ApplicationStatus) -> bool:
    """True if the two statuses differ at most in their reconcile times."""
    if previous is None:
        return False
    untimed = replace(previous, reconciled_at=status.reconciled_at, observed_at=status.observed_at)
    return untimed == status


def _replacing(previous: Any, new: Any) -> Any:
    """`new`, with `null` for every key of `previous` objects that `new` no longer has."""
    if not isinstance(previous, dict) or not isinstance(new, dict):
        return new
    out: dict[str, Any] = {k: _replacing(previous.get(k), v) for k, v in new.items()}
    for key in previous:
        if key not in new:
            out[key] = None
    return out


def status_patch(previous: dict[str, Any] | None, owned: dict[str, Any]) -> dict[str, Any]:
    """The merge patch `{"status": {...}}` that makes the resource's owned fields `owned`."""
    before = previous or {}
    body = {name: _replacing(before.get(name), owned.get(name)) for name in OWNED_FIELDS}
    return {"status": body}


@dataclass(frozen=True, slots=True)
class WriteDecision:
    write: bool
    reason: str


def decide_write(
    changed: bool, written_at: float, now: float, resync_period: float
) -> WriteDecision:
    """Whether to write a status; `changed`: not `same_content` as the previous one,
    `written_at`: when the previous one landed on the resource (Unix seconds, 0: it
    did not, or nobody knows)."""
    if written_at <= 0:
        return WriteDecision(True, "the Application does not hold the previous status")
    if changed:
        return WriteDecision(True, "the status changed")
    if resync_period <= 0:
        return WriteDecision(False, "only the reconcile time changed (periodic resync is off)")
    age = now - written_at
    if age < resync_period:
        return WriteDecision(
            False,
            f"only the reconcile time changed, last written {age:.0f}s ago "
            f"(within the {resync_period:g}s resync period)",
        )
    return WriteDecision(True, f"reconcile time last written {age:.0f}s ago")
