"""fieldValidation: Strict refuses unknown fields naming them all, Warn and Ignore drop them."""

from typing import Any

import pytest

from app.localcluster import fieldvalidation
from app.localcluster.errors import ApiError
from app.localcluster.fieldvalidation import FieldValidation
from app.localcluster.resources import ResourceType
from tests.unit.localcluster.conftest import Api, configmap, deployment, with_field

STRICT, WARN, IGNORE = FieldValidation.STRICT, FieldValidation.WARN, FieldValidation.IGNORE


@pytest.mark.parametrize(
    ("resource", "obj", "path"),
    [
        pytest.param("configmaps", configmap("c"), "colour", id="configmap-top-level"),
        pytest.param("deployments.apps", deployment(), "spec.replica", id="deployment-spec-typo"),
        pytest.param("configmaps", configmap("c"), "metadata.label", id="metadata-typo"),
        pytest.param("secrets", configmap("s") | {"kind": "Secret"}, "spec", id="secret-spec"),
    ],
)
def test_strict_refuses_an_unknown_field_naming_it(
    api: Api, resource: str, obj: dict[str, Any], path: str
) -> None:
    with pytest.raises(ApiError) as refused:
        api.create(resource, with_field(obj, path, "x"), validation=STRICT)
    assert refused.value.code == 400
    assert f'strict decoding error: unknown field "{path}"' in refused.value.message
    assert api.changes == []


@pytest.mark.parametrize("validation", [WARN, IGNORE], ids=lambda v: v.value)
def test_warn_and_ignore_store_the_object_without_unknown_fields(
    api: Api, validation: FieldValidation
) -> None:
    body = with_field(with_field(deployment(), "spec.replica", 3), "colour", "blue")
    created = api.create("deployments.apps", body, validation=validation)
    assert "colour" not in created and "replica" not in created["spec"]
    assert created["spec"]["replicas"] == 1


def test_known_fields_pass_strict_and_deeper_ones_are_not_checked(api: Api) -> None:
    body = with_field(deployment(), "spec.template.spec.whatever", True)
    created = api.create("deployments.apps", body, validation=STRICT)
    assert created["spec"]["template"]["spec"]["whatever"] is True


def test_internal_writes_are_not_checked(api: Api) -> None:
    assert api.create("configmaps", with_field(configmap("c"), "colour", "x"))["colour"] == "x"


def test_updates_are_checked_too(api: Api) -> None:
    api.create("configmaps", configmap("c"))
    with pytest.raises(ApiError, match='unknown field "immutible"'):
        api.update("configmaps", with_field(configmap("c"), "immutible", True), validation=STRICT)


WIDGET = ResourceType(
    group="example.com",
    version="v1",
    kind="Widget",
    plural="widgets",
    singular="widget",
    namespaced=True,
    crd="widgets.example.com",
)
SCHEMA = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "size": {"type": "integer"},
                "parts": {
                    "type": "array",
                    "items": {"type": "object", "properties": {"name": {"type": "string"}}},
                },
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "template": {"type": "object", "x-kubernetes-embedded-resource": True},
            },
        }
    },
}


def widget(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "labels": {"a": "b"}},
        "spec": spec,
    }


@pytest.mark.parametrize(
    ("spec", "unknown"),
    [
        pytest.param(
            {"size": 1, "labels": {"x": "y"}, "free": {"any": {"thing": 1}}}, [], id="known"
        ),
        pytest.param({"sise": 1}, ["spec.sise"], id="unknown-property"),
        pytest.param(
            {"parts": [{"name": "a"}, {"nmae": "b"}]}, ["spec.parts[1].nmae"], id="list-item"
        ),
        pytest.param(
            {"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "x": 1}},
            ["spec.template.x"],
            id="embedded-resource",
        ),
    ],
)
def test_custom_resources_are_checked_against_their_schema(
    spec: dict[str, Any], unknown: list[str]
) -> None:
    body = widget(**spec)
    if not unknown:
        assert fieldvalidation.check(WIDGET, body, STRICT, SCHEMA) is body
        return
    with pytest.raises(ApiError) as refused:
        fieldvalidation.check(WIDGET, body, STRICT, SCHEMA)
    assert refused.value.message.endswith(
        "strict decoding error: " + ", ".join(f'unknown field "{p}"' for p in unknown)
    )
    pruned = fieldvalidation.check(WIDGET, body, IGNORE, SCHEMA)
    assert pruned != body and pruned["metadata"] == body["metadata"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [("", WARN), ("Strict", STRICT), ("Ignore", IGNORE), ("Warn", WARN)],
)
def test_the_query_parameter(value: str, expected: FieldValidation) -> None:
    assert fieldvalidation.parse(value) is expected


def test_an_unknown_query_value_is_a_bad_request() -> None:
    with pytest.raises(ApiError, match="fieldValidation must be one of Ignore, Warn, Strict"):
        fieldvalidation.parse("strict")
