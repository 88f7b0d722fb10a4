"""FieldSet: FieldsV1 round trips, set algebra, the sets configurations claim, removal."""

from pathlib import Path
from typing import Any

import pytest
import yaml

from app.engine.merge import (
    FieldSet,
    GroupVersionKind,
    ManagedFieldsError,
    PatchError,
    fields_owned_by,
)

REAL = yaml.safe_load((Path(__file__).parent / "cases" / "real_deployment.yaml").read_text())
DEPLOYMENT = GroupVersionKind("apps", "v1", "Deployment")
POD = GroupVersionKind("", "v1", "Pod")


@pytest.mark.parametrize(
    "fields_v1",
    [
        pytest.param(REAL["fieldsV1"], id="client-side-apply-entry"),
        pytest.param(REAL["status_fieldsV1"], id="controller-status-entry"),
    ],
)
def test_real_entries_round_trip(fields_v1: dict[str, Any]) -> None:
    assert FieldSet.from_fields_v1(fields_v1).to_fields_v1() == fields_v1


def test_rendering_puts_member_mark_first_then_fields_keys_values() -> None:
    tree = FieldSet.from_fields_v1(
        {"f:m": {'v:"x"': {}, 'k:{"a":1}': {}, "f:z": {}, ".": {}, "f:b": {}}}
    ).to_fields_v1()
    assert list(tree["f:m"]) == [".", "f:b", "f:z", 'k:{"a":1}', 'v:"x"']


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        pytest.param(
            'k:{"protocol":"TCP","containerPort":80}',
            'k:{"containerPort":80,"protocol":"TCP"}',
            id="key-fields-sorted",
        ),
        pytest.param('k:{"containerPort": 80.0}', 'k:{"containerPort":80}', id="integral-numbers"),
        pytest.param('v: "x"', 'v:"x"', id="value-compact"),
    ],
)
def test_elements_are_canonical_so_sets_compare_equal(written: str, canonical: str) -> None:
    parsed = FieldSet.from_fields_v1({"f:l": {written: {}}})
    assert parsed == FieldSet.from_fields_v1({"f:l": {canonical: {}}})


def test_a_member_with_only_the_mark_is_a_leaf() -> None:
    assert FieldSet.from_fields_v1({"f:a": {".": {}}}) == FieldSet.from_fields_v1({"f:a": {}})


@pytest.mark.parametrize(
    ("fields_v1", "field", "problem"),
    [
        pytest.param({"x:y": {}}, "x:y", "is not a field path element", id="unknown-prefix"),
        pytest.param(
            {"f:a": {"k:[1]": {}}}, "f:a.k:[1]", "is not a field path element", id="key-not-object"
        ),
        pytest.param({"f:a": []}, "f:a", "must be an object", id="node-not-object"),
        pytest.param(
            {"f:a": {".": {"f:b": {}}}}, "f:a", "'.' must map to {}", id="bad-member-mark"
        ),
        pytest.param([], "", "must be an object", id="root-not-object"),
    ],
)
def test_invalid_fields_v1_is_refused_with_its_place(
    fields_v1: Any, field: str, problem: str
) -> None:
    with pytest.raises(ManagedFieldsError) as raised:
        FieldSet.from_fields_v1(fields_v1)
    assert raised.value.field == field
    assert problem in raised.value.problem


def fs(tree: dict[str, Any]) -> FieldSet:
    return FieldSet.from_fields_v1(tree)


SPEC_AND_REPLICAS = fs({"f:spec": {".": {}, "f:replicas": {}}})
REPLICAS = fs({"f:spec": {"f:replicas": {}}})
SPEC = fs({"f:spec": {}})

ALGEBRA = [
    pytest.param(SPEC_AND_REPLICAS - SPEC, REPLICAS, id="difference-removes-the-path-not-below"),
    pytest.param(SPEC_AND_REPLICAS - REPLICAS, SPEC, id="difference-keeps-the-member-above"),
    pytest.param(SPEC | REPLICAS, SPEC_AND_REPLICAS, id="union-of-member-and-child"),
    pytest.param(SPEC_AND_REPLICAS & REPLICAS, REPLICAS, id="intersection-path-wise"),
    pytest.param(SPEC & REPLICAS, FieldSet(), id="member-does-not-contain-children"),
    pytest.param(REPLICAS - REPLICAS, FieldSet(), id="difference-with-itself-is-empty"),
]


