"""What a step message may do, given the operation as stored.

Step messages name an operation and a step. The store's counter says which step is next
(`OperationStore.advance` moves it by one per persisted state), and each stored state
records the step of the message whose handling stored it (`origin`), so:

- CURRENT: the message names the stored step: take it.
- RESUMED: the message is the one whose handling stored the current state, delivered
  again: its handler died (or a publish failed) after persisting, perhaps before acting
  or following on. Whatever the state still owes is done: actions in flight are
  performed (they are idempotent), and the follow-up (the next step, a timer, the
  finish) is done again, which is idempotent too.
- STALE: another operation, or a step whose state has been taken further since:
  acknowledged and dropped.
"""

import enum

from app.store.operations import SyncRecord


class Arrival(enum.Enum):
    CURRENT = "current"
    RESUMED = "resumed"
    STALE = "stale"


def arrival(record: SyncRecord | None, operation: str, step: int) -> Arrival:
    """How a message for (`operation`, `step`) relates to the stored `record`."""
    if record is None or record.id != operation:
        return Arrival.STALE
    if step == record.step:
        return Arrival.CURRENT
    if step == record.origin:
        return Arrival.RESUMED
    return Arrival.STALE
