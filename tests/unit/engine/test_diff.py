"""Diff (SEMANTICS §4.6-4.7): three-way prediction, server-side prediction, rendering."""

from typing import Any

import pytest

from app.engine.diff import diff_resource, render_diff
from app.engine.diff.resource import server_side
from app.engine.normalize.ignore import compile_ignore_rules, respect_ignore_differences
from app.engine.redact import MASK
from app.model.app_spec import ResourceIgnoreDifferences
from app.model.resource import ResourceKey

KEY = ResourceKey("apps", "Deployment", "prod", "web")


def deploy(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": spec,
    }


def containers(*items: dict[str, Any]) -> dict[str, Any]:
    return {"template": {"spec": {"containers": list(items)}}}


THREE_WAY = [
    (
        None,
        deploy(replicas=2),
        deploy(replicas=2, paused=False),
        False,
        "§4.6 fields only the cluster sets never show",
    ),
    (None, deploy(replicas=3), deploy(replicas=2), True, "§4.6 a changed value shows"),
    (
        deploy(replicas=2, minReadySeconds=5),
        deploy(replicas=2),
        deploy(replicas=2, minReadySeconds=5),
        True,
        "§4.6 a field removed since last apply is deleted",
    ),
    (
        None,
        deploy(replicas=2),
        deploy(replicas=2, minReadySeconds=5),
        False,
        "§4.6 two-way: a live-only field is kept",
    ),
    (
        None,
        deploy(**containers({"name": "a", "image": "x:1"})),
        deploy(**containers({"name": "a", "image": "x:1", "imagePullPolicy": "Always"})),
        False,
        "§4.6 list items merge by key: defaults inside a container never show",
    ),
    (
        None,
        deploy(**containers({"name": "a", "image": "x:2"})),
        deploy(**containers({"name": "a", "image": "x:1", "imagePullPolicy": "Always"})),
        True,
        "§4.6 a changed container image shows",
    ),
    (
        None,
        deploy(**containers({"name": "a", "image": "x"}, {"name": "b", "image": "y"})),
        deploy(**containers({"name": "a", "image": "x"})),
        True,
        "§4.6 an added list item shows",
    ),
]


@pytest.mark.parametrize(
    ("orig", "target", "live", "modified"),
    [c[:4] for c in THREE_WAY],
    ids=[c[4] for c in THREE_WAY],
)
def test_three_way(
    orig: dict[str, Any] | None, target: dict[str, Any], live: dict[str, Any], modified: bool
) -> None:
    result = diff_resource(target, live, orig=orig)
    assert result.modified is modified
    assert (result.predicted_live != live) is modified


def test_custom_resources_use_a_json_merge_patch() -> None:
    target = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w"},
        "spec": {"items": [{"name": "a"}]},
    }
    live = {**target, "spec": {"items": [{"name": "a", "extra": 1}]}}
    result = diff_resource(target, live)
    assert result.modified, "a merge patch replaces lists whole"
    assert result.predicted_live is not None
    assert result.predicted_live["spec"]["items"] == [{"name": "a"}]


def test_live_missing_is_modified_and_target_missing_is_not() -> None:
    assert diff_resource(deploy(replicas=1), None).modified
    missing_target = diff_resource(None, deploy(replicas=1))
    assert not missing_target.modified
    assert missing_target.predicted_live is None


def test_caller_supplied_prediction_is_compared_with_live() -> None:
    live = deploy(replicas=1)
    assert not diff_resource(deploy(replicas=1), live, predicted_live=deploy(replicas=1)).modified
    assert diff_resource(deploy(replicas=1), live, predicted_live=deploy(replicas=2)).modified


def owned(manager: str, fields: dict[str, Any]) -> dict[str, Any]:
    return {
        "manager": manager,
        "operation": "Apply",
        "apiVersion": "apps/v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": fields,
    }


def test_server_side_prediction_removes_only_fields_sluice_stopped_applying() -> None:
    live = deploy(replicas=2, minReadySeconds=5, paused=True)
    live["metadata"]["managedFields"] = [
        owned("sluice", {"f:spec": {"f:replicas": {}, "f:minReadySeconds": {}}}),
        owned("kubectl", {"f:spec": {"f:paused": {}}}),
    ]
    predicted = server_side(deploy(replicas=2), live)
    assert predicted["spec"] == {"replicas": 2, "paused": True}


def test_render_is_a_unified_yaml_diff() -> None:
    text = render_diff(KEY, deploy(replicas=1), deploy(replicas=2))
    assert text.startswith(
        "--- live/apps/Deployment/prod/web\n+++ target/apps/Deployment/prod/web\n"
    )
    assert "-  replicas: 1\n+  replicas: 2\n" in text
    assert render_diff(KEY, deploy(replicas=1), deploy(replicas=1)) == ""


def test_render_masks_secrets_consistently() -> None:
    live = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "s"},
        "data": {"same": "c2FtZQ==", "changed": "b2xk"},
    }
    predicted = {**live, "data": {"same": "c2FtZQ==", "changed": "bmV3"}}
    text = render_diff(ResourceKey("", "Secret", "prod", "s"), live, predicted)
    assert "b2xk" not in text and "bmV3" not in text and "c2FtZQ==" not in text
    assert f"-  changed: {MASK}\n+  changed: {MASK}+\n   same: {MASK}\n" in text


def test_respect_ignore_differences_keeps_live_values_of_ignored_fields() -> None:
    rules = compile_ignore_rules(
        [
            ResourceIgnoreDifferences(
                group="apps", kind="Deployment", json_pointers=["/spec/replicas"]
            ),
            ResourceIgnoreDifferences(
                group="apps",
                kind="Deployment",
                jq_path_expressions=[
                    '.spec.template.spec.containers[] | select(.name == "injected")'
                ],
            ),
        ]
    )
    target = deploy(replicas=1, **containers({"name": "app", "image": "app:2"}))
    live = deploy(
        replicas=5,
        **containers({"name": "app", "image": "app:1"}, {"name": "injected", "image": "mesh"}),
    )
    live["status"] = {"replicas": 5}
    result = respect_ignore_differences(target, live, KEY, rules)
    assert result.problems == ()
    assert result.obj["spec"]["replicas"] == 5
    assert {
        c["name"]: c["image"] for c in result.obj["spec"]["template"]["spec"]["containers"]
    } == {"app": "app:2", "injected": "mesh"}
    assert "status" not in result.obj
    assert target["spec"]["replicas"] == 1


def test_respect_ignore_differences_without_live_or_rules_keeps_the_target() -> None:
    rules = compile_ignore_rules([])
    target = deploy(replicas=1)
    assert respect_ignore_differences(target, deploy(replicas=5), KEY, rules).obj is target
    assert respect_ignore_differences(target, None, KEY, rules).obj is target
