"""JSON merge patch (RFC 7386): applying, creating, and kubectl's three-way patch."""

import copy
from typing import Any

import pytest

from app.engine.merge import (
    PatchError,
    apply_merge_patch,
    create_merge_patch,
    create_three_way_merge_patch,
)

RFC_7386_EXAMPLES = [
    pytest.param({"a": "b"}, {"a": "c"}, {"a": "c"}, id="replace-value"),
    pytest.param({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}, id="add-key"),
    pytest.param({"a": "b"}, {"a": None}, {}, id="null-deletes"),
    pytest.param({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}, id="null-deletes-only-that-key"),
    pytest.param({"a": ["b"]}, {"a": "c"}, {"a": "c"}, id="list-replaced-by-scalar"),
    pytest.param({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}, id="scalar-replaced-by-list"),
    pytest.param(
        {"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}, id="nested-merge"
    ),
    pytest.param({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}, id="lists-replaced-whole"),
    pytest.param({"e": None}, {"a": 1}, {"e": None, "a": 1}, id="existing-null-kept"),
    pytest.param({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}, id="nulls-in-new-object"),
    pytest.param({"a": [1, None]}, {}, {"a": [1, None]}, id="empty-patch-changes-nothing"),
]


@pytest.mark.parametrize(("target", "patch", "expected"), RFC_7386_EXAMPLES)
def test_apply_follows_rfc_7386(
    target: dict[str, Any], patch: dict[str, Any], expected: dict[str, Any]
) -> None:
    before = copy.deepcopy(target)
    assert apply_merge_patch(target, patch) == expected
    assert target == before


@pytest.mark.parametrize(
    "patch",
    [pytest.param(["c"], id="list"), pytest.param(None, id="null"), pytest.param("x", id="str")],
)
def test_a_patch_that_is_not_an_object_is_refused(patch: Any) -> None:
    with pytest.raises(PatchError, match="merge patch must be a JSON object"):
        apply_merge_patch({"a": 1}, patch)


CREATE_CASES = [
    pytest.param({"a": 1}, {"a": 1}, {}, id="equal-gives-empty-patch"),
    pytest.param({"a": 1}, {"a": 2}, {"a": 2}, id="changed-scalar"),
    pytest.param({"a": 1}, {}, {"a": None}, id="removed-key-is-null"),
    pytest.param({}, {"a": {"b": 1}}, {"a": {"b": 1}}, id="added-subtree-whole"),
    pytest.param({"a": {"b": 1, "c": 2}}, {"a": {"b": 1}}, {"a": {"c": None}}, id="nested"),
    pytest.param({"a": [1, 2]}, {"a": [2, 1]}, {"a": [2, 1]}, id="list-order-matters"),
    pytest.param({"a": [1]}, {"a": [1.0]}, {}, id="numbers-compare-by-value"),
    pytest.param({"a": 1}, {"a": True}, {"a": True}, id="true-is-not-one"),
    pytest.param({"a": [0]}, {"a": [False]}, {"a": [False]}, id="false-is-not-zero-in-lists"),
    pytest.param({"a": {"b": 1}}, {"a": "x"}, {"a": "x"}, id="type-change-replaces"),
    pytest.param({"a": {"b": 1}}, {"a": {}}, {"a": {"b": None}}, id="emptied-object"),
]


@pytest.mark.parametrize(("original", "modified", "expected"), CREATE_CASES)
def test_create_merge_patch(
    original: dict[str, Any], modified: dict[str, Any], expected: dict[str, Any]
) -> None:
    patch = create_merge_patch(original, modified)
    assert patch == expected
    assert apply_merge_patch(original, patch) == modified


THREE_WAY_CASES = [
    pytest.param(
        {"spec": {"a": 1, "b": 2}},
        {"spec": {"a": 1}},
        {"spec": {"a": 1, "b": 2, "c": 3}},
        {"spec": {"b": None}},
        id="delete-only-what-was-last-applied",
    ),
    pytest.param(
        None,
        {"spec": {"a": 2}},
        {"spec": {"a": 1, "z": 9}},
        {"spec": {"a": 2}},
        id="no-last-applied-deletes-nothing",
    ),
    pytest.param(
        {"spec": {"a": 1}},
        {"spec": {"a": 1}},
        {"spec": {"a": 5}},
        {"spec": {"a": 1}},
        id="live-drift-is-reverted",
    ),
    pytest.param(
        {"spec": {"list": [1, 2]}},
        {"spec": {"list": [1]}},
        {"spec": {"list": [1, 2]}},
        {"spec": {"list": [1]}},
        id="lists-are-replaced",
    ),
    pytest.param(
        None,
        {"spec": {"a": {}}},
        {"spec": {"a": {"x": 1}}},
        {},
        id="empty-object-in-config-keeps-live-keys",
    ),
    pytest.param(
        None,
        {"spec": {"a": {}}},
        {"spec": {}},
        {"spec": {"a": {}}},
        id="empty-object-added-when-missing",
    ),
    pytest.param(
        {"spec": {"a": {"b": 1}}},
        {"spec": {}},
        {"spec": {"a": {"b": 1, "c": 2}}},
        {"spec": {"a": None}},
        id="removed-subtree-deleted-whole",
    ),
]


@pytest.mark.parametrize(("original", "modified", "current", "expected"), THREE_WAY_CASES)
def test_three_way_merge_patch(
    original: dict[str, Any] | None,
    modified: dict[str, Any],
    current: dict[str, Any],
    expected: dict[str, Any],
) -> None:
    assert create_three_way_merge_patch(original, modified, current) == expected


def test_deeply_nested_patch_is_refused_cleanly() -> None:
    patch: dict[str, Any] = {}
    inner = patch
    for _ in range(5000):
        inner["a"] = {}
        inner = inner["a"]
    with pytest.raises(PatchError, match="nests too deeply"):
        apply_merge_patch({}, patch)
