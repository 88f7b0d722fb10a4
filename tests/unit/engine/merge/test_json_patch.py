"""JSON patch (RFC 6902): every operation, and errors that name the operation."""

import copy
from typing import Any

import pytest

from app.engine.merge import PatchError, apply_json_patch
from app.engine.merge.json_patch import MAX_OPERATIONS

DOC: dict[str, Any] = {
    "metadata": {"name": "x", "labels": {"a": "1"}},
    "spec": {"ports": [80, 443]},
}

OPERATIONS = [
    pytest.param(
        [{"op": "add", "path": "/metadata/labels/b", "value": "2"}],
        {"metadata": {"name": "x", "labels": {"a": "1", "b": "2"}}, "spec": {"ports": [80, 443]}},
        id="add-key",
    ),
    pytest.param(
        [{"op": "add", "path": "/spec/ports/1", "value": 8080}],
        {"metadata": {"name": "x", "labels": {"a": "1"}}, "spec": {"ports": [80, 8080, 443]}},
        id="add-inserts-into-list",
    ),
    pytest.param(
        [{"op": "add", "path": "/spec/ports/-", "value": 9}],
        {"metadata": {"name": "x", "labels": {"a": "1"}}, "spec": {"ports": [80, 443, 9]}},
        id="add-appends-with-dash",
    ),
    pytest.param(
        [{"op": "remove", "path": "/metadata/labels"}],
        {"metadata": {"name": "x"}, "spec": {"ports": [80, 443]}},
        id="remove",
    ),
    pytest.param(
        [{"op": "replace", "path": "/spec/ports/0", "value": 81}],
        {"metadata": {"name": "x", "labels": {"a": "1"}}, "spec": {"ports": [81, 443]}},
        id="replace",
    ),
    pytest.param(
        [{"op": "move", "from": "/metadata/labels", "path": "/spec/labels"}],
        {"metadata": {"name": "x"}, "spec": {"ports": [80, 443], "labels": {"a": "1"}}},
        id="move",
    ),
    pytest.param(
        [{"op": "copy", "from": "/metadata/name", "path": "/spec/name"}],
        {
            "metadata": {"name": "x", "labels": {"a": "1"}},
            "spec": {"ports": [80, 443], "name": "x"},
        },
        id="copy",
    ),
    pytest.param(
        [
            {"op": "test", "path": "/metadata/name", "value": "x"},
            {"op": "remove", "path": "/spec"},
        ],
        {"metadata": {"name": "x", "labels": {"a": "1"}}},
        id="test-passes-then-applies",
    ),
    pytest.param(
        [{"op": "add", "path": "/metadata/labels/k8s.io~1part", "value": "v"}],
        {
            "metadata": {"name": "x", "labels": {"a": "1", "k8s.io/part": "v"}},
            "spec": {"ports": [80, 443]},
        },
        id="escaped-slash-in-key",
    ),
]


@pytest.mark.parametrize(("ops", "expected"), OPERATIONS)
def test_operations(ops: list[Any], expected: dict[str, Any]) -> None:
    before = copy.deepcopy(DOC)
    assert apply_json_patch(DOC, ops) == expected
    assert before == DOC


ERRORS = [
    pytest.param(
        [{"op": "test", "path": "/metadata/name", "value": "y"}],
        "ops[0]: test failed",
        id="failed-test-changes-nothing",
    ),
    pytest.param(
        [{"op": "add", "path": "/a", "value": 1}, {"op": "remove", "path": "/nope"}],
        "ops[1]: remove /nope",
        id="error-names-the-operation",
    ),
    pytest.param([{"op": "frobnicate", "path": "/a"}], "unknown op 'frobnicate'", id="unknown-op"),
    pytest.param([{"op": "add", "value": 1}], "needs a string 'path'", id="missing-path"),
    pytest.param([{"op": "add", "path": "/a"}], "add needs a 'value'", id="missing-value"),
    pytest.param([{"op": "move", "path": "/a"}], "move needs a string 'from'", id="missing-from"),
    pytest.param(["add"], "an operation must be an object", id="operation-not-object"),
    pytest.param(
        [{"op": "replace", "path": "", "value": [1]}],
        "no longer a JSON object",
        id="root-replaced-by-list",
    ),
    pytest.param({"op": "add"}, "must be a list of operations", id="patch-not-a-list"),
]


@pytest.mark.parametrize(("ops", "message"), ERRORS)
def test_errors_say_which_operation_and_why(ops: Any, message: str) -> None:
    with pytest.raises(PatchError, match=message.replace("[", r"\[").replace("]", r"\]")):
        apply_json_patch(DOC, ops)


def test_operation_count_is_limited() -> None:
    ops = [{"op": "test", "path": "/metadata/name", "value": "x"}] * (MAX_OPERATIONS + 1)
    with pytest.raises(PatchError, match="exceed the limit"):
        apply_json_patch(DOC, ops)


def test_copies_that_blow_up_the_object_are_refused() -> None:
    doc = {"a": "x" * 1024 * 1024}
    ops = [{"op": "copy", "from": "/a", "path": f"/b{i}"} for i in range(4)]
    with pytest.raises(PatchError, match="copy operations duplicate more than"):
        apply_json_patch(doc, ops)
