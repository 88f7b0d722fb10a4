"""Strategic merge patch, applied: the real implementation's results, rule by rule."""

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.engine.merge import GroupVersionKind, PatchError, apply_strategic_patch

CASES = yaml.safe_load((Path(__file__).parent / "cases" / "strategic_apply.yaml").read_text())


@pytest.mark.parametrize("case", CASES, ids=[c["name"].replace(" ", "-") for c in CASES])
def test_matches_kubectl(case: dict[str, Any]) -> None:
    live, patch = case["live"], case["patch"]
    live_before, patch_before = copy.deepcopy(live), copy.deepcopy(patch)
    assert apply_strategic_patch(live, patch, GroupVersionKind.of(live)) == case["expected"]
    assert live == live_before
    assert patch == patch_before


def pod(spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}


POD = GroupVersionKind("", "v1", "Pod")
DEPLOYMENT = GroupVersionKind("apps", "v1", "Deployment")

ERRORS = [
    pytest.param(
        pod({"containers": [{"name": "a"}]}),
        {"spec": {"containers": [{"image": "x"}]}},
        "spec.containers[0]: the item has no merge key 'name'",
        id="list-item-without-merge-key",
    ),
    pytest.param(
        pod({}),
        {"spec": {"containers": [{"name": {"x": 1}}]}},
        "spec.containers[0]: merge key 'name' must be a string or number",
        id="merge-key-not-scalar",
    ),
    pytest.param(
        pod({}),
        {"metadata": {"labels": {"$patch": "remove"}}},
        "metadata.labels.$patch: unknown $patch directive 'remove'",
        id="unknown-patch-directive",
    ),
    pytest.param(
        pod({}),
        {"spec": {"$frob": 1}},
        "spec: unknown directive '$frob'",
        id="unknown-directive-key",
    ),
    pytest.param(
        pod({"containers": [{"name": "a"}]}),
        {"spec": {"containers": [{"name": "b", "$patch": "bogus"}]}},
        "spec.containers[0]: unknown $patch directive 'bogus'",
        id="unknown-list-item-directive",
    ),
    pytest.param(
        {**pod({}), "metadata": {"name": "p", "finalizers": ["a"]}},
        {"metadata": {"finalizers": [1]}},
        "metadata.finalizers: list items must all be of one type, found number, string",
        id="mixed-scalar-types",
    ),
    pytest.param(
        pod({}),
        {"spec": {"$setElementOrder/containers": [{"name": "a"}], "containers": [{"name": "b"}]}},
        "spec.containers: the patch lists items in an order",
        id="set-element-order-missing-patched-item",
    ),
    pytest.param(
        pod({}),
        {"spec": {"$setElementOrder/containers": "a"}},
        "spec.containers: $setElementOrder/containers must be a list",
        id="set-element-order-not-a-list",
    ),
    pytest.param(
        pod({}),
        {"metadata": {"$deleteFromPrimitiveList/finalizers": "a"}},
        "metadata.finalizers: $deleteFromPrimitiveList/finalizers must be a list of scalars",
        id="delete-from-primitive-list-not-a-list",
    ),
    pytest.param(
        pod({}),
        {"spec": {"$retainKeys": "containers"}},
        "spec.$retainKeys: $retainKeys must be a list of field names",
        id="retain-keys-not-a-list",
    ),
]


@pytest.mark.parametrize(("live", "patch", "message"), ERRORS)
def test_errors_name_the_field_and_the_fix(
    live: dict[str, Any], patch: dict[str, Any], message: str
) -> None:
    with pytest.raises(PatchError) as raised:
        apply_strategic_patch(live, patch, POD)
    assert str(raised.value).startswith(f"strategic merge patch: {message}")


BEYOND_KUBECTL = [
    pytest.param(
        pod({}),
        {"spec": {"containers": [{"name": "a", "image": "a"}, {"name": "b", "$patch": "delete"}]}},
        pod({"containers": [{"name": "a", "image": "a"}]}),
        id="directives-inside-a-new-list-are-honoured",
    ),
    pytest.param(
        pod({}),
        {"spec": {"securityContext": {"runAsUser": 1, "fsGroup": None}}},
        pod({"securityContext": {"runAsUser": 1}}),
        id="nulls-inside-a-new-object-are-dropped",
    ),
    pytest.param(
        pod({"nodeSelector": {"a": "1"}}),
        {"spec": {"nodeSelector": {"$patch": "merge", "b": "2"}}},
        pod({"nodeSelector": {"a": "1", "b": "2"}}),
        id="explicit-merge-directive-on-map",
    ),
    pytest.param(
        pod({"containers": [{"name": "a", "image": "a"}]}),
        {"spec": {"containers": [{"name": "a", "$patch": "merge", "image": "b"}]}},
        pod({"containers": [{"name": "a", "image": "b"}]}),
        id="explicit-merge-directive-on-list-item",
    ),
    pytest.param(
        pod({"containers": [{"name": "a", "image": "a", "args": ["x"]}]}),
        {"spec": {"containers": [{"name": "a", "$patch": "delete"}, {"name": "a", "image": "n"}]}},
        pod({"containers": [{"name": "a", "image": "n"}]}),
        id="deleted-then-readded-item-starts-empty",
    ),
]


@pytest.mark.parametrize(("live", "patch", "expected"), BEYOND_KUBECTL)
def test_cases_where_kubernetes_would_store_directives(
    live: dict[str, Any], patch: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert apply_strategic_patch(live, patch, POD) == expected


def test_custom_resources_are_patched_as_json_merge_patches() -> None:
    foo = GroupVersionKind("example.com", "v1", "Foo")
    live = {"spec": {"containers": [{"name": "a", "image": "a"}], "keep": 1}}
    patch = {"spec": {"containers": [{"name": "b"}], "$patch": "x"}}
    assert apply_strategic_patch(live, patch, foo) == {
        "spec": {"containers": [{"name": "b"}], "$patch": "x", "keep": 1}
    }


def test_untouched_subtrees_are_shared_not_copied() -> None:
    live = {
        "metadata": {"name": "d", "labels": {"a": "1"}},
        "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "a"}]}}},
    }
    result = apply_strategic_patch(live, {"spec": {"replicas": 2}}, DEPLOYMENT)
    assert result["spec"]["replicas"] == 2
    assert result["metadata"] is live["metadata"]
    assert result["spec"]["template"] is live["spec"]["template"]
