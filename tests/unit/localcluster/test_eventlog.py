"""The change log: bounded history per resource, resumption, 410 when compacted."""

from app.localcluster.eventlog import ADDED, Change, EventLog
from app.localcluster.resources import GroupResource

PODS = GroupResource("", "pods")
CMS = GroupResource("", "configmaps")


def change(revision: int, resource: GroupResource = PODS) -> Change:
    return Change(revision, ADDED, resource, {"metadata": {"name": f"o{revision}"}})


def test_since_returns_later_changes_of_that_resource_in_order() -> None:
    log = EventLog(history=10)
    for rv, resource in [(1, PODS), (2, CMS), (3, PODS), (4, PODS)]:
        log.publish(change(rv, resource))
    assert [c.revision for c in log.since(PODS, 1) or []] == [3, 4]
    assert [c.revision for c in log.since(PODS, 4) or []] == []


def test_resuming_from_before_the_history_is_refused() -> None:
    log = EventLog(history=3)
    for rv in range(1, 7):
        log.publish(change(rv))
    assert log.since(PODS, 2) is None
    assert log.oldest_resumable(PODS) == 3
    assert [c.revision for c in log.since(PODS, 3) or []] == [4, 5, 6]


def test_other_resources_are_not_compacted_by_a_busy_one() -> None:
    log = EventLog(history=2)
    log.publish(change(1, CMS))
    for rv in range(2, 10):
        log.publish(change(rv))
    assert [c.revision for c in log.since(CMS, 0) or []] == [1]


def test_after_a_restart_nothing_before_it_can_be_resumed() -> None:
    log = EventLog(history=10)
    log.restart_at(50)
    assert log.since(PODS, 49) is None
    assert log.since(PODS, 50) == []


def test_listeners_see_each_change_once_and_can_stop() -> None:
    log = EventLog(history=10)
    pods: list[int] = []
    every: list[int] = []
    stop = log.listen(PODS, lambda c: pods.append(c.revision))
    log.listen(None, lambda c: every.append(c.revision))
    log.publish(change(1))
    log.publish(change(2, CMS))
    stop()
    log.publish(change(3))
    assert pods == [1]
    assert every == [1, 2, 3]


def test_event_line_is_encoded_once() -> None:
    c = change(1)
    assert c.line() is c.line()
    assert c.line().endswith(b"\n") and c.line().startswith(b'{"type":"ADDED"')
