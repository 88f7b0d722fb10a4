"""Argo CD's `fields` parameter: keep or drop paths of a JSON answer."""

import re

import pytest

from app.api.errors import BadRequest
from app.api.fields import parse_fields, select

DOC = {
    "metadata": {"resourceVersion": "7"},
    "items": [
        {
            "metadata": {"name": "a", "labels": {"x": "1"}},
            "status": {"sync": {"status": "Synced"}, "history": [{"id": 0}]},
        },
        {"metadata": {"name": "b"}, "spec": {"project": "p"}},
    ],
}


def test_kept_paths_go_into_every_item_of_a_list() -> None:
    selection = parse_fields("items.metadata.name, items.status.sync, metadata.resourceVersion")
    assert selection is not None
    assert select(DOC, selection) == {
        "metadata": {"resourceVersion": "7"},
        "items": [
            {"metadata": {"name": "a"}, "status": {"sync": {"status": "Synced"}}},
            {"metadata": {"name": "b"}},
        ],
    }
    assert not selection.wants("items", "status", "history")
    assert selection.wants("items", "status")
    assert selection.wants("items", "status", "sync", "revision")


def test_a_leading_minus_drops_the_paths_and_a_shorter_path_wins() -> None:
    selection = parse_fields("-items.status.history,items.spec")
    assert selection is not None
    assert select(DOC, selection)["items"] == [
        {"metadata": {"name": "a", "labels": {"x": "1"}}, "status": {"sync": {"status": "Synced"}}},
        {"metadata": {"name": "b"}},
    ]
    assert not selection.wants("items", "status", "history")
    assert selection.wants("items", "status") and selection.wants("items", "metadata", "name")
    whole = parse_fields("items.status,items.status.sync")
    assert whole is not None and select(DOC, whole)["items"][0]["status"]["history"] == [{"id": 0}]


def test_no_paths_is_no_selection_and_bad_paths_are_named() -> None:
    assert parse_fields("") is None and parse_fields(" , ") is None
    with pytest.raises(BadRequest, match=re.escape("'items..name' is not a dotted path")):
        parse_fields("items..name")
    with pytest.raises(BadRequest, match="65 paths given; the limit is 64"):
        parse_fields(",".join(f"f{i}" for i in range(65)))
