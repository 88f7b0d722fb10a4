"""Which step messages act: the current step, the one that produced the stored state, no other."""

import pytest

from app.store.operations import SyncRecord
from workers.syncing.arrivals import Arrival, arrival

STORED = SyncRecord("op-2", 7, {"schema": 1}, terminate=False, finalized=False)


@pytest.mark.parametrize(
    ("record", "operation", "step", "expected"),
    [
        pytest.param(STORED, "op-2", 7, Arrival.CURRENT, id="the-stored-step-is-taken"),
        pytest.param(STORED, "op-2", 6, Arrival.REPEATED, id="the-producing-step-is-repeated"),
        pytest.param(STORED, "op-2", 5, Arrival.STALE, id="an-older-step-is-stale"),
        pytest.param(STORED, "op-2", 8, Arrival.STALE, id="a-future-step-is-stale"),
        pytest.param(STORED, "op-1", 7, Arrival.STALE, id="another-operation-is-stale"),
        pytest.param(None, "op-2", 7, Arrival.STALE, id="no-operation-is-stale"),
    ],
)
def test_a_step_message_acts_only_on_the_stored_step_or_the_one_before(
    record: SyncRecord | None, operation: str, step: int, expected: Arrival
) -> None:
    assert arrival(record, operation, step) is expected
