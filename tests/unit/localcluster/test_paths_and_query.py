"""Resource URLs and query parameters, parsed as the real API server parses them."""

import pytest
from multidict import MultiDict

from app.localcluster.errors import ApiError
from app.localcluster.web import query
from app.localcluster.web.paths import Target, parse


@pytest.mark.parametrize(
    ("path", "target"),
    [
        pytest.param("/api/v1/namespaces", Target("", "v1", "namespaces", None), id="namespaces"),
        pytest.param(
            "/api/v1/namespaces/ns1",
            Target("", "v1", "namespaces", None, "ns1"),
            id="one-namespace",
        ),
        pytest.param(
            "/api/v1/namespaces/ns1/status",
            Target("", "v1", "namespaces", None, "ns1", "status"),
            id="namespace-status",
        ),
        pytest.param(
            "/api/v1/namespaces/ns1/finalize",
            Target("", "v1", "namespaces", None, "ns1", "finalize"),
            id="namespace-finalize",
        ),
        pytest.param(
            "/api/v1/namespaces/ns1/pods", Target("", "v1", "pods", "ns1"), id="namespaced-list"
        ),
        pytest.param(
            "/apis/apps/v1/namespaces/ns1/deployments/web/status",
            Target("apps", "v1", "deployments", "ns1", "web", "status"),
            id="group-subresource",
        ),
        pytest.param(
            "/apis/apps/v1/deployments",
            Target("apps", "v1", "deployments", None),
            id="all-namespaces",
        ),
        pytest.param(
            "/api/v1/watch/namespaces/ns1/pods",
            Target("", "v1", "pods", "ns1", watch=True),
            id="legacy-watch",
        ),
        pytest.param("/api/v1", None, id="discovery-is-not-a-resource"),
        pytest.param("/apis/apps/v1/namespaces/a/b/c/d/e", None, id="too-deep"),
        pytest.param("/healthz", None, id="not-api"),
    ],
)
def test_resource_paths(path: str, target: Target | None) -> None:
    assert parse(path) == target


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        *[pytest.param(v, True, id=f"true-{v}") for v in ("1", "t", "T", "true", "True", "TRUE")],
        *[
            pytest.param(v, False, id=f"false-{v}")
            for v in ("0", "f", "F", "false", "False", "FALSE")
        ],
    ],
)
def test_booleans_follow_go_parse_bool(value: str, expected: bool) -> None:
    assert query.parse_bool(MultiDict({"watch": value}), "watch") is expected


@pytest.mark.parametrize("value", ["yes", "on", "tRuE", "2"])
def test_other_booleans_are_refused_naming_the_parameter(value: str) -> None:
    with pytest.raises(ApiError) as e:
        query.parse_bool(MultiDict({"watch": value}), "watch")
    assert e.value.code == 400 and "watch" in e.value.message


def test_dry_run_accepts_only_all() -> None:
    assert query.parse_dry_run(["All"]) is True
    assert query.parse_dry_run([]) is False
    with pytest.raises(ApiError):
        query.parse_dry_run(["Yes"])


@pytest.mark.parametrize(
    ("query_policy", "body", "expected"),
    [
        pytest.param(None, {"propagationPolicy": "Foreground"}, "Foreground", id="body"),
        pytest.param("Orphan", None, "Orphan", id="query"),
        pytest.param(None, {"orphanDependents": True}, "Orphan", id="legacy-orphan-dependents"),
        pytest.param(None, None, "", id="default"),
    ],
)
def test_propagation_policy_from_body_or_query(
    query_policy: str | None, body: dict[str, object] | None, expected: str
) -> None:
    params = MultiDict({"propagationPolicy": query_policy} if query_policy else {})
    assert query.delete_options(params, [], body).propagation == expected


def test_unknown_propagation_policy_is_refused() -> None:
    with pytest.raises(ApiError) as e:
        query.delete_options(MultiDict(), [], {"propagationPolicy": "Cascade"})
    assert e.value.code == 400 and "Orphan, Background, Foreground" in e.value.message


def test_default_field_manager_is_the_user_agent_product() -> None:
    opts = query.write_options(MultiDict(), [], "kubectl/v1.32.4 (linux/amd64)", "")
    assert opts.field_manager == "kubectl"
