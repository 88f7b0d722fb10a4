"""Create and update: what the server sets, refuses and keeps (the object API, no HTTP)."""

from typing import Any

import pytest

from app.localcluster.api import deletes
from app.localcluster.api.options import DeleteOptions
from app.localcluster.errors import ApiError
from tests.unit.localcluster.conftest import Api, configmap, deployment, with_field


def test_create_sets_uid_timestamp_revision_and_generation(api: Api) -> None:
    created = api.create("deployments.apps", deployment())
    meta = created["metadata"]
    assert len(meta["uid"]) == 36
    assert meta["creationTimestamp"].endswith("Z")
    assert meta["resourceVersion"] == str(api.store.revision)
    assert meta["generation"] == 1
    assert created["status"] == {}
    assert [c.type for c in api.changes] == ["ADDED"]


def test_resource_version_is_one_counter_across_types(api: Api) -> None:
    first = api.create("configmaps", configmap("a"))
    second = api.create("deployments.apps", deployment())
    third = api.create("configmaps", configmap("b"))
    versions = [int(o["metadata"]["resourceVersion"]) for o in (first, second, third)]
    assert versions == sorted(versions) and len(set(versions)) == 3


def test_types_without_generation_get_none(api: Api) -> None:
    assert "generation" not in api.create("configmaps", configmap("a"))["metadata"]


@pytest.mark.parametrize(
    ("path", "value", "bumps"),
    [
        pytest.param("spec.replicas", 3, True, id="spec-change-bumps-generation"),
        pytest.param("metadata.labels", {"a": "b"}, False, id="label-change-keeps-generation"),
        pytest.param(
            "metadata.annotations", {"a": "b"}, False, id="annotation-change-keeps-generation"
        ),
        pytest.param("status", {"replicas": 9}, False, id="status-in-main-write-is-ignored"),
    ],
)
def test_generation_rises_on_spec_changes_only(
    api: Api, path: str, value: Any, bumps: bool
) -> None:
    created = api.create("deployments.apps", deployment())
    updated = api.update("deployments.apps", with_field(deployment(), path, value))
    assert updated["metadata"]["generation"] == (2 if bumps else 1)
    assert updated["status"] == created["status"]


