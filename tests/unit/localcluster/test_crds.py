"""CustomResourceDefinitions: validation, status, and the types they serve."""

from typing import Any

import pytest

from app.localcluster import crds
from app.localcluster.errors import ApiError
from app.localcluster.resources import GroupResource
from tests.unit.localcluster.conftest import Api

SCHEMA = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}


def crd(plural: str = "widgets", group: str = "example.com", **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "names": {"kind": plural.capitalize()[:-1], "plural": plural, "shortNames": ["wd"]},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": SCHEMA,
                    "subresources": {"status": {}},
                },
                {"name": "v1beta1", "served": True, "storage": False, "schema": SCHEMA},
            ],
        },
    }
    body["spec"].update(spec)
    return body


def test_a_crd_is_established_and_serves_every_served_version(api: Api) -> None:
    created = api.create("customresourcedefinitions.apiextensions.k8s.io", crd(), namespace="")
    status = created["status"]
    assert status["acceptedNames"]["kind"] == "Widget"
    assert status["acceptedNames"]["listKind"] == "WidgetList"
    assert status["storedVersions"] == ["v1"]
    assert {c["type"]: c["status"] for c in status["conditions"]} == {
        "NamesAccepted": "True",
        "Established": "True",
    }
    assert crds.CLEANUP_FINALIZER in created["metadata"]["finalizers"]
    served = {
        (rt.version, rt.has_status, rt.strategic_merge)
        for rt in api.registry.of_crd("widgets.example.com")
    }
    assert served == {("v1", True, False), ("v1beta1", False, False)}
    versions = dict(api.registry.groups())["example.com"]
    assert versions == ["v1", "v1beta1"]


@pytest.mark.parametrize(
    ("case", "body", "field"),
    [
        (
            "name-not-plural-dot-group",
            {**crd(), "metadata": {"name": "other.example.com"}},
            "metadata.name",
        ),
        ("group-without-dot", crd(group="example"), "spec.group"),
        ("bad-scope", crd(scope="Global"), "spec.scope"),
        (
            "two-storage-versions",
            crd(
                versions=[
                    {"name": "v1", "storage": True, "schema": SCHEMA},
                    {"name": "v2", "storage": True, "schema": SCHEMA},
                ]
            ),
            "spec.versions",
        ),
        (
            "no-schema",
            crd(versions=[{"name": "v1", "storage": True}]),
            "spec.versions[0].schema.openAPIV3Schema",
        ),
    ],
)
def test_invalid_crds_are_refused_naming_the_field(
    api: Api, case: str, body: dict[str, Any], field: str
) -> None:
    with pytest.raises(ApiError) as e:
        api.create("customresourcedefinitions.apiextensions.k8s.io", body, namespace="")
    assert e.value.code == 422, case
    assert field in [c.field for c in e.value.causes]
    assert api.registry.lookup("example.com", "v1", "widgets") is None


def test_clashing_names_are_not_accepted_and_not_served(api: Api) -> None:
    api.create("customresourcedefinitions.apiextensions.k8s.io", crd(), namespace="")
    clash = crd(plural="gadgets")
    clash["spec"]["names"]["shortNames"] = ["wd"]
    created = api.create("customresourcedefinitions.apiextensions.k8s.io", clash, namespace="")
    conditions = {c["type"]: (c["status"], c["message"]) for c in created["status"]["conditions"]}
    assert conditions["NamesAccepted"] == ("False", "'wd' is already in use")
    assert conditions["Established"][0] == "False"
    assert api.registry.lookup("example.com", "v1", "gadgets") is None


def test_scope_is_immutable(api: Api) -> None:
    api.create("customresourcedefinitions.apiextensions.k8s.io", crd(), namespace="")
    with pytest.raises(ApiError) as e:
        api.update(
            "customresourcedefinitions.apiextensions.k8s.io", crd(scope="Cluster"), namespace=""
        )
    assert e.value.code == 422 and "spec.scope: field is immutable" in e.value.message


def test_objects_of_a_crd_are_stored_per_group_resource(api: Api) -> None:
    api.create("customresourcedefinitions.apiextensions.k8s.io", crd(), namespace="")
    v1 = api.registry.lookup("example.com", "v1", "widgets")
    assert v1 is not None and v1.group_resource == GroupResource("example.com", "widgets")
