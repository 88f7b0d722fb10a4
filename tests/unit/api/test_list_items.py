"""The list's kept items: reused while the stored bytes are the same, replaced when not."""

import json

from app.api.list_items import ListItems
from app.model.identity import AppRef
from app.model.status import ApplicationStatus
from app.model.sync import SyncStatusCode
from app.store.status import RawStatus

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
