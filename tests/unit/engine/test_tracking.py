"""Tracking (SEMANTICS §4 "Tracking"): ownership marks, self-reference, managed set, pruning."""

from typing import Any

import pytest

from app.engine.tracking import (
    TrackingId,
    TrackingMethod,
    instance_label_value,
    is_tracked_by,
    normalize_tracking,
    owning_app,
    place_target,
    requires_pruning,
    select_managed,
    set_tracking,
)
from app.model.annotations import INSTANCE_LABEL, TRACKING_ID
from app.model.errors import SpecError
from app.model.resource import ResourceKey

ANNOTATION = TrackingMethod.ANNOTATION
LABEL = TrackingMethod.LABEL
BOTH = TrackingMethod.ANNOTATION_AND_LABEL


def obj(
    *,
    kind: str = "Deployment",
    name: str = "web",
    namespace: str = "prod",
    api: str = "apps/v1",
    ann: dict[str, str] | None = None,
    lab: dict[str, str] | None = None,
    **meta: Any,
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, **meta}
    if namespace:
        metadata["namespace"] = namespace
    if ann:
        metadata["annotations"] = ann
    if lab:
        metadata["labels"] = lab
    return {"apiVersion": api, "kind": kind, "metadata": metadata}


def test_annotation_tracking_id_format() -> None:
    tracked = set_tracking(obj(), app="guestbook", method=ANNOTATION, default_namespace="prod")
    assert tracked["metadata"]["annotations"] == {TRACKING_ID: "guestbook:apps/Deployment:prod/web"}
    assert "labels" not in tracked["metadata"]


def test_cluster_scoped_id_uses_destination_namespace_and_core_group_is_empty() -> None:
    ns = obj(kind="Namespace", name="team", namespace="", api="v1")
    tracked = set_tracking(ns, app="guestbook", method=ANNOTATION, default_namespace="prod")
    assert tracked["metadata"]["annotations"][TRACKING_ID] == "guestbook:/Namespace:prod/team"


def test_set_tracking_copies_and_keeps_existing_metadata() -> None:
    target = obj(ann={"a": "1"}, lab={"l": "2"})
    tracked = set_tracking(target, app="guestbook", method=BOTH, default_namespace="prod")
    assert tracked["metadata"]["annotations"]["a"] == "1"
    assert tracked["metadata"]["labels"] == {"l": "2", INSTANCE_LABEL: "guestbook"}
    assert target["metadata"]["annotations"] == {"a": "1"}
    assert "app.kubernetes.io/instance" not in target["metadata"]["labels"]


def test_label_tracking_sets_only_the_label() -> None:
    tracked = set_tracking(obj(), app="guestbook", method=LABEL, default_namespace="prod")
    assert tracked["metadata"]["labels"] == {INSTANCE_LABEL: "guestbook"}
    assert "annotations" not in tracked["metadata"]


LONG = "a" * 62 + "-b" + "c" * 10


def test_long_name_label_tracking_is_an_error_naming_the_fix() -> None:
    with pytest.raises(SpecError, match="longer than the 63 a label holds; use annotation"):
        instance_label_value(LONG, LABEL)


def test_long_name_annotation_and_label_truncates_to_alphanumeric_end() -> None:
    assert instance_label_value(LONG, BOTH) == "a" * 62
    assert len(instance_label_value("x" * 80, BOTH)) == 63


OWNERSHIP = [
    pytest.param(
        obj(ann={TRACKING_ID: "guestbook:apps/Deployment:prod/web"}),
        ANNOTATION,
        "guestbook",
        id="annotation names the object itself",
    ),
    pytest.param(
        obj(name="web-copy", ann={TRACKING_ID: "guestbook:apps/Deployment:prod/web"}),
        ANNOTATION,
        None,
        id="self-reference: annotation copied to another name does not count",
    ),
    pytest.param(
        obj(kind="ReplicaSet", ann={TRACKING_ID: "guestbook:apps/Deployment:prod/web"}),
        ANNOTATION,
        None,
        id="self-reference: annotation copied to another kind does not count",
    ),
    pytest.param(
        obj(namespace="staging", ann={TRACKING_ID: "guestbook:apps/Deployment:prod/web"}),
        ANNOTATION,
        None,
        id="self-reference: annotation copied to another namespace does not count",
    ),
    pytest.param(
        obj(
            kind="ClusterRole",
            api="rbac.authorization.k8s.io/v1",
            namespace="",
            ann={TRACKING_ID: "guestbook:rbac.authorization.k8s.io/ClusterRole:prod/web"},
        ),
        ANNOTATION,
        "guestbook",
        id="cluster-scoped object matches any namespace in its id",
    ),
    pytest.param(
        obj(ann={TRACKING_ID: "not a tracking id"}),
        ANNOTATION,
        None,
        id="malformed tracking id is not ownership",
    ),
    pytest.param(
        obj(lab={INSTANCE_LABEL: "guestbook"}),
        ANNOTATION,
        None,
        id="annotation method ignores the label",
    ),
    pytest.param(
        obj(lab={INSTANCE_LABEL: "guestbook"}),
        BOTH,
        None,
        id="annotation+label tracks by the annotation only",
    ),
    pytest.param(
        obj(lab={INSTANCE_LABEL: "guestbook"}),
        LABEL,
        "guestbook",
        id="label method reads the label",
    ),
]