def test_write_that_changes_nothing_keeps_resource_version_and_emits_nothing(api: Api) -> None:
    created = api.create("deployments.apps", deployment())
    api.changes.clear()
    again = api.update("deployments.apps", deployment())
    assert again["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    assert api.changes == []


def test_stale_resource_version_is_a_conflict(api: Api) -> None:
    created = api.create("deployments.apps", deployment())
    api.update("deployments.apps", deployment(replicas=2))
    stale = deployment(replicas=3, resourceVersion=created["metadata"]["resourceVersion"])
    with pytest.raises(ApiError) as e:
        api.update("deployments.apps", stale)
    assert (e.value.code, e.value.reason) == (409, "Conflict")
    assert e.value.message == (
        'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; '
        "please apply your changes to the latest version and try again"
    )


@pytest.mark.parametrize(
    ("body", "namespace", "expected"),
    [
        pytest.param(
            configmap("a"),
            "nope",
            (404, "NotFound", 'namespaces "nope" not found'),
            id="missing-namespace",
        ),
        pytest.param(
            {**configmap("a"), "apiVersion": "v2"},
            "default",
            (
                400,
                "BadRequest",
                "the API version in the data (v2) does not match the expected API version (v1)",
            ),
            id="wrong-api-version",
        ),
        pytest.param(
            {**configmap("a"), "kind": "Secret"},
            "default",
            (
                400,
                "BadRequest",
                "the kind in the data (Secret) does not match the expected kind (ConfigMap) "
                "of configmaps",
            ),
            id="wrong-kind",
        ),
        pytest.param(
            configmap("a", namespace="other"),
            "default",
            (
                400,
                "BadRequest",
                "the namespace of the provided object (other) does not match the namespace "
                "sent on the request (default)",
            ),
            id="namespace-differs-from-url",
        ),
        pytest.param(
            configmap("Not_Valid"),
            "default",
            (
                422,
                "Invalid",
                "ConfigMap \"Not_Valid\" is invalid: metadata.name: Invalid value: 'Not_Valid': "
                "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                "characters, '-' or '.', and must start and end with an alphanumeric character",
            ),
            id="bad-name",
        ),
        pytest.param(
            {"metadata": {}},
            "default",
            (
                422,
                "Invalid",
                "ConfigMap is invalid: metadata.name: Required value: name or generateName is "
                "required",
            ),
            id="no-name",
        ),
        pytest.param(
            configmap("a", labels={"app": "x" * 64}),
            "default",
            (422, "Invalid", None),
            id="bad-label-value",
        ),
        pytest.param(
            configmap("a", annotations={"localcluster.sluice.dev/delay-seconds": "soon"}),
            "default",
            (
                422,
                "Invalid",
                'ConfigMap "a" is invalid: '
                "metadata.annotations.localcluster.sluice.dev/delay-seconds: "
                "Invalid value: 'soon': a number of seconds from 0 to 3600",
            ),
            id="bad-lever",
        ),
    ],
)
def test_bad_creates_are_refused_and_change_nothing(
    api: Api, body: dict[str, Any], namespace: str, expected: tuple[int, str, str | None]
) -> None:
    before = api.store.revision
    code, reason, message = expected
    with pytest.raises(ApiError) as e:
        api.create("configmaps", body, namespace=namespace)
    assert (e.value.code, e.value.reason) == (code, reason)
    if message is not None:
        assert e.value.message == message
    assert api.store.revision == before and api.changes == []


def test_invalid_causes_name_each_field(api: Api) -> None:
    bad = deployment()
    bad["spec"]["template"]["metadata"]["labels"] = {"app": "other"}
    bad["spec"]["template"]["spec"]["containers"][0].pop("image")
    with pytest.raises(ApiError) as e:
        api.create("deployments.apps", bad)
    assert [c.field for c in e.value.causes] == [
        "spec.template.metadata.labels",
        "spec.template.spec.containers[0].image",
    ]
    assert e.value.status()["details"]["kind"] == "Deployment"


def test_duplicate_create_is_already_exists(api: Api) -> None:
    api.create("configmaps", configmap("a"))
    with pytest.raises(ApiError) as e:
        api.create("configmaps", configmap("a"))
    assert (e.value.code, e.value.reason, e.value.message) == (
        409,
        "AlreadyExists",
        'configmaps "a" already exists',
    )


def test_generate_name_gets_a_random_suffix(api: Api) -> None:
    created = api.create("configmaps", {"metadata": {"generateName": "job-"}})
    assert created["metadata"]["name"].startswith("job-")
    assert len(created["metadata"]["name"]) == len("job-") + 5


def test_creates_in_a_terminating_namespace_are_forbidden(api: Api) -> None:
    api.create("namespaces", {"metadata": {"name": "gone"}}, namespace="")
    deletes.delete(api.server, api.type("namespaces"), "", "gone", DeleteOptions())
    with pytest.raises(ApiError) as e:
        api.create("configmaps", configmap("a"), namespace="gone")
    assert (e.value.code, e.value.reason) == (403, "Forbidden")
    assert e.value.message == (
        'configmaps "a" is forbidden: unable to create new content in namespace gone because '
        "it is being terminated"
    )
    assert e.value.causes[0].reason == "NamespaceTerminating"


def test_immutable_selector_is_refused(api: Api) -> None:
    api.create("deployments.apps", deployment())
    changed = deployment()
    changed["spec"]["selector"] = {"matchLabels": {"app": "web", "tier": "x"}}
    changed["spec"]["template"]["metadata"]["labels"]["tier"] = "x"
    with pytest.raises(ApiError) as e:
        api.update("deployments.apps", changed)
    assert e.value.code == 422
    assert e.value.message.endswith("spec.selector: field is immutable")


def test_status_write_changes_only_status_and_keeps_generation(api: Api) -> None:
    api.create("deployments.apps", deployment())
    body = deployment(replicas=5)
    body["status"] = {"replicas": 1}
    body["metadata"]["labels"] = {"ignored": "yes"}
    updated = api.update("deployments.apps", body, subresource="status")
    assert updated["status"] == {"replicas": 1}
    assert updated["spec"]["replicas"] == 1
    assert "labels" not in updated["metadata"]
    assert updated["metadata"]["generation"] == 1


def test_dry_run_stores_nothing_and_emits_nothing(api: Api) -> None:
    created = api.create("configmaps", configmap("a", {"k": "1"}))
    api.changes.clear()
    before = api.store.revision
    preview = api.update("configmaps", configmap("a", {"k": "2"}), dry_run=True)
    new = api.create("configmaps", configmap("b"), dry_run=True)
    assert preview["data"] == {"k": "2"}
    assert preview["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
    assert "resourceVersion" not in new["metadata"]
    assert api.store.revision == before and api.changes == []
    assert api.store.get(api.type("configmaps").group_resource, "default", "b") is None


def test_every_write_records_its_field_manager(api: Api) -> None:
    api.create("configmaps", configmap("a", {"k": "1"}), manager="creator")
    updated = api.update("configmaps", configmap("a", {"k": "1", "j": "2"}), manager="editor")
    entries = {(e["manager"], e["operation"]) for e in updated["metadata"]["managedFields"]}
    assert entries == {("creator", "Update"), ("editor", "Update")}
    editor = next(e for e in updated["metadata"]["managedFields"] if e["manager"] == "editor")
    assert editor["fieldsV1"] == {"f:data": {"f:j": {}}}


@pytest.mark.parametrize(
    ("resource", "body", "path", "expected"),
    [
        pytest.param(
            "deployments.apps",
            deployment(),
            "spec.revisionHistoryLimit",
            10,
            id="deployment-defaults",
        ),
        pytest.param(
            "services",
            {"metadata": {"name": "svc"}, "spec": {"ports": [{"port": 80}]}},
            "spec.ports",
            [{"protocol": "TCP", "targetPort": 80, "port": 80}],
            id="service-port-defaults",
        ),
        pytest.param(
            "services",
            {"metadata": {"name": "svc"}, "spec": {}},
            "spec.type",
            "ClusterIP",
            id="service-type",
        ),
        pytest.param(
            "secrets",
            {"metadata": {"name": "s"}, "stringData": {"k": "v"}},
            "data",
            {"k": "dg=="},
            id="secret-string-data",
        ),
        pytest.param(
            "pods",
            {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
            "status.phase",
            "Pending",
            id="pod-starts-pending",
        ),
    ],
)
def test_defaults_every_live_object_carries(
    api: Api, resource: str, body: dict[str, Any], path: str, expected: Any
) -> None:
    node: Any = api.create(resource, body)
    for part in path.split("."):
        node = node[part]
    assert node == expected


def test_service_keeps_its_cluster_ip(api: Api) -> None:
    created = api.create("services", {"metadata": {"name": "svc"}, "spec": {}})
    updated = api.update(
        "services", {"metadata": {"name": "svc"}, "spec": {"selector": {"a": "b"}}}
    )
    assert updated["spec"]["clusterIP"] == created["spec"]["clusterIP"]


def test_namespace_gets_its_name_label_and_finalizer(api: Api) -> None:
    ns = api.create("namespaces", {"metadata": {"name": "team"}}, namespace="")
    assert ns["metadata"]["labels"] == {"kubernetes.io/metadata.name": "team"}
    assert ns["spec"]["finalizers"] == ["kubernetes"]
    assert ns["status"] == {"phase": "Active"}
