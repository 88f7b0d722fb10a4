"""Delete: immediate removal, finalizers, preconditions, propagation policies, dry run."""

from typing import Any

import pytest

from app.localcluster.api import deletes
from app.localcluster.api.options import DeleteOptions
from app.localcluster.errors import ApiError
from tests.unit.localcluster.conftest import Api, configmap

CM = "configmaps"


def delete(api: Api, name: str, resource: str = CM, **opts: Any) -> tuple[dict[str, Any], bool]:
    namespace = "" if resource == "namespaces" else "default"
    return deletes.delete(api.server, api.type(resource), namespace, name, DeleteOptions(**opts))


def stored(api: Api, name: str) -> dict[str, Any] | None:
    return api.store.get(api.type(CM).group_resource, "default", name)


def test_delete_without_finalizers_removes_at_once_with_a_new_revision(api: Api) -> None:
    created = api.create(CM, configmap("a"))
    gone, removed = delete(api, "a")
    assert removed and stored(api, "a") is None
    assert int(gone["metadata"]["resourceVersion"]) > int(created["metadata"]["resourceVersion"])
    assert [c.type for c in api.changes] == ["ADDED", "DELETED"]


def test_finalizers_hold_the_object_until_removed(api: Api) -> None:
    api.create(CM, configmap("a", finalizers=["example.com/hold"]))
    held, removed = delete(api, "a")
    assert not removed and held["metadata"]["deletionTimestamp"]
    assert stored(api, "a") is not None
    again, _ = delete(api, "a")
    assert again["metadata"]["deletionTimestamp"] == held["metadata"]["deletionTimestamp"]
    with pytest.raises(ApiError) as e:
        api.update(CM, configmap("a", finalizers=["example.com/hold", "example.com/more"]))
    assert e.value.code == 422 and "no new finalizers" in e.value.message
    api.update(CM, configmap("a"))
    assert stored(api, "a") is None
    assert [c.type for c in api.changes][-1] == "DELETED"


@pytest.mark.parametrize(
    ("precondition", "message"),
    [
        pytest.param(
            {"uid": "other"},
            'Operation cannot be fulfilled on configmaps "a": Precondition failed: UID in '
            "precondition: other, UID in object meta: ",
            id="uid",
        ),
        pytest.param(
            {"resource_version": "1"},
            'Operation cannot be fulfilled on configmaps "a": Precondition failed: '
            "ResourceVersion in precondition: 1, ResourceVersion in object meta: ",
            id="resourceVersion",
        ),
    ],
)
def test_failed_preconditions_are_conflicts(
    api: Api, precondition: dict[str, str], message: str
) -> None:
    api.create(CM, configmap("a"))
    with pytest.raises(ApiError) as e:
        delete(api, "a", **precondition)
    assert e.value.code == 409 and e.value.message.startswith(message)
    assert stored(api, "a") is not None


def _owned_by(owner: dict[str, Any], name: str) -> dict[str, Any]:
    ref = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
    }
    return configmap(name, ownerReferences=[ref])


@pytest.mark.parametrize(
    ("policy", "finalizer"),
    [
        pytest.param("Foreground", "foregroundDeletion", id="foreground-waits-for-dependents"),
        pytest.param("Orphan", "orphan", id="orphan-releases-dependents"),
    ],
)
def test_propagation_policies_with_dependents_add_their_finalizer(
    api: Api, policy: str, finalizer: str
) -> None:
    owner = api.create(CM, configmap("owner"))
    api.create(CM, _owned_by(owner, "child"))
    pending, removed = delete(api, "owner", propagation=policy)
    assert not removed
    assert pending["metadata"]["finalizers"] == [finalizer]


def test_foreground_without_dependents_removes_at_once(api: Api) -> None:
    api.create(CM, configmap("alone"))
    _, removed = delete(api, "alone", propagation="Foreground")
    assert removed


def test_dry_run_delete_keeps_the_object(api: Api) -> None:
    api.create(CM, configmap("a"))
    api.changes.clear()
    _, removed = delete(api, "a", dry_run=True)
    assert removed and stored(api, "a") is not None and api.changes == []


def test_deleting_a_namespace_makes_it_terminating(api: Api) -> None:
    api.create("namespaces", {"metadata": {"name": "team"}}, namespace="")
    ns, removed = delete(api, "team", resource="namespaces")
    assert not removed
    assert ns["status"]["phase"] == "Terminating"
    assert ns["spec"]["finalizers"] == ["kubernetes"]


def test_deleting_a_missing_object_is_not_found(api: Api) -> None:
    with pytest.raises(ApiError) as e:
        delete(api, "nope")
    assert (e.value.code, e.value.message) == (404, 'configmaps "nope" not found')