@pytest.mark.parametrize(("live", "method", "owner"), OWNERSHIP)
def test_owning_app(live: dict[str, Any], method: TrackingMethod, owner: str | None) -> None:
    assert owning_app(live, method) == owner


def test_label_tracking_of_a_long_name_compares_the_truncated_label() -> None:
    live = obj(lab={INSTANCE_LABEL: instance_label_value("x" * 80, BOTH)})
    assert owning_app(live, LABEL) == "x" * 63
    assert not is_tracked_by(live, "x" * 62, LABEL)


def test_tracking_id_round_trip() -> None:
    text = "app:apps/Deployment:ns/name"
    parsed = TrackingId.parse(text)
    assert parsed == TrackingId("app", "apps", "Deployment", "ns", "name")
    assert str(parsed) == text


def mine(name: str, **meta: Any) -> dict[str, Any]:
    return obj(name=name, ann={TRACKING_ID: f"guestbook:apps/Deployment:prod/{name}"}, **meta)


def test_managed_set_selection() -> None:
    live = [
        mine("tracked"),
        mine("child", ownerReferences=[{"kind": "Deployment", "name": "tracked"}]),
        obj(name="untracked-target"),
        obj(name="untracked-other"),
        obj(name="other-app", ann={TRACKING_ID: "other:apps/Deployment:prod/other-app"}),
    ]
    target_keys = [ResourceKey("apps", "Deployment", "prod", "untracked-target")]
    managed = select_managed(live, target_keys, app="guestbook", method=ANNOTATION)
    assert sorted(k.name for k in managed) == ["tracked", "untracked-target"]


def test_managed_set_includes_a_target_key_tracked_by_another_app() -> None:
    live = [obj(name="shared", ann={TRACKING_ID: "other:apps/Deployment:prod/shared"})]
    keys = [ResourceKey("apps", "Deployment", "prod", "shared")]
    assert list(select_managed(live, keys, app="guestbook", method=ANNOTATION)) == keys


PRUNING = [
    pytest.param(None, mine("x"), True, id="requiresPruning: no target, live tracked"),
    pytest.param(obj(name="x"), mine("x"), False, id="requiresPruning: target exists"),
    pytest.param(None, None, False, id="requiresPruning: nothing live"),
    pytest.param(None, obj(name="x"), False, id="requiresPruning: live not tracked by the app"),
    pytest.param(
        None,
        obj(name="y", ann={TRACKING_ID: "guestbook:apps/Deployment:prod/x"}),
        False,
        id="requiresPruning: copied annotation is not self-referenced",
    ),
]


@pytest.mark.parametrize(("target", "live", "expected"), PRUNING)
def test_requires_pruning(
    target: dict[str, Any] | None, live: dict[str, Any] | None, expected: bool
) -> None:
    assert requires_pruning(target, live, app="guestbook", method=ANNOTATION) is expected


def test_tracking_normalization_copies_a_leftover_live_label_into_the_target() -> None:
    target = obj()
    live = obj(lab={INSTANCE_LABEL: "guestbook"})
    assert normalize_tracking(target, live, ANNOTATION)["metadata"]["labels"] == {
        INSTANCE_LABEL: "guestbook"
    }
    assert "labels" not in target["metadata"]
    assert normalize_tracking(target, live, LABEL) is target


PLACEMENT = [
    pytest.param(obj(namespace=""), "prod", "prod", id="namespaced target gets destination"),
    pytest.param(obj(namespace="other"), "prod", "other", id="explicit namespace kept"),
    pytest.param(
        obj(kind="ClusterRole", api="rbac.authorization.k8s.io/v1", namespace="prod"),
        "prod",
        None,
        id="cluster-scoped target loses a namespace",
    ),
    pytest.param(
        obj(kind="Widget", api="example.com/v1", namespace=""),
        "prod",
        "prod",
        id="unknown kind assumed namespaced",
    ),
]


@pytest.mark.parametrize(("target", "dest", "expected"), PLACEMENT)
def test_place_target(target: dict[str, Any], dest: str, expected: str | None) -> None:
    assert place_target(target, dest, {})["metadata"].get("namespace") == expected


def test_place_target_uses_discovery_scopes_first() -> None:
    widget = obj(kind="Widget", api="example.com/v1", namespace="prod")
    placed = place_target(widget, "prod", {("example.com", "Widget"): False})
    assert "namespace" not in placed["metadata"]
