"""What a step message may do, given the operation as stored.

Step messages name an operation and a step. The store's counter says which step is next
(`OperationStore.advance` moves it by one per persisted state), so:

- CURRENT: the message names the stored step: take it.
- REPEATED: the message names the step just before the stored one: it is the message
  whose handling produced the stored state, delivered again (its handler died after
  persisting, or a publish failed and the message came back), or a late twin of it (a
  timer and a wake-up for the same step). Whatever that state still owes is done
  again: actions in flight are performed, and the follow-up (publish, timer, finish) is
  repeated, which is idempotent.
- STALE: another operation, or a step long gone: acknowledged and dropped.
"""

import enum

from app.store.operations import SyncRecord


class Arrival(enum.Enum):
    CURRENT = "current"
    REPEATED = "repeated"
    STALE = "stale"


def arrival(record: SyncRecord | None, operation: str, step: int) -> Arrival:
    """How a message for (`operation`, `step`) relates to the stored `record`."""
    if record is None or record.id != operation:
        return Arrival.STALE
    if step == record.step:
        return Arrival.CURRENT
    if step == record.step - 1:
        return Arrival.REPEATED
    return Arrival.STALE
