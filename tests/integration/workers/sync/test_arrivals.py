"""Which step messages act: the stored step, or the message that stored the state; no other."""

import pytest

from app.store.operations import SyncRecord
from workers.sync.arrivals import Arrival, arrival

STORED = SyncRecord("op-2", 7, {"schema": 1}, terminate=False, finalized=False, origin=4)


@pytest.mark.parametrize(
    ("record", "operation", "step", "expected"),
    [
        pytest.param(STORED, "op-2", 7, Arrival.CURRENT, id="the-stored-step-is-taken"),
        pytest.param(STORED, "op-2", 4, Arrival.RESUMED, id="the-storing-message-resumes"),
        pytest.param(STORED, "op-2", 6, Arrival.STALE, id="a-step-taken-since-is-stale"),
        pytest.param(STORED, "op-2", 8, Arrival.STALE, id="a-future-step-is-stale"),
        pytest.param(STORED, "op-1", 7, Arrival.STALE, id="another-operation-is-stale"),
        pytest.param(None, "op-2", 7, Arrival.STALE, id="no-operation-is-stale"),
    ],
)
def test_a_step_message_acts_only_on_the_stored_step_or_as_the_one_that_stored_it(
    record: SyncRecord | None, operation: str, step: int, expected: Arrival
) -> None:
    assert arrival(record, operation, step) is expected