@pytest.mark.parametrize(("result", "expected"), ALGEBRA)
def test_set_algebra_is_path_wise(result: FieldSet, expected: FieldSet) -> None:
    assert result == expected


def test_paths_are_spelled_like_the_api_server() -> None:
    owned = fs(
        {
            "f:metadata": {"f:finalizers": {'v:"example.com/x"': {}}},
            "f:spec": {
                "f:containers": {
                    'k:{"name":"web"}': {
                        ".": {},
                        "f:ports": {'k:{"containerPort":80,"protocol":"TCP"}': {"f:name": {}}},
                    }
                }
            },
        }
    )
    assert owned.paths() == [
        '.metadata.finalizers[="example.com/x"]',
        '.spec.containers[name="web"]',
        '.spec.containers[name="web"].ports[containerPort=80,protocol="TCP"].name',
    ]


FROM_OBJECT = [
    pytest.param({"spec": {"replicas": 1}}, {"f:spec": {"f:replicas": {}}}, id="leaf"),
    pytest.param(
        {"spec": {"strategy": {}}}, {"f:spec": {"f:strategy": {}}}, id="empty-map-is-leaf"
    ),
    pytest.param({"spec": {"paused": None}}, {"f:spec": {"f:paused": {}}}, id="null-is-leaf"),
    pytest.param(
        {"spec": {"selector": {"matchLabels": {"a": "b"}}}},
        {"f:spec": {"f:selector": {}}},
        id="label-selector-is-atomic",
    ),
    pytest.param(
        {"spec": {"template": {"spec": {"containers": [{"name": "w", "args": ["-v"]}]}}}},
        {
            "f:spec": {
                "f:template": {
                    "f:spec": {
                        "f:containers": {'k:{"name":"w"}': {".": {}, "f:name": {}, "f:args": {}}}
                    }
                }
            }
        },
        id="keyed-item-and-atomic-args",
    ),
    pytest.param(
        {"metadata": {"finalizers": ["a", "b"]}},
        {"f:metadata": {"f:finalizers": {'v:"a"': {}, 'v:"b"': {}}}},
        id="set-items-by-value",
    ),
    pytest.param(
        {"metadata": {"finalizers": []}, "spec": {"replicas": 1}},
        {"f:spec": {"f:replicas": {}}},
        id="empty-keyed-or-set-list-claims-nothing",
    ),
    pytest.param(
        {
            "spec": {
                "template": {
                    "spec": {"containers": [{"name": "w", "ports": [{"containerPort": 80}]}]}
                }
            }
        },
        {
            "f:spec": {
                "f:template": {
                    "f:spec": {
                        "f:containers": {
                            'k:{"name":"w"}': {
                                ".": {},
                                "f:name": {},
                                "f:ports": {
                                    'k:{"containerPort":80,"protocol":"TCP"}': {
                                        ".": {},
                                        "f:containerPort": {},
                                    }
                                },
                            }
                        }
                    }
                }
            }
        },
        id="omitted-key-field-takes-its-default",
    ),
]


@pytest.mark.parametrize(("obj", "expected"), FROM_OBJECT)
def test_from_object_claims_what_apply_would(obj: dict[str, Any], expected: dict[str, Any]) -> None:
    assert FieldSet.from_object(obj, DEPLOYMENT) == fs(expected)


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        pytest.param(
            {"spec": {"containers": [{"image": "x"}]}},
            "spec.containers[0]: the item omits key field 'name'",
            id="missing-key-without-default",
        ),
        pytest.param(
            {"spec": {"containers": [{"name": "a"}, {"name": "a"}]}},
            'spec.containers[1]: duplicate entries for [name="a"]',
            id="duplicate-key",
        ),
        pytest.param(
            {"metadata": {"finalizers": [{"a": 1}]}},
            "metadata.finalizers[0]: items of this list must be scalars",
            id="object-in-a-set",
        ),
    ],
)
def test_from_object_refuses_what_apply_refuses(obj: dict[str, Any], message: str) -> None:
    with pytest.raises(PatchError, match=message.replace("[", r"\[").replace("]", r"\]")):
        FieldSet.from_object(obj, POD)


