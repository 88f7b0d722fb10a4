"""The list's kept items: reused while the stored bytes are the same, replaced when not."""

import json
from dataclasses import replace

from app.api.list_items import ListItems
from app.api.routes import encode
from app.model.identity import AppRef
from app.model.status import ApplicationStatus
from app.model.sync import SyncStatusCode
from app.store.apps import decode_app
from app.store.status import RawStatus, decode_raw

REF = AppRef("sluice", "web")
DOC = json.dumps(
    {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "web", "namespace": "sluice"},
        "spec": {
            "project": "default",
            "source": {"repoURL": "https://git.example/a.git", "path": "web"},
            "destination": {"server": "https://kubernetes.default.svc", "namespace": "web"},
        },
    }
).encode()


def raw(sync: str) -> RawStatus:
    status = json.dumps({"sync": {"status": sync}, "health": {"status": "Healthy"}}).encode()
    return RawStatus(b"1", status, (), None)


def test_items_are_kept_while_the_bytes_match_and_replaced_when_they_change() -> None:
    items = ListItems()
    first = items.item(REF, DOC, raw("Synced"))
    assert first is not None and first.sync is SyncStatusCode.SYNCED
    assert items.item(REF, DOC, raw("Synced")) is first, "the same bytes: the kept item"
    changed = items.item(REF, DOC, raw("OutOfSync"))
    assert changed is not None and changed.sync is SyncStatusCode.OUT_OF_SYNC
    assert changed.encoded["status"]["sync"]["status"] == "OutOfSync"
    kept = items.app(REF, DOC)
    assert kept is items.app(REF, DOC)
    assert kept is not None and kept.status == ApplicationStatus(), "the kept app is never changed"
    assert items.app(REF, b"{not json") is None


def test_an_item_is_the_app_as_a_get_encodes_it_with_its_status() -> None:
    status = {
        "sync": {"status": "OutOfSync", "revision": "a" * 40},
        "health": {"status": "Degraded", "message": "web: 0/2 ready"},
        "conditions": [{"type": "ComparisonError", "message": "<b>no</b> such path"}],
        "resources": [{"kind": "Deployment", "name": "web", "status": "OutOfSync"}],
    }
    found = RawStatus(b"2", json.dumps(status).encode(), (), None)
    stored = decode_raw(REF, found)
    app = decode_app(REF, DOC)
    assert stored is not None and app is not None
    item = ListItems().item(REF, DOC, found)
    assert item is not None
    assert item.encoded == encode(replace(app, status=stored.status))
    never = ListItems().item(REF, DOC, RawStatus(None, None, (), None))
    assert never is not None and never.encoded == encode(app)
    assert "status" not in never.encoded, "an app never compared has no status, as in a get"
