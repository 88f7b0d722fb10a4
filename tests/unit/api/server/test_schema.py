"""Request decoding is strict and names the field; the schema says the same."""

from typing import Any

import pytest

from app.api.schema import DecodeError, SchemaBuilder, decode
from app.api.shapes import RollbackRequest, SyncRequest


@pytest.mark.parametrize(
    ("doc", "field"),
    [
        pytest.param({"prnue": True}, "prnue", id="unknown field"),
        pytest.param({"prune": "yes"}, "prune", id="string for boolean"),
        pytest.param(
            {"resources": [{"kind": "Deployment"}]}, "resources[0].name", id="missing nested"
        ),
        pytest.param({"strategy": "yolo"}, "strategy", id="not in the enum"),
        pytest.param({"retry": {"limit": -2}}, "retry.limit", id="below minimum"),
        pytest.param({"revision": "x" * 256}, "revision", id="too long"),
        pytest.param({"syncOptions": ["a"] * 51}, "syncOptions", id="too many items"),
        pytest.param({"retry": None}, None, id="null where allowed"),
        pytest.param([], "(body)", id="not an object"),
    ],
)
def test_sync_request_decoding(doc: Any, field: str | None) -> None:
    if field is None:
        assert decode(SyncRequest, doc).retry is None
        return
    with pytest.raises(DecodeError) as raised:
        decode(SyncRequest, doc)
    assert raised.value.field == field


def test_integers_are_not_booleans() -> None:
    with pytest.raises(DecodeError, match="expected an integer"):
        decode(RollbackRequest, {"id": True})


def test_schema_matches_the_decoder() -> None:
    builder = SchemaBuilder()
    builder.schema(SyncRequest)
    sync = builder.components["SyncRequest"]
    assert sync["additionalProperties"] is False
    assert sync["properties"]["strategy"]["enum"] == ["hook", "apply"]
    assert sync["properties"]["revision"]["maxLength"] == 255
    resource = builder.components["SyncResource"]
    assert resource["required"] == ["kind", "name"]
    builder.schema(RollbackRequest)
    assert builder.components["RollbackRequest"]["properties"]["id"]["minimum"] == 0
