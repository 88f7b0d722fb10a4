"""Normalization (SEMANTICS §4.1-4.5): what both sides of a comparison look like."""

from typing import Any

import pytest

from app.engine.normalize.ignore import IgnoreRules, compile_ignore_rules
from app.engine.normalize.known_types import canonicalize
from app.engine.normalize.pipeline import NormalizeOptions, normalize_one, normalize_pair
from app.engine.normalize.quantities import canonical_quantity
from app.engine.tracking import TrackingMethod
from app.model.app_spec import ResourceIgnoreDifferences
from app.model.resource import ResourceKey

QUANTITIES = [
    ("1000m", "1", "§4.3 millicores: 1000m == 1"),
    ("1Gi", "1Gi", "§4.3 binary kept"),
    ("1024Mi", "1Gi", "§4.3 binary: 1024Mi == 1Gi"),
    ("0.5", "500m", "§4.3 fraction to milli"),
    ("1.5Gi", "1536Mi", "§4.3 binary fraction to smaller suffix"),
    ("0.5Ki", "512", "§4.3 binary below 1024 written decimal"),
    ("2000", "2k", "§4.3 decimal largest whole suffix"),
    ("1500", "1500", "§4.3 decimal not whole at k"),
    ("1e3", "1e3", "§4.3 exponent family kept"),
    ("0.0000000001", "1n", "§4.3 precision rounds up to nano"),
    ("-1", "-1", "§4.3 negative"),
    ("1Gb", None, "§4.3 not a quantity"),
]


@pytest.mark.parametrize(
    ("text", "canonical"), [q[:2] for q in QUANTITIES], ids=[q[2] for q in QUANTITIES]
)
def test_canonical_quantity(text: str, canonical: str | None) -> None:
    assert canonical_quantity(text) == canonical


def deployment(**container: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "prod"},
        "spec": {"template": {"spec": {"containers": [{"name": "c", **container}]}}},
    }


def container_of(obj: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = obj["spec"]["template"]["spec"]["containers"][0]
    return result


KNOWN_TYPES = [
    pytest.param(
        deployment(
            resources={"limits": {"cpu": "1000m", "memory": "1024Mi"}, "requests": {"cpu": 1}}
        ),
        {"resources": {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "1"}}},
        id="§4.3 quantities in limits and requests, numbers become strings",
    ),
    pytest.param(
        deployment(env=[], args=[], resources={}),
        {"resources": {}},
        id="§4.3 empty Go lists dropped, empty struct kept",
    ),
    pytest.param(
        deployment(image=None, workingDir="/w"),
        {"workingDir": "/w"},
        id="§4.3 null values dropped",
    ),
]


@pytest.mark.parametrize(("obj", "expected"), KNOWN_TYPES)
def test_known_type_canonical_forms(obj: dict[str, Any], expected: dict[str, Any]) -> None:
    assert container_of(canonicalize(obj)) == {"name": "c", **expected}


def test_known_types_leave_custom_resources_alone() -> None:
    widget = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w"},
        "spec": {"limits": {"cpu": "1000m"}, "labels": {}, "x": None},
    }
    assert canonicalize(widget) is widget


def test_known_types_keep_meaningful_empty_structs() -> None:
    policy = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "deny"},
        "spec": {"podSelector": {}, "ingress": [{}]},
    }
    assert canonicalize(policy) is policy


def test_unchanged_object_is_returned_as_is() -> None:
    obj = deployment(resources={"limits": {"cpu": "1", "memory": "1Gi"}})
    once = canonicalize(obj)
    assert once is obj
    volume = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"volumes": [{"name": "v", "emptyDir": {"sizeLimit": "1024Mi"}}]},
    }
    assert canonicalize(volume)["spec"]["volumes"][0]["emptyDir"] == {"sizeLimit": "1Gi"}


def test_whole_floats_become_integers_in_builtin_kinds() -> None:
    obj = deployment()
    obj["spec"]["replicas"] = 3.0
    assert canonicalize(obj)["spec"]["replicas"] == 3
    assert type(canonicalize(obj)["spec"]["replicas"]) is int


KEY = ResourceKey("apps", "Deployment", "prod", "web")
NO_RULES = IgnoreRules()
OPTIONS = NormalizeOptions()


def test_basics_strip_creation_timestamp_status_and_managed_fields() -> None:
    live = deployment()
    live["metadata"] |= {
        "creationTimestamp": "2024-01-01T00:00:00Z",
        "managedFields": [{}],
        "uid": "u",
    }
    live["status"] = {"replicas": 1}
    out = normalize_one(live, KEY, NO_RULES, OPTIONS).obj
    assert out["metadata"] == {"name": "web", "namespace": "prod", "uid": "u"}
    assert "status" not in out
    assert "status" in live


