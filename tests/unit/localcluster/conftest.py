"""An object API with the built-in types and a `default` namespace, no HTTP, no loop."""

from typing import Any

import pytest

from app.localcluster.api import writes
from app.localcluster.api.options import WriteOptions
from app.localcluster.api.server import ApiServer
from app.localcluster.builtin import BUILTIN_TYPES
from app.localcluster.eventlog import Change, EventLog
from app.localcluster.resources import GroupResource, Registry, ResourceType
from app.localcluster.store import Store


class Api:
    """The object API plus the changes it published, for assertions."""

    def __init__(self, history: int = 1000) -> None:
        self.registry = Registry()
        for rt in BUILTIN_TYPES:
            self.registry.add(rt)
        self.events = EventLog(history)
        self.store = Store(self.events)
        self.server = ApiServer(self.registry, self.store)
        self.changes: list[Change] = []
        self.events.listen(None, self.changes.append)

    def type(self, resource: str) -> ResourceType:
        plural, _, group = resource.partition(".")
        rt = self.registry.preferred(GroupResource(group, plural))
        assert rt is not None, resource
        return rt

    def create(
        self, resource: str, body: dict[str, Any], namespace: str = "default", **opts: Any
    ) -> dict[str, Any]:
        options = WriteOptions(field_manager=opts.pop("manager", "test"), **opts)
        return writes.create(
            self.server, self.type(resource), body, namespace=namespace, opts=options
        )

    def update(
        self, resource: str, body: dict[str, Any], namespace: str = "default", **opts: Any
    ) -> dict[str, Any]:
        options = WriteOptions(field_manager=opts.pop("manager", "test"), **opts)
        name = body["metadata"]["name"]
        return writes.update(
            self.server, self.type(resource), body, namespace=namespace, name=name, opts=options
        )


@pytest.fixture
def api() -> Api:
    a = Api()
    a.create("namespaces", {"metadata": {"name": "default"}}, namespace="")
    a.changes.clear()
    return a


def deployment(
    name: str = "web", replicas: int = 1, image: str = "nginx:1", **meta: Any
) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, **meta},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "main", "image": image}]},
            },
        },
    }


def configmap(name: str, data: dict[str, str] | None = None, **meta: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, **meta},
        "data": data or {},
    }


def with_field(obj: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """`obj` with `value` set at the dotted `path` (missing parents created), in place."""
    node = obj
    *parents, last = path.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value
    return obj
