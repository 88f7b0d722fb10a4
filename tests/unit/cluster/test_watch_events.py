"""Watch bookkeeping: each change delivered once, relists turned into differences."""

from app.cluster.watch_events import EventType, KnownObjects, WatchEvent


def cm(name: str, rv: str, uid: str = "", namespace: str = "shop") -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": uid or f"uid-{name}",
            "resourceVersion": rv,
        },
    }


def summary(events: list[WatchEvent]) -> list[tuple[str, str, str]]:
    return [
        (e.type.value, e.object["metadata"]["name"], e.object["metadata"]["resourceVersion"])
        for e in events
    ]


def test_first_list_is_all_added() -> None:
    known = KnownObjects("v1", "ConfigMap")
    events = known.relist([cm("a", "1"), cm("b", "2")])
    assert summary(events) == [("ADDED", "a", "1"), ("ADDED", "b", "2")]
    assert len(known) == 2


def test_repeated_events_are_dropped() -> None:
    known = KnownObjects("v1", "ConfigMap")
    known.relist([cm("a", "1")])
    assert known.observe(EventType.ADDED, cm("a", "1")) is None
    assert known.observe(EventType.MODIFIED, cm("a", "1")) is None
    changed = known.observe(EventType.MODIFIED, cm("a", "5"))
    assert changed is not None and changed.type is EventType.MODIFIED
    assert known.observe(EventType.MODIFIED, cm("a", "5")) is None


def test_delete_is_delivered_once() -> None:
    known = KnownObjects("v1", "ConfigMap")
    known.relist([cm("a", "1")])
    first = known.observe(EventType.DELETED, cm("a", "7"))
    assert first is not None and first.type is EventType.DELETED
    assert known.observe(EventType.DELETED, cm("a", "7")) is None
    assert len(known) == 0


def test_relist_delivers_only_the_differences() -> None:
    known = KnownObjects("v1", "ConfigMap")
    known.relist([cm("same", "1"), cm("changed", "2"), cm("gone", "3"), cm("recreated", "4")])
    events = known.relist(
        [cm("same", "1"), cm("changed", "9"), cm("recreated", "10", uid="new-uid"), cm("new", "11")]
    )
    assert summary(events) == [
        ("MODIFIED", "changed", "9"),
        ("DELETED", "recreated", "4"),
        ("ADDED", "recreated", "10"),
        ("ADDED", "new", "11"),
        ("DELETED", "gone", "3"),
    ]


def test_a_relist_in_pages_deletes_the_vanished_once_the_last_page_is_in() -> None:
    known = KnownObjects("v1", "ConfigMap")
    known.relist([cm("a", "1"), cm("b", "2"), cm("gone", "3")])
    known.begin_relist()
    assert summary(known.listed([cm("a", "1")])) == []
    assert summary(known.listed([cm("b", "5")])) == [("MODIFIED", "b", "5")]
    assert summary(known.end_relist()) == [("DELETED", "gone", "3")]
    assert len(known) == 2


def test_a_relist_started_over_forgets_the_pages_before() -> None:
    known = KnownObjects("v1", "ConfigMap")
    known.relist([cm("a", "1"), cm("b", "2")])
    known.begin_relist()
    known.listed([cm("a", "1")])
    known.begin_relist()
    assert summary(known.listed([cm("b", "2")])) == []
    assert summary(known.end_relist()) == [("DELETED", "a", "1")]


def test_relist_tombstone_names_the_vanished_object() -> None:
    known = KnownObjects("v1", "ConfigMap")
    known.relist([cm("gone", "3")])
    (event,) = known.relist([])
    assert event.object == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": "gone",
            "namespace": "shop",
            "uid": "uid-gone",
            "resourceVersion": "3",
        },
    }


def test_same_name_in_two_namespaces_are_two_objects() -> None:
    known = KnownObjects("v1", "ConfigMap")
    events = known.relist([cm("a", "1", namespace="x"), cm("a", "2", namespace="y")])
    assert len(events) == 2 and len(known) == 2