def test_status_kept_when_status_is_not_ignored() -> None:
    live = deployment()
    live["status"] = {"replicas": 1}
    out = normalize_one(live, KEY, NO_RULES, NormalizeOptions(ignore_status=False)).obj
    assert out["status"] == {"replicas": 1}


def test_a_child_applications_operation_and_status_are_not_compared() -> None:
    child = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "child", "namespace": "argocd"},
        "spec": {"project": "default"},
    }
    key = ResourceKey("argoproj.io", "Application", "argocd", "child")
    live = {**child, "operation": {"sync": {"revision": "abc"}}, "status": {"sync": {}}}
    assert normalize_pair(child, live, key, NO_RULES, OPTIONS).live == child
    other = {**live, "apiVersion": "example.com/v1"}
    assert "operation" in normalize_one(other, key, NO_RULES, OPTIONS).obj


def test_secret_string_data_merged_into_data_as_base64() -> None:
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "s"},
        "data": {"a": "b2xk", "keep": "aw=="},
        "stringData": {"a": "new", "b": "x"},
    }
    key = ResourceKey("", "Secret", "", "s")
    out = normalize_one(secret, key, NO_RULES, OPTIONS).obj
    assert out["data"] == {"a": "bmV3", "keep": "aw==", "b": "eA=="}
    assert "stringData" not in out


def test_empty_role_rules_compare_equal_to_none() -> None:
    role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": "r"},
        "rules": [],
    }
    live = {**role, "rules": None}
    key = ResourceKey("rbac.authorization.k8s.io", "Role", "", "r")
    pair = normalize_pair(role, live, key, NO_RULES, OPTIONS)
    assert pair.target == pair.live


def test_tracking_normalization_is_step_one() -> None:
    target = deployment()
    live = deployment()
    live["metadata"]["labels"] = {"app.kubernetes.io/instance": "guestbook"}
    pair = normalize_pair(
        target, live, KEY, NO_RULES, NormalizeOptions(tracking=TrackingMethod.ANNOTATION)
    )
    assert pair.target == pair.live


def test_ignore_differences_applies_to_both_sides_before_known_types() -> None:
    rules = compile_ignore_rules(
        [
            ResourceIgnoreDifferences(
                kind="Deployment",
                group="apps",
                json_pointers=["/spec/template/spec/containers/0/resources"],
            )
        ]
    )
    target = deployment(resources={"limits": {"cpu": "2"}})
    live = deployment(resources={"limits": {"cpu": "1000m"}})
    pair = normalize_pair(target, live, KEY, rules, OPTIONS)
    assert pair.target == pair.live
    assert container_of(pair.target or {}) == {"name": "c"}


def test_a_failing_jq_expression_is_reported_not_skipped() -> None:
    rules = compile_ignore_rules(
        [
            ResourceIgnoreDifferences(
                kind="Deployment", group="apps", jq_path_expressions=[".spec | tostring"]
            )
        ]
    )
    pair = normalize_pair(deployment(), deployment(), KEY, rules, OPTIONS)
    assert pair.problems
    assert pair.problems[0].startswith(
        "spec.ignoreDifferences[0]: jq expression '.spec | tostring' failed"
    )


def test_managed_fields_managers_remove_owned_fields_from_both_sides() -> None:
    rules = compile_ignore_rules(
        [
            ResourceIgnoreDifferences(
                group="apps", kind="Deployment", managed_fields_managers=["hpa"]
            )
        ]
    )
    target = deployment()
    target["spec"]["replicas"] = 2
    live = deployment()
    live["spec"]["replicas"] = 7
    live["metadata"]["managedFields"] = [
        {
            "manager": "hpa",
            "operation": "Update",
            "apiVersion": "apps/v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:spec": {"f:replicas": {}}},
        },
    ]
    pair = normalize_pair(target, live, KEY, rules, OPTIONS)
    assert pair.target == pair.live
    assert pair.target is not None and "replicas" not in pair.target["spec"]
    assert pair.problems == ()


def test_malformed_managed_fields_are_reported() -> None:
    rules = compile_ignore_rules(
        [
            ResourceIgnoreDifferences(
                group="apps", kind="Deployment", managed_fields_managers=["hpa"]
            )
        ]
    )
    live = deployment()
    live["metadata"]["managedFields"] = "not a list"
    pair = normalize_pair(deployment(), live, KEY, rules, OPTIONS)
    assert pair.problems and pair.problems[0].startswith("managedFieldsManagers hpa: ")
