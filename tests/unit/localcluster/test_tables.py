"""Table output for kubectl get: columns per type and kubectl's ages."""

import pytest

from app.localcluster.builtin import BUILTIN_TYPES
from app.localcluster.resources import PrinterColumn, ResourceType
from app.localcluster.web.tables import human_duration, table


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (-5, "<invalid>"),
        (0, "0s"),
        (119, "119s"),
        (120, "2m"),
        (185, "3m5s"),
        (900, "15m"),
        (3 * 3600 + 60, "3h1m"),
        (10 * 3600, "10h"),
        (3 * 86400 + 3600, "3d1h"),
        (30 * 86400, "30d"),
        (3 * 365 * 86400 + 86400, "3y1d"),
        (9 * 365 * 86400, "9y"),
    ],
)
def test_ages_read_like_kubectl(seconds: float, shown: str) -> None:
    assert human_duration(seconds) == shown


def _type(plural: str) -> ResourceType:
    return next(rt for rt in BUILTIN_TYPES if rt.plural == plural)


def test_deployment_columns() -> None:
    obj = {
        "metadata": {"name": "web", "creationTimestamp": "2020-01-01T00:00:00Z"},
        "spec": {"replicas": 3},
        "status": {"readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2},
    }
    doc = table(_type("deployments"), [obj], "7", "Metadata")
    assert [c["name"] for c in doc["columnDefinitions"]] == [
        "Name",
        "Ready",
        "Up-to-date",
        "Available",
        "Age",
    ]
    assert doc["rows"][0]["cells"][:4] == ["web", "2/3", 3, 2]
    assert doc["rows"][0]["object"]["kind"] == "PartialObjectMetadata"
    assert doc["metadata"]["resourceVersion"] == "7"


def test_pod_status_shows_the_waiting_reason() -> None:
    pod = {
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c"}]},
        "status": {
            "phase": "Running",
            "containerStatuses": [
                {
                    "ready": False,
                    "restartCount": 3,
                    "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                }
            ],
        },
    }
    cells = table(_type("pods"), [pod], "1", "None")["rows"][0]["cells"]
    assert cells[:4] == ["p", "0/1", "CrashLoopBackOff", 3]


def test_custom_resources_use_their_printer_columns() -> None:
    rt = ResourceType(
        "argoproj.io", "v1alpha1", "Application", "applications", "application", True,
        printer_columns=(PrinterColumn("Sync Status", "string", ".status.sync.status"),),
    )  # fmt: skip
    app = {"metadata": {"name": "guestbook"}, "status": {"sync": {"status": "Synced"}}}
    doc = table(rt, [app], "1", "Object")
    assert [c["name"] for c in doc["columnDefinitions"]] == ["Name", "Sync Status"]
    assert doc["rows"][0]["cells"] == ["guestbook", "Synced"]
    assert doc["rows"][0]["object"] is app
