"""PATCH and server-side apply around the engine's merge functions."""

from typing import Any

import pytest

from app.localcluster.api import patches
from app.localcluster.api.options import WriteOptions
from app.localcluster.errors import ApiError
from app.localcluster.resources import ResourceType
from tests.unit.localcluster.conftest import Api, deployment

DEPLOY = "deployments.apps"


def patch(
    api: Api, patch_type: str, body: Any, name: str = "web", manager: str = "patcher", **opts: Any
) -> tuple[dict[str, Any], bool]:
    options = WriteOptions(field_manager=manager, **opts)
    return patches.patch(
        api.server,
        api.type(DEPLOY),
        body,
        namespace="default",
        name=name,
        patch_type=patch_type,
        opts=options,
    )


def containers(obj: dict[str, Any]) -> list[tuple[str, str]]:
    return [(c["name"], c["image"]) for c in obj["spec"]["template"]["spec"]["containers"]]


@pytest.mark.parametrize(
    ("patch_type", "body", "expected"),
    [
        pytest.param(
            patches.STRATEGIC_PATCH,
            {"spec": {"template": {"spec": {"containers": [{"name": "side", "image": "s:1"}]}}}},
            [("side", "s:1"), ("main", "nginx:1")],
            id="strategic-merges-containers-by-name",
        ),
        pytest.param(
            patches.MERGE_PATCH,
            {"spec": {"template": {"spec": {"containers": [{"name": "side", "image": "s:1"}]}}}},
            [("side", "s:1")],
            id="merge-patch-replaces-lists",
        ),
        pytest.param(
            patches.JSON_PATCH,
            [
                {
                    "op": "replace",
                    "path": "/spec/template/spec/containers/0/image",
                    "value": "nginx:2",
                }
            ],
            [("main", "nginx:2")],
            id="json-patch",
        ),
    ],
)
def test_patch_types(api: Api, patch_type: str, body: Any, expected: list[tuple[str, str]]) -> None:
    api.create(DEPLOY, deployment())
    patched, created = patch(api, patch_type, body)
    assert not created
    assert containers(patched) == expected
    assert patched["metadata"]["generation"] == 2


def test_patching_a_missing_object_is_not_found(api: Api) -> None:
    with pytest.raises(ApiError) as e:
        patch(api, patches.MERGE_PATCH, {"spec": {}}, name="nope")
    assert e.value.code == 404


def test_a_failing_json_patch_is_invalid_and_changes_nothing(api: Api) -> None:
    created = api.create(DEPLOY, deployment())
    with pytest.raises(ApiError) as e:
        patch(api, patches.JSON_PATCH, [{"op": "test", "path": "/spec/replicas", "value": 7}])
    assert e.value.code == 422
    assert api.store.revision == int(created["metadata"]["resourceVersion"])


def test_patch_with_a_stale_resource_version_conflicts(api: Api) -> None:
    api.create(DEPLOY, deployment())
    with pytest.raises(ApiError) as e:
        patch(
            api,
            patches.MERGE_PATCH,
            {"metadata": {"resourceVersion": "1"}, "spec": {"replicas": 2}},
        )
    assert e.value.code == 409


def test_strategic_merge_is_refused_for_custom_resources(api: Api) -> None:
    widget = ResourceType(
        "example.com", "v1", "Widget", "widgets", "widget", True, strategic_merge=False
    )
    api.registry.add(widget)
    api.server.commit_create(
        widget,
        {
            "apiVersion": "example.com/v1",
            "kind": "Widget",
            "metadata": {"name": "w", "namespace": "default"},
        },
        WriteOptions(field_manager="t"),
    )
    with pytest.raises(ApiError) as e:
        patches.patch(
            api.server,
            widget,
            {"spec": {}},
            namespace="default",
            name="w",
            patch_type=patches.STRATEGIC_PATCH,
            opts=WriteOptions(field_manager="t"),
        )
    assert e.value.code == 415
    assert "application/merge-patch+json" in e.value.message


def test_apply_creates_then_conflicts_then_forces(api: Api) -> None:
    created, was_created = patch(api, patches.APPLY_PATCH, deployment(replicas=2), manager="first")
    assert was_created and created["metadata"]["managedFields"][0]["operation"] == "Apply"
    with pytest.raises(ApiError) as e:
        patch(api, patches.APPLY_PATCH, deployment(replicas=5), manager="second")
    assert (e.value.code, e.value.reason) == (409, "Conflict")
    assert [(c.reason, c.field, c.message) for c in e.value.causes] == [
        ("FieldManagerConflict", ".spec.replicas", 'conflict with "first"')
    ]
    assert e.value.message == 'Apply failed with 1 conflict: conflict with "first": .spec.replicas'
    forced, _ = patch(
        api, patches.APPLY_PATCH, deployment(replicas=5), manager="second", force=True
    )
    assert forced["spec"]["replicas"] == 5


def test_apply_stops_owning_what_it_no_longer_applies(api: Api) -> None:
    first = deployment()
    first["metadata"]["labels"] = {"keep": "1", "drop": "1"}
    patch(api, patches.APPLY_PATCH, first, manager="owner")
    second = deployment()
    second["metadata"]["labels"] = {"keep": "1"}
    applied, _ = patch(api, patches.APPLY_PATCH, second, manager="owner")
    assert applied["metadata"]["labels"] == {"keep": "1"}


def test_apply_on_the_main_resource_leaves_status_alone(api: Api) -> None:
    patch(api, patches.APPLY_PATCH, deployment(), manager="owner")
    with_status = deployment()
    with_status["status"] = {"replicas": 42}
    applied, _ = patch(api, patches.APPLY_PATCH, with_status, manager="owner")
    assert applied["status"] == {}


def test_apply_to_status_changes_only_status(api: Api) -> None:
    patch(api, patches.APPLY_PATCH, deployment(), manager="owner")
    body = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"replicas": 9},
        "status": {"replicas": 1},
    }
    applied, _ = patch(
        api, patches.APPLY_PATCH, body, manager="status-writer", subresource="status"
    )
    assert applied["status"] == {"replicas": 1}
    assert applied["spec"]["replicas"] == 1
    assert applied["metadata"]["generation"] == 1


def test_same_apply_twice_keeps_the_resource_version(api: Api) -> None:
    first, _ = patch(api, patches.APPLY_PATCH, deployment(), manager="owner")
    again, _ = patch(api, patches.APPLY_PATCH, deployment(), manager="owner")
    assert again["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]


def test_dry_run_apply_creates_nothing(api: Api) -> None:
    preview, created = patch(api, patches.APPLY_PATCH, deployment(), manager="owner", dry_run=True)
    assert created and preview["metadata"]["name"] == "web"
    assert api.store.get(api.type(DEPLOY).group_resource, "default", "web") is None
