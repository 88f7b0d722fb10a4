"""Ownership recorded for writes that are not applies (operation Update)."""

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.engine.merge import (
    FieldSet,
    GroupVersionKind,
    PatchError,
    record_update,
    server_side_apply,
)

REAL = yaml.safe_load((Path(__file__).parent / "cases" / "real_deployment.yaml").read_text())
DEPLOYMENT = GroupVersionKind("apps", "v1", "Deployment")
T0, T1, T2 = "2024-01-01T00:00:00Z", "2024-01-01T00:01:00Z", "2024-01-01T00:02:00Z"


def entries(obj: dict[str, Any]) -> list[dict[str, Any]]:
    return list(obj["metadata"].get("managedFields", []))


def test_create_records_what_a_real_api_server_records() -> None:
    created = record_update(
        None, REAL["object"], manager="kubectl-client-side-apply", gvk=DEPLOYMENT, now=T0
    )
    assert entries(created) == [
        {
            "manager": "kubectl-client-side-apply",
            "operation": "Update",
            "apiVersion": "apps/v1",
            "time": T0,
            "fieldsType": "FieldsV1",
            "fieldsV1": REAL["fieldsV1"],
        }
    ]


def test_status_write_records_a_subresource_entry_like_the_controller() -> None:
    created = record_update(None, REAL["object"], manager="kubectl", gvk=DEPLOYMENT, now=T0)
    updated = copy.deepcopy(created)
    updated["metadata"]["annotations"]["deployment.kubernetes.io/revision"] = "1"
    updated["status"] = {
        "availableReplicas": 1,
        "observedGeneration": 1,
        "readyReplicas": 1,
        "replicas": 1,
        "updatedReplicas": 1,
        "conditions": [
            {
                k: "x"
                for k in ("lastTransitionTime", "lastUpdateTime", "message", "reason", "status")
            }
            | {"type": kind}
            for kind in ("Available", "Progressing")
        ],
    }
    result = record_update(
        created,
        updated,
        manager="kube-controller-manager",
        gvk=DEPLOYMENT,
        now=T1,
        subresource="status",
    )
    controller = [e for e in entries(result) if e["manager"] == "kube-controller-manager"]
    assert controller == [
        {
            "manager": "kube-controller-manager",
            "operation": "Update",
            "apiVersion": "apps/v1",
            "time": T1,
            "fieldsType": "FieldsV1",
            "fieldsV1": REAL["status_fieldsV1"],
            "subresource": "status",
        }
    ]


def applied() -> dict[str, Any]:
    config = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {"replicas": 2, "paused": False},
    }
    return server_side_apply(None, config, manager="argocd", force=False, gvk=DEPLOYMENT, now=T0)


def owned(obj: dict[str, Any], manager: str) -> list[str]:
    found = [e for e in entries(obj) if e["manager"] == manager]
    return FieldSet.from_fields_v1(found[0]["fieldsV1"]).paths() if found else []


def test_an_update_takes_the_fields_it_changes_from_every_other_manager() -> None:
    live = applied()
    scaled = copy.deepcopy(live)
    scaled["spec"]["replicas"] = 7
    result = record_update(live, scaled, manager="hpa", gvk=DEPLOYMENT, now=T1)
    assert owned(result, "hpa") == [".spec.replicas"]
    assert ".spec.replicas" not in owned(result, "argocd")


def test_an_update_removing_a_field_takes_it_from_every_manager() -> None:
    live = applied()
    edited = copy.deepcopy(live)
    del edited["spec"]["paused"]
    result = record_update(live, edited, manager="kubectl-edit", gvk=DEPLOYMENT, now=T1)
    assert ".spec.paused" not in owned(result, "argocd")
    assert owned(result, "kubectl-edit") == []


def test_a_write_that_changes_nothing_keeps_entries_and_times() -> None:
    live = applied()
    same = copy.deepcopy(live)
    same["metadata"]["resourceVersion"] = "2"
    assert record_update(live, same, manager="kubectl", gvk=DEPLOYMENT, now=T1) == same


def test_updates_at_different_versions_are_different_entries() -> None:
    live = applied()
    a = copy.deepcopy(live)
    a["spec"]["replicas"] = 3
    a = record_update(live, a, manager="tool", gvk=DEPLOYMENT, now=T1)
    b = copy.deepcopy(a)
    b["spec"]["paused"] = True
    b = record_update(
        a, b, manager="tool", gvk=GroupVersionKind("apps", "v1beta2", "Deployment"), now=T2
    )
    assert [(e["manager"], e["operation"], e["apiVersion"]) for e in entries(b)] == [
        ("argocd", "Apply", "apps/v1"),
        ("tool", "Update", "apps/v1"),
        ("tool", "Update", "apps/v1beta2"),
    ]


def test_the_same_manager_accumulates_fields_and_moves_its_time() -> None:
    live = applied()
    first = copy.deepcopy(live)
    first["spec"]["replicas"] = 3
    first = record_update(live, first, manager="tool", gvk=DEPLOYMENT, now=T1)
    second = copy.deepcopy(first)
    second["spec"]["paused"] = True
    second = record_update(first, second, manager="tool", gvk=DEPLOYMENT, now=T2)
    tool = [e for e in entries(second) if e["manager"] == "tool"]
    assert tool[0]["time"] == T2
    assert owned(second, "tool") == [".spec.paused", ".spec.replicas"]


@pytest.mark.parametrize(
    ("sent", "expected_managers"),
    [
        pytest.param([], [], id="empty-list-clears"),
        pytest.param([{}], [], id="single-empty-entry-clears"),
        pytest.param(
            [
                {
                    "manager": "x",
                    "operation": "Update",
                    "apiVersion": "apps/v1",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:spec": {"f:paused": {}}},
                }
            ],
            ["x", "kubectl"],
            id="valid-entries-replace-stored-ones",
        ),
        pytest.param(
            [{"manager": "x", "operation": "Bogus"}],
            ["argocd", "kubectl"],
            id="invalid-entries-fall-back-to-stored-ones",
        ),
    ],
)
def test_managed_fields_sent_with_a_write(sent: Any, expected_managers: list[str]) -> None:
    live = applied()
    new = copy.deepcopy(live)
    new["spec"]["replicas"] = 4
    new["metadata"]["managedFields"] = sent
    result = record_update(live, new, manager="kubectl", gvk=DEPLOYMENT, now=T1)
    assert [e["manager"] for e in entries(result)] == expected_managers


def test_an_existing_object_without_managed_fields_stays_untracked() -> None:
    live = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "w"}, "spec": {}}
    new = copy.deepcopy(live)
    new["spec"]["replicas"] = 1
    assert record_update(live, new, manager="kubectl", gvk=DEPLOYMENT, now=T1) == new


def test_metadata_bookkeeping_is_never_owned() -> None:
    created = record_update(
        None,
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": "c",
                "namespace": "n",
                "uid": "u",
                "resourceVersion": "1",
                "creationTimestamp": T0,
                "generation": 1,
            },
            "data": {"k": "v"},
        },
        manager="kubectl",
        gvk=GroupVersionKind("", "v1", "ConfigMap"),
        now=T0,
    )
    assert owned(created, "kubectl") == [".data", ".data.k"]


def test_a_pathologically_deep_object_is_refused_cleanly() -> None:
    deep: dict[str, Any] = {}
    inner = deep
    for _ in range(5000):
        inner["a"] = {}
        inner = inner["a"]
    new = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": deep}
    with pytest.raises(PatchError, match="nests too deeply"):
        record_update(None, new, manager="m", gvk=GroupVersionKind("", "v1", "ConfigMap"), now=T0)
