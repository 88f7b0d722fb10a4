"""Deterministic names for `generateName` hooks.

A hook with only `metadata.generateName` gets a name formed from the operation, so that
re-running a step (after a crash, on another replica) addresses the same object instead
of creating a second one: generateName + lower("<rev[:7]>-<phase>-<startedAt unix s>"),
with the whole revision when it has fewer than 8 characters.
"""

from datetime import datetime

from app.model.sync import SyncPhase

SHORT_REVISION = 7


def hook_name(generate_name: str, revision: str, phase: SyncPhase, started_at: datetime) -> str:
    """The name a `generateName` hook gets for this operation and phase."""
    short = revision[:SHORT_REVISION] if len(revision) > SHORT_REVISION else revision
    postfix = f"{short}-{phase.value}-{int(started_at.timestamp())}".lower()
    return f"{generate_name}{postfix}"
