"""`GET /localcluster/requests`: resource requests counted by verb (benchmarks count LISTs)."""

import json
from typing import Any

import pytest

from tests.integration.localcluster.conftest import CONFIGMAPS, Http, configmap

MERGE = "application/merge-patch+json"
CASES: list[tuple[str, str, str, Any, str]] = [
    # rule, method, path, body, verb counted
    ("create", "POST", CONFIGMAPS, configmap("b"), "create"),
    ("get by name", "GET", f"{CONFIGMAPS}/a", None, "get"),
    ("list", "GET", CONFIGMAPS, None, "list"),
    ("list across namespaces", "GET", "/api/v1/configmaps", None, "list"),
    (
        "list by name is a list",
        "GET",
        f"{CONFIGMAPS}?fieldSelector=metadata.name%3Da",
        None,
        "list",
    ),
    ("watch", "GET", f"{CONFIGMAPS}?watch=true&timeoutSeconds=1", None, "watch"),
    ("update", "PUT", f"{CONFIGMAPS}/a", configmap("a", {"k": "v"}), "update"),
    ("patch", "PATCH", f"{CONFIGMAPS}/a", {"data": {"k": "w"}}, "patch"),
    ("delete", "DELETE", f"{CONFIGMAPS}/a", None, "delete"),
    ("delete collection", "DELETE", f"{CONFIGMAPS}?labelSelector=x%3D1", None, "deletecollection"),
]


@pytest.mark.parametrize(
    ("method", "path", "body", "verb"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
async def test_each_request_is_counted_under_its_verb(
    http: Http, method: str, path: str, body: Any, verb: str
) -> None:
    await http.ok("POST", CONFIGMAPS, configmap("a"))
    before = await http.ok("GET", "/localcluster/requests")
    content_type = MERGE if method == "PATCH" else "application/json"
    await http.ok(method, path, body, content_type=content_type)
    after = await http.ok("GET", "/localcluster/requests")
    changed = {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)}
    assert changed == {verb: 1}, json.dumps(changed)


async def test_discovery_and_admin_requests_are_not_counted(http: Http) -> None:
    before = await http.ok("GET", "/localcluster/requests")
    for path in ("/api", "/apis", "/api/v1", "/version", "/openapi/v3", "/localcluster/faults"):
        await http.ok("GET", path)
    assert await http.ok("GET", "/localcluster/requests") == before
