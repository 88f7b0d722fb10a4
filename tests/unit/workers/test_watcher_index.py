"""The watcher's index: objects read back as the cluster sent them, health per version, size."""

import tracemalloc
from typing import Any

from app import jsonio
from app.engine.health import HealthCustomizations
from app.engine.tracking import TrackingMethod
from app.model.health import HealthStatusCode
from workers.watcher.index import ObjectIndex

CHECKS = HealthCustomizations()


def index() -> ObjectIndex:
    return ObjectIndex(TrackingMethod.LABEL, lambda: CHECKS)


def deployment(name: str, rv: str, *, updated: int) -> dict[str, Any]:
    """A Deployment as a client-side apply leaves it: last-applied, managedFields, status."""
    spec = {
        "replicas": 2,
        "selector": {"matchLabels": {"app": name}},
        "template": {
            "metadata": {"labels": {"app": name}},
            "spec": {"containers": [{"name": "web", "image": "web:1", "ports": [{"port": 80}]}]},
        },
    }
    applied = {"apiVersion": "apps/v1", "kind": "Deployment", "spec": spec}
    fields = {
        "f:metadata": {"f:labels": {"f:app.kubernetes.io/instance": {}}},
        "f:spec": {
            "f:replicas": {},
            "f:selector": {},
            "f:template": {
                "f:spec": {
                    "f:containers": {
                        'k:{"name":"web"}': {"f:image": {}, "f:name": {}, "f:ports": {}}
                    }
                }
            },
        },
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": name,
            "namespace": "shop",
            "uid": f"0b6c3d2e-4f5a-4b7c-8d9e-{int(name.rpartition('-')[2] or 0):012d}",
            "resourceVersion": rv,
            "generation": 1,
            "labels": {"app.kubernetes.io/instance": "web"},
            "annotations": {
                "kubectl.kubernetes.io/last-applied-configuration": jsonio.dumps(applied).decode()
            },
            "managedFields": [
                {"manager": "kubectl", "operation": "Update", "fieldsV1": fields},
                {
                    "manager": "kube-controller-manager",
                    "operation": "Update",
                    "subresource": "status",
                    "fieldsV1": {"f:status": {"f:replicas": {}}},
                },
            ],
        },
        "spec": spec,
        "status": {
            "observedGeneration": 1,
            "replicas": 2,
            "updatedReplicas": updated,
            "readyReplicas": updated,
            "availableReplicas": updated,
        },
    }


def test_tracked_objects_read_back_as_the_cluster_sent_them() -> None:
    objects = index()
    sent = deployment("api-1", "1", updated=2)
    sent["metadata"]["annotations"] |= {"big": 2**70, "ratio": 0.1, "note": "é\u2028"}
    objects.upsert(sent)
    [live] = objects.tracked("web")
    assert live == sent
    live["spec"]["replicas"] = 9
    assert objects.tracked("web") == [sent], "a reader's copy is its own"


def test_health_is_assessed_per_resource_version() -> None:
    objects = index()
    objects.upsert(deployment("api-1", "1", updated=1))
    [rolling] = objects.tracked("web")
    assert objects.health_of(rolling).status is HealthStatusCode.PROGRESSING  # type: ignore[union-attr]
    objects.upsert(deployment("api-1", "2", updated=2))
    [rolled] = objects.tracked("web")
    assert objects.health_of(rolled).status is HealthStatusCode.HEALTHY  # type: ignore[union-attr]
    stale = objects.health_of(rolling)
    assert stale is not None and stale.status is HealthStatusCode.PROGRESSING


def test_the_index_holds_less_than_twice_the_objects_json() -> None:
    sent = [jsonio.dumps(deployment(f"api-{i}", "1", updated=2)) for i in range(500)]
    size = sum(len(document) for document in sent)
    tracemalloc.start()
    objects = index()
    for document in sent:
        objects.upsert(jsonio.loads(document))
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(objects) == 500
    assert held < 2 * size, f"the index holds {held} bytes for {size} bytes of JSON"
