"""Client-side apply bookkeeping: the annotation kubectl keeps and the patch it sends."""

import json
from typing import Any

import pytest

from app.cluster.last_applied import annotate, previous, three_way_patch
from app.cluster.options import PatchType
from app.model.annotations import LAST_APPLIED


def cm(data: dict[str, str], **annotations: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "cfg", "namespace": "shop"}
    if annotations:
        meta["annotations"] = dict(annotations)
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data}


def test_annotation_holds_the_manifest_as_sorted_compact_json() -> None:
    annotated = annotate(cm({"b": "2", "a": "1"}, team="x"))
    text = annotated["metadata"]["annotations"][LAST_APPLIED]
    assert text.endswith("}\n")
    assert json.loads(text) == cm({"a": "1", "b": "2"}, team="x")
    assert text.index('"a"') < text.index('"b"')
    assert ": " not in text
    assert annotated["metadata"]["annotations"]["team"] == "x"


def test_an_existing_annotation_is_replaced_not_nested() -> None:
    once = annotate(cm({"a": "1"}))
    twice = annotate(once)
    assert twice == once
    assert (
        LAST_APPLIED not in json.loads(twice["metadata"]["annotations"][LAST_APPLIED])["metadata"]
    )


def test_annotate_does_not_modify_its_input() -> None:
    manifest = cm({"a": "1"})
    annotate(manifest)
    assert manifest == cm({"a": "1"})


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        pytest.param(None, None, id="absent"),
        pytest.param("", None, id="empty"),
        pytest.param("{not json", None, id="not-json"),
        pytest.param("[1, 2]", None, id="not-an-object"),
        pytest.param('{"data": {"a": "1"}}', {"data": {"a": "1"}}, id="an-object"),
    ],
)
def test_previous_manifest_from_the_live_object(
    annotation: str | None, expected: dict[str, Any] | None
) -> None:
    live = cm({}) if annotation is None else cm({}, **{LAST_APPLIED: annotation})
    assert previous(live) == expected


def test_a_field_dropped_from_the_manifest_is_deleted_by_the_patch() -> None:
    live = annotate(cm({"a": "1", "b": "2"}))
    live["metadata"]["labels"] = {"added-by": "someone-else"}
    patch, patch_type = three_way_patch(annotate(cm({"a": "1"})), live)
    assert patch_type is PatchType.STRATEGIC
    assert patch["data"] == {"b": None}
    assert "labels" not in patch["metadata"]


def test_an_unchanged_manifest_needs_no_patch() -> None:
    live = annotate(cm({"a": "1"}))
    assert three_way_patch(annotate(cm({"a": "1"})), live) == ({}, PatchType.STRATEGIC)


def test_custom_resources_get_a_json_merge_patch() -> None:
    widget = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w", "namespace": "shop"},
        "spec": {"size": 1, "color": "red"},
    }
    live = annotate(widget)
    patch, patch_type = three_way_patch(annotate({**widget, "spec": {"size": 2}}), live)
    assert patch_type is PatchType.MERGE
    assert patch["spec"] == {"size": 2, "color": None}
