"""Which fields a change adds, modifies and removes (the basis of Update ownership)."""

from typing import Any

import pytest

from app.engine.merge import FieldSet, GroupVersionKind, compare

DEPLOYMENT = GroupVersionKind("apps", "v1", "Deployment")


def fs(tree: dict[str, Any]) -> FieldSet:
    return FieldSet.from_fields_v1(tree)


CASES = [
    pytest.param(
        {},
        {"metadata": {"labels": {"a": "1"}}},
        fs({"f:metadata": {"f:labels": {".": {}, "f:a": {}}}}),
        FieldSet(),
        FieldSet(),
        id="added-map-is-itself-added",
    ),
    pytest.param(
        {},
        {"spec": {"replicas": 1}},
        fs({"f:spec": {"f:replicas": {}}}),
        FieldSet(),
        FieldSet(),
        id="struct-in-go-zero-value-is-not-added",
    ),
    pytest.param(
        {"spec": {"replicas": 1}},
        {"spec": {"replicas": True}},
        FieldSet(),
        fs({"f:spec": {"f:replicas": {}}}),
        FieldSet(),
        id="true-is-not-one",
    ),
    pytest.param(
        {"spec": {"replicas": 1}},
        {"spec": {"replicas": 1.0}},
        FieldSet(),
        FieldSet(),
        FieldSet(),
        id="numbers-compare-by-value",
    ),
    pytest.param(
        {
            "spec": {
                "template": {"spec": {"containers": [{"name": "a", "image": "x"}, {"name": "b"}]}}
            }
        },
        {"spec": {"template": {"spec": {"containers": [{"name": "a", "image": "y"}]}}}},
        FieldSet(),
        fs(
            {
                "f:spec": {
                    "f:template": {"f:spec": {"f:containers": {'k:{"name":"a"}': {"f:image": {}}}}}
                }
            }
        ),
        fs(
            {
                "f:spec": {
                    "f:template": {
                        "f:spec": {"f:containers": {'k:{"name":"b"}': {".": {}, "f:name": {}}}}
                    }
                }
            }
        ),
        id="keyed-items-compared-by-key",
    ),
    pytest.param(
        {"spec": {"template": {"spec": {"containers": [{"name": "a", "args": ["-v"]}]}}}},
        {"spec": {"template": {"spec": {"containers": [{"name": "a", "args": ["-q"]}]}}}},
        FieldSet(),
        fs(
            {
                "f:spec": {
                    "f:template": {"f:spec": {"f:containers": {'k:{"name":"a"}': {"f:args": {}}}}}
                }
            }
        ),
        FieldSet(),
        id="atomic-list-is-one-leaf",
    ),
    pytest.param(
        {"spec": {"selector": {"matchLabels": {"a": "1"}}}},
        {"spec": {"selector": {"matchLabels": {"a": "2"}}}},
        FieldSet(),
        fs({"f:spec": {"f:selector": {}}}),
        FieldSet(),
        id="atomic-map-is-one-leaf",
    ),
    pytest.param(
        {"spec": {"paused": None}},
        {"spec": {"paused": {}}},
        FieldSet(),
        fs({"f:spec": {"f:paused": {}}}),
        FieldSet(),
        id="null-and-empty-map-differ",
    ),
    pytest.param(
        {"metadata": {"finalizers": ["x", "y"]}},
        {"metadata": {"finalizers": ["y", "z"]}},
        fs({"f:metadata": {"f:finalizers": {'v:"z"': {}}}}),
        FieldSet(),
        fs({"f:metadata": {"f:finalizers": {'v:"x"': {}}}}),
        id="set-items-by-value",
    ),
]


@pytest.mark.parametrize(("old", "new", "added", "modified", "removed"), CASES)
def test_compare(
    old: dict[str, Any],
    new: dict[str, Any],
    added: FieldSet,
    modified: FieldSet,
    removed: FieldSet,
) -> None:
    result = compare(old, new, DEPLOYMENT)
    assert (result.added, result.modified, result.removed) == (added, modified, removed)
    assert bool(result) == bool(added or modified or removed)