LIVE: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p", "labels": {"a": "1"}, "finalizers": ["x", "y"]},
    "spec": {
        "containers": [
            {"name": "web", "image": "w", "ports": [{"containerPort": 80, "name": "http"}]},
            {"name": "side", "image": "s"},
        ]
    },
}

REMOVALS = [
    pytest.param(
        {"f:metadata": {"f:labels": {"f:a": {}}}},
        {"metadata": {"name": "p", "finalizers": ["x", "y"]}},
        id="emptied-map-disappears",
    ),
    pytest.param(
        {"f:metadata": {"f:finalizers": {'v:"x"': {}}}},
        {"metadata": {"name": "p", "labels": {"a": "1"}, "finalizers": ["y"]}},
        id="set-item-by-value",
    ),
    pytest.param(
        {"f:spec": {"f:containers": {'k:{"name":"side"}': {}}}},
        {
            "spec": {
                "containers": [
                    {"name": "web", "image": "w", "ports": [{"containerPort": 80, "name": "http"}]}
                ]
            }
        },
        id="keyed-item-whole",
    ),
    pytest.param(
        {
            "f:spec": {
                "f:containers": {
                    'k:{"name":"web"}': {
                        "f:ports": {'k:{"containerPort":80,"protocol":"TCP"}': {"f:name": {}}}
                    }
                }
            }
        },
        {
            "spec": {
                "containers": [
                    {"name": "web", "image": "w", "ports": [{"containerPort": 80}]},
                    {"name": "side", "image": "s"},
                ]
            }
        },
        id="field-of-item-matched-with-key-default",
    ),
    pytest.param(
        {"f:spec": {"f:containers": {'k:{"name":"nope"}': {}}}, "f:status": {}},
        {},
        id="absent-paths-change-nothing",
    ),
]


@pytest.mark.parametrize(("tree", "changes"), REMOVALS)
def test_remove_from(tree: dict[str, Any], changes: dict[str, Any]) -> None:
    result = fs(tree).remove_from(LIVE)
    assert result == {**LIVE, **changes}
    if not changes:
        assert result is LIVE


def test_remove_from_shares_what_it_does_not_touch() -> None:
    result = fs({"f:metadata": {"f:labels": {}}}).remove_from(LIVE)
    assert "labels" in LIVE["metadata"]
    assert result["spec"] is LIVE["spec"]


def test_a_configuration_without_what_it_claims_is_empty() -> None:
    config = {**LIVE, "metadata": {"name": "p", "labels": {"a": "1"}}}
    assert FieldSet.from_object(config, POD).remove_from(config) == {}


MANAGED = [
    {
        "manager": "kubectl",
        "operation": "Apply",
        "apiVersion": "v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": {"f:spec": {"f:replicas": {}}},
    },
    {
        "manager": "hpa",
        "operation": "Update",
        "apiVersion": "v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": {"f:spec": {"f:paused": {}}},
    },
    {
        "manager": "kubectl",
        "operation": "Update",
        "apiVersion": "v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": {"f:metadata": {"f:labels": {"f:a": {}}}},
    },
]


@pytest.mark.parametrize(
    ("managers", "expected"),
    [
        pytest.param(
            ["kubectl"],
            {"f:spec": {"f:replicas": {}}, "f:metadata": {"f:labels": {"f:a": {}}}},
            id="every-entry-of-a-manager",
        ),
        pytest.param(["hpa"], {"f:spec": {"f:paused": {}}}, id="one-manager"),
        pytest.param(["nobody"], {}, id="unknown-manager-owns-nothing"),
    ],
)
def test_fields_owned_by(managers: list[str], expected: dict[str, Any]) -> None:
    assert fields_owned_by(MANAGED, managers) == fs(expected)


def test_fields_owned_by_names_the_bad_entry() -> None:
    bad = [*MANAGED[:1], {"manager": "hpa", "fieldsV1": {"nope": {}}}]
    with pytest.raises(ManagedFieldsError) as raised:
        fields_owned_by(bad, ["hpa"])
    assert raised.value.field == "metadata.managedFields[1].fieldsV1.nope"
