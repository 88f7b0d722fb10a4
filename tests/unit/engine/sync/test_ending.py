"""An operation that cannot run ends in Error: retried when it may succeed later, never
when its Application is gone."""

from datetime import timedelta

import pytest

from app.engine.sync import abandon, error_out, start, unplanned
from app.engine.sync.messages import APP_GONE
from app.model.app_spec import RetryStrategy
from app.model.sync import OperationPhase
from tests.unit.engine.sync.builders import REVISION, obj, operation, plan
from tests.unit.engine.sync.fake_cluster import T0

RETRIED = operation(retry=RetryStrategy(limit=3))


def test_a_refused_operation_is_retried_as_its_policy_says() -> None:
    ended = error_out(start(plan([obj("ConfigMap", "c")], op=RETRIED), T0), "refused", T0)
    assert (ended.phase, ended.retry_count, ended.retrying) == (OperationPhase.RUNNING, 1, True)
    assert ended.message.startswith("refused. Retrying attempt #1 at ")


@pytest.mark.parametrize("planned", [True, False], ids=["planned", "unplanned"])
def test_a_gone_apps_operation_ends_at_once_without_retries(planned: bool) -> None:
    state = (
        start(plan([obj("ConfigMap", "c")], op=RETRIED), T0)
        if planned
        else unplanned("shop", RETRIED, "2026-11-29T12:00:00Z", T0)
    )
    ended = abandon(state, T0)
    assert (ended.phase, ended.message, ended.retry_at) == (OperationPhase.ERROR, APP_GONE, None)
    assert ended.operation.retry is None
    assert not ended.retrying


def test_an_unplanned_operation_keeps_its_start_time_and_revision() -> None:
    state = unplanned("shop", RETRIED, "2026-11-29T12:00:00Z", T0 + timedelta(hours=1))
    assert (state.app, state.revision, state.started_at, state.tasks) == ("shop", REVISION, T0, ())
    assert unplanned("shop", RETRIED, "", T0).started_at == T0
