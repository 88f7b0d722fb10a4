"""The wire protocol: discovery, OpenAPI, Status errors, media types, query parsing, faults."""

import asyncio
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import aiohttp
import pytest

from app.localcluster import LocalCluster
from tests.integration.localcluster.conftest import (
    CONFIGMAPS,
    DEPLOYMENTS,
    Http,
    configmap,
    deployment,
)

Factory = Callable[..., AbstractAsyncContextManager[LocalCluster]]
AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"


async def test_version(http: Http) -> None:
    body = await http.ok("GET", "/version")
    assert (body["major"], body["minor"]) == ("1", "32") and body["gitVersion"].startswith("v1.32")


async def test_aggregated_discovery(http: Http) -> None:
    core = await http.get("/api", headers={"Accept": AGGREGATED})
    assert (
        core.content_type == "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    )
    assert [item["metadata"]["name"] for item in core.body["items"]] == [""]
    groups = (await http.get("/apis", headers={"Accept": AGGREGATED})).body
    apps = next(g for g in groups["items"] if g["metadata"]["name"] == "apps")
    deployments = next(
        r for r in apps["versions"][0]["resources"] if r["resource"] == "deployments"
    )
    assert deployments["responseKind"] == {"group": "apps", "version": "v1", "kind": "Deployment"}
    assert deployments["scope"] == "Namespaced" and deployments["shortNames"] == ["deploy"]
    assert deployments["subresources"] == [
        {
            "subresource": "status",
            "responseKind": {"group": "apps", "version": "v1", "kind": "Deployment"},
            "verbs": ["get", "patch", "update"],
        },
        {
            "subresource": "scale",
            "responseKind": {"group": "autoscaling", "version": "v1", "kind": "Scale"},
            "verbs": ["get", "patch", "update"],
        },
    ]
    assert apps["versions"][0]["freshness"] == "Current"


async def test_plain_discovery(http: Http) -> None:
    versions = await http.ok("GET", "/api")
    assert versions["kind"] == "APIVersions" and versions["versions"] == ["v1"]
    groups = (await http.ok("GET", "/apis"))["groups"]
    for group in groups:
        assert group["preferredVersion"] in group["versions"]
    resources = (await http.ok("GET", "/apis/apps/v1"))["resources"]
    names = [r["name"] for r in resources]
    assert "deployments" in names and "deployments/status" in names
    assert (await http.ok("GET", "/apis/apps"))["preferredVersion"] == {
        "groupVersion": "apps/v1",
        "version": "v1",
    }


async def test_openapi_v3_tells_kubectl_the_server_validates_fields(http: Http) -> None:
    root = (await http.ok("GET", "/openapi/v3"))["paths"]
    url = root["apis/apps/v1"]["serverRelativeURL"]
    assert url.startswith("/openapi/v3/apis/apps/v1?hash=")
    doc = await http.ok("GET", url)
    patch = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"]
    assert patch["x-kubernetes-group-version-kind"] == {
        "group": "apps",
        "version": "v1",
        "kind": "Deployment",
    }
    assert "fieldValidation" in [p["name"] for p in patch["parameters"]]
    assert "application/apply-patch+yaml" in patch["requestBody"]["content"]
    assert (await http.get("/openapi/v2")).status == 404


async def test_openapi_hash_changes_when_a_crd_schema_changes(http: Http) -> None:
    before = (await http.ok("GET", "/openapi/v3"))["paths"]["apis/argoproj.io/v1alpha1"][
        "serverRelativeURL"
    ]
    crd = await http.ok(
        "GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/applications.argoproj.io"
    )
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["description"] = "changed"
    await http.ok(
        "PUT",
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/applications.argoproj.io",
        crd,
    )
    after = (await http.ok("GET", "/openapi/v3"))["paths"]["apis/argoproj.io/v1alpha1"][
        "serverRelativeURL"
    ]
    assert before != after


async def test_table_for_kubectl_get(http: Http) -> None:
    await http.ok("POST", CONFIGMAPS, configmap("a", {"k": "v"}))
    table = await http.ok(
        "GET",
        CONFIGMAPS,
        headers={"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"},
    )
    assert table["kind"] == "Table"
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Data", "Age"]
    assert table["rows"][0]["cells"][:2] == ["a", 1]


async def test_list_paging_with_limit_and_continue(http: Http) -> None:
    for i in range(5):
        await http.ok("POST", CONFIGMAPS, configmap(f"c{i}"))
    first = await http.ok("GET", f"{CONFIGMAPS}?limit=2")
    assert [i["metadata"]["name"] for i in first["items"]] == ["c0", "c1"]
    assert first["metadata"]["remainingItemCount"] == 3
    second = await http.ok("GET", f"{CONFIGMAPS}?limit=10&continue={first['metadata']['continue']}")
    assert [i["metadata"]["name"] for i in second["items"]] == ["c2", "c3", "c4"]
    assert "continue" not in second["metadata"]
    assert second["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]


async def test_list_across_namespaces(http: Http) -> None:
    await http.ok("POST", "/api/v1/namespaces", {"metadata": {"name": "other"}})
    await http.ok("POST", CONFIGMAPS, configmap("here"))
    await http.ok("POST", "/api/v1/namespaces/other/configmaps", configmap("there"))
    items = (await http.ok("GET", "/api/v1/configmaps"))["items"]
    assert [(i["metadata"]["namespace"], i["metadata"]["name"]) for i in items] == [
        ("default", "here"),
        ("other", "there"),
    ]


@pytest.mark.parametrize(
    ("call", "body", "content_type", "expected"),
    [
        pytest.param(
            ("GET", f"{CONFIGMAPS}/nope"),
            None,
            "application/json",
            (404, "NotFound"),
            id="not-found",
        ),
        pytest.param(
            ("GET", "/apis/nope.io/v1/things"),
            None,
            "application/json",
            (404, "NotFound"),
            id="unknown-resource",
        ),
        pytest.param(
            ("GET", f"{CONFIGMAPS}?watch=yes"),
            None,
            "application/json",
            (400, "BadRequest"),
            id="bad-boolean",
        ),
        pytest.param(
            ("GET", f"{CONFIGMAPS}?labelSelector=a%20in%20b"),
            None,
            "application/json",
            (400, "BadRequest"),
            id="bad-selector",
        ),
        pytest.param(
            ("GET", f"{CONFIGMAPS}?fieldSelector=data.k%3Dv"),
            None,
            "application/json",
            (400, "BadRequest"),
            id="unsupported-field",
        ),
        pytest.param(
            ("POST", CONFIGMAPS),
            b"\x0a\x03k8s",
            "application/vnd.kubernetes.protobuf",
            (400, "BadRequest"),
            id="malformed-protobuf",
        ),
        pytest.param(
            ("PATCH", CONFIGMAPS + "/x"),
            b"k8s\x00",
            "application/vnd.kubernetes.protobuf",
            (415, "UnsupportedMediaType"),
            id="protobuf-patch",
        ),
        pytest.param(
            ("POST", CONFIGMAPS),
            b"{not json",
            "application/json",
            (400, "BadRequest"),
            id="malformed-json",
        ),
        pytest.param(
            ("POST", CONFIGMAPS),
            b"a: &x 1\nb: *x\n",
            "application/yaml",
            (400, "BadRequest"),
            id="yaml-aliases",
        ),
        pytest.param(
            ("POST", f"{CONFIGMAPS}?dryRun=Maybe"),
            b"{}",
            "application/json",
            (400, "BadRequest"),
            id="bad-dry-run",
        ),
        pytest.param(
            ("PATCH", f"{CONFIGMAPS}/x"),
            b"{}",
            "application/apply-patch+yaml",
            (400, "BadRequest"),
            id="apply-without-field-manager",
        ),
        pytest.param(
            ("PATCH", f"{CONFIGMAPS}/x"),
            b"{}",
            "text/plain",
            (415, "UnsupportedMediaType"),
            id="unknown-patch-type",
        ),
    ],
)
async def test_errors_are_status_objects(
    http: Http,
    call: tuple[str, str],
    body: bytes | None,
    content_type: str,
    expected: tuple[int, str],
) -> None:
    method, path = call
    reply = await http.call(method, path, raw=body, content_type=content_type)
    assert (reply.status, reply.body["reason"]) == expected
    assert reply.body["kind"] == "Status" and reply.body["status"] == "Failure"
    assert reply.body["code"] == expected[0] and reply.body["message"]


async def test_oversized_bodies_are_refused(local_cluster_factory: Factory) -> None:
    async with (
        local_cluster_factory(max_body_bytes=1024) as cluster,
        aiohttp.ClientSession() as session,
    ):
        http = Http(session, cluster.url)
        reply = await http.post(CONFIGMAPS, configmap("big", {"k": "x" * 2048}))
        assert (reply.status, reply.body["reason"]) == (413, "RequestEntityTooLarge")
        assert (await http.get(f"{CONFIGMAPS}/big")).status == 404


async def test_dry_run_over_http_stores_nothing(http: Http) -> None:
    created = await http.ok("POST", f"{DEPLOYMENTS}?dryRun=All", deployment())
    assert created["metadata"]["uid"]
    assert (await http.get(f"{DEPLOYMENTS}/web")).status == 404
    await http.ok("POST", CONFIGMAPS, configmap("c"))
    await http.ok("DELETE", f"{CONFIGMAPS}/c", {"dryRun": ["All"]})
    assert (await http.get(f"{CONFIGMAPS}/c")).status == 200


async def test_delete_collection_with_a_selector(http: Http) -> None:
    await http.ok("POST", CONFIGMAPS, configmap("a", labels={"x": "1"}))
    await http.ok("POST", CONFIGMAPS, configmap("b", labels={"x": "2"}))
    await http.ok("DELETE", f"{CONFIGMAPS}?labelSelector=x%3D1")
    items = (await http.ok("GET", CONFIGMAPS))["items"]
    assert [i["metadata"]["name"] for i in items] == ["b"]


async def test_fault_injection_answers_the_configured_fraction(
    local_cluster_factory: Factory,
) -> None:
    async with local_cluster_factory(fault_seed=3) as cluster, aiohttp.ClientSession() as session:
        http = Http(session, cluster.url)
        rates = await http.ok(
            "PUT", "/localcluster/faults", {"error_rate": 0.3, "throttle_rate": 0.2}
        )
        assert (rates["error_rate"], rates["throttle_rate"]) == (0.3, 0.2)
        replies = [await http.get(CONFIGMAPS) for _ in range(400)]
        codes = [r.status for r in replies]
        assert 0.2 < codes.count(500) / 400 < 0.4
        assert 0.1 < codes.count(429) / 400 < 0.3
        throttled = next(r for r in replies if r.status == 429)
        assert throttled.body["reason"] == "TooManyRequests"
        refused = await http.put("/localcluster/faults", {"error_rate": 2})
        assert refused.status == 400 and "between 0 and 1" in refused.body["message"]
        unknown = await http.put("/localcluster/faults", {"chaos": 1})
        assert unknown.status == 400 and "known:" in unknown.body["message"]
        cluster.faults.clear()
        assert {(await http.get(CONFIGMAPS)).status for _ in range(20)} == {200}


async def test_timeout_faults_hold_the_request_then_answer_504(
    local_cluster_factory: Factory,
) -> None:
    async with local_cluster_factory() as cluster, aiohttp.ClientSession() as session:
        cluster.faults.configure(timeout_rate=1.0, timeout_seconds=0.2)
        loop = asyncio.get_running_loop()
        started = loop.time()
        reply = await Http(session, cluster.url).get(CONFIGMAPS)
        assert (reply.status, reply.body["reason"]) == (504, "Timeout")
        assert loop.time() - started >= 0.2


async def test_slow_faults_hold_the_request_then_serve_it(
    local_cluster_factory: Factory,
) -> None:
    async with local_cluster_factory() as cluster, aiohttp.ClientSession() as session:
        cluster.faults.configure(slow_rate=1.0, slow_seconds=0.2)
        loop = asyncio.get_running_loop()
        started = loop.time()
        reply = await Http(session, cluster.url).get(CONFIGMAPS)
        assert reply.status == 200 and reply.body["kind"] == "ConfigMapList"
        assert loop.time() - started >= 0.2


async def test_watch_of_a_single_name_via_legacy_path(
    local_cluster: LocalCluster, http: Http
) -> None:
    created: Any = await http.ok("POST", CONFIGMAPS, configmap("c"))
    rv = int(created["metadata"]["resourceVersion"]) - 1
    reply = await http.get(
        f"/api/v1/watch/namespaces/default/configmaps/c?resourceVersion={rv}&timeoutSeconds=1"
    )
    assert reply.status == 200
    assert isinstance(reply.body, dict) and reply.body["type"] == "ADDED"
