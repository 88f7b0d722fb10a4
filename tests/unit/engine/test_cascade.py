"""Cascade deletion of an app's resources: what goes, what stays, when the finalizer comes off."""

from typing import Any

import pytest

from app.engine.cascade import cascade_step, is_cascade_finalizer
from app.model.annotations import DELETION_APPROVED, RESOURCES_FINALIZER, SYNC_OPTIONS
from app.model.application import Application
from app.model.sync import Propagation

DELETED_AT = "2026-11-29T12:00:00Z"


def app(*, finalizers: list[str] | None = None, options: list[str] | None = None,
        annotations: dict[str, str] | None = None) -> Application:  # fmt: skip
    return Application.from_dict(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "Application",
            "metadata": {
                "name": "web",
                "namespace": "sluice",
                "finalizers": finalizers if finalizers is not None else [RESOURCES_FINALIZER],
                "deletionTimestamp": DELETED_AT,
                "annotations": annotations or {},
            },
            "spec": {
                "destination": {"server": "https://kubernetes.default.svc", "namespace": "d"},
                "source": {"repoURL": "https://example.com/r.git", "path": "."},
                "syncPolicy": {"syncOptions": options or []},
            },
        }
    )


def obj(kind: str, name: str, api_version: str = "v1", **meta: Any) -> dict[str, Any]:
    metadata = {"name": name, "namespace": "d", **meta}
    return {"apiVersion": api_version, "kind": kind, "metadata": metadata}


def names(objects: tuple[dict[str, Any], ...]) -> list[str]:
    return [o["metadata"]["name"] for o in objects]


def test_deletes_every_managed_object_foreground_then_removes_only_its_finalizer() -> None:
    subject = app(finalizers=["other.io/keep", RESOURCES_FINALIZER])
    step = cascade_step(subject, [obj("ConfigMap", "b"), obj("Service", "a")])
    assert names(step.delete) == ["b", "a"]
    assert step.propagation is Propagation.FOREGROUND
    assert not step.done
    finished = cascade_step(subject, [])
    assert finished.done and finished.finalizers == ("other.io/keep",)


RULES = [
    (
        "owned-objects-follow-their-owner",
        obj("Pod", "p", ownerReferences=[{"uid": "1"}]),
        "none",
        "",
    ),
    (
        "crd-is-kept",
        obj("CustomResourceDefinition", "x.example.com", "apiextensions.k8s.io/v1", namespace=""),
        "kept",
        "never deleted",
    ),
    (
        "delete-false-is-kept",
        obj("ConfigMap", "c", annotations={SYNC_OPTIONS: "Delete=false"}),
        "kept",
        "Delete=false",
    ),
    (
        "being-deleted-is-waited-for",
        obj("ConfigMap", "c", deletionTimestamp=DELETED_AT),
        "waiting",
        "being deleted",
    ),
    (
        "delete-confirm-waits-for-approval",
        obj("ConfigMap", "c", annotations={SYNC_OPTIONS: "Delete=confirm"}),
        "waiting",
        DELETION_APPROVED,
    ),
    ("plain-object-is-deleted", obj("ConfigMap", "c"), "delete", ""),
]


@pytest.mark.parametrize(("live", "outcome", "text"), [r[1:] for r in RULES],
                         ids=[r[0] for r in RULES])  # fmt: skip
def test_per_object_rules(live: dict[str, Any], outcome: str, text: str) -> None:
    step = cascade_step(app(), [live])
    found = {
        "delete": bool(step.delete),
        "kept": bool(step.kept),
        "waiting": bool(step.waiting),
    }
    assert found == {k: k == outcome for k in found}
    assert text in " ".join(step.kept + step.waiting)
    assert step.done is (outcome in ("kept", "none"))


def test_app_level_delete_false_keeps_everything_unless_the_resource_says_otherwise() -> None:
    subject = app(options=["Delete=false"])
    kept = obj("ConfigMap", "kept")
    overridden = obj("ConfigMap", "gone", annotations={SYNC_OPTIONS: "Delete=true"})
    step = cascade_step(subject, [kept, overridden])
    assert names(step.delete) == ["gone"] and len(step.kept) == 1


APPROVALS = [
    ("approved-after-deletion", "2026-11-29T12:00:05Z", True),
    ("approved-at-deletion", DELETED_AT, True),
    ("approved-before-deletion", "2026-11-29T11:59:59Z", False),
    ("not-a-time", "yes", False),
]


@pytest.mark.parametrize(("approved", "deletes"), [a[1:] for a in APPROVALS],
                         ids=[a[0] for a in APPROVALS])  # fmt: skip
def test_delete_confirm_needs_an_approval_at_or_after_the_deletion(
    approved: str, deletes: bool
) -> None:
    subject = app(annotations={DELETION_APPROVED: approved})
    confirm = obj("ConfigMap", "c", annotations={SYNC_OPTIONS: "Delete=confirm"})
    assert bool(cascade_step(subject, [confirm]).delete) is deletes


def test_finalizer_variants() -> None:
    background = app(finalizers=[f"{RESOURCES_FINALIZER}/background"])
    assert is_cascade_finalizer(f"{RESOURCES_FINALIZER}/background")
    assert cascade_step(background, [obj("ConfigMap", "c")]).propagation is Propagation.BACKGROUND
    assert cascade_step(background, []).finalizers == ()
    assert is_cascade_finalizer(f"{RESOURCES_FINALIZER}/foreground")
    assert not is_cascade_finalizer("other.io/keep")
