"""App health: the fold over resources, what is skipped, and the message (SEMANTICS §5)."""

import itertools

import pytest

from app.engine.health import AppHealth, ResourceHealthInput, aggregate, ignores_healthcheck
from app.model.annotations import IGNORE_HEALTHCHECK
from app.model.health import HealthStatus, HealthStatusCode
from app.model.resource import ResourceKey
from tests.unit.engine.health.objects import live

H, S, P, M, D, U = (
    HealthStatusCode.HEALTHY,
    HealthStatusCode.SUSPENDED,
    HealthStatusCode.PROGRESSING,
    HealthStatusCode.MISSING,
    HealthStatusCode.DEGRADED,
    HealthStatusCode.UNKNOWN,
)
ORDER = [H, S, P, M, D, U]


def key(name: str, kind: str = "Deployment", group: str = "apps") -> ResourceKey:
    return ResourceKey(group, kind, "shop", name)


def res(name: str, code: HealthStatusCode | None, **flags: bool) -> ResourceHealthInput:
    health = None if code is None else HealthStatus(code, f"{name} is {code.value}")
    return ResourceHealthInput(key(name), health, **flags)


def child(name: str, code: HealthStatusCode) -> ResourceHealthInput:
    return ResourceHealthInput(
        key(name, "Application", "argoproj.io"), HealthStatus(code), live_exists=True
    )


@pytest.mark.parametrize(
    ("better", "worse"),
    list(itertools.combinations(ORDER, 2)),
    ids=lambda c: c.value,
)
def test_the_worst_status_wins_in_argo_cds_order(
    better: HealthStatusCode, worse: HealthStatusCode
) -> None:
    for resources in ([res("a", better), res("b", worse)], [res("a", worse), res("b", better)]):
        assert aggregate(resources).status is worse


@pytest.mark.parametrize(
    ("resources", "expected"),
    [
        pytest.param([], AppHealth(H), id="no-resources-is-healthy"),
        pytest.param([res("a", H), res("b", H)], AppHealth(H), id="all-healthy-has-no-message"),
        pytest.param(
            [res("a", H), res("b", D, skip=True)], AppHealth(H), id="skip-targets-do-not-count"
        ),
        pytest.param(
            [res("a", H), res("b", D, hook=True)], AppHealth(H), id="live-hooks-do-not-count"
        ),
        pytest.param(
            [res("a", H), res("b", D, ignored=True)], AppHealth(H), id="ignored-do-not-count"
        ),
        pytest.param(
            [res("a", H), res("b", D, ignore_healthcheck=True)],
            AppHealth(H),
            id="ignore-healthcheck-annotation-does-not-count",
        ),
        pytest.param(
            [res("a", H), res("config", None)],
            AppHealth(H),
            id="resources-without-health-do-not-count",
        ),
        pytest.param(
            [res("a", H), res("gone", None, live_exists=False)],
            AppHealth(H),
            id="missing-resources-do-not-make-the-app-missing",
        ),
        pytest.param(
            [res("a", P), res("gone", None, live_exists=False)],
            AppHealth(P, "Caused by apps/Deployment:shop/a", (key("a"),)),
            id="missing-resources-do-not-count-at-all",
        ),
        pytest.param(
            [res("a", H), res("self", D, self_reference=True)],
            AppHealth(H),
            id="the-app-managing-itself-does-not-count",
        ),
        pytest.param(
            [res("a", H), child("payments", M), child("billing", U)],
            AppHealth(H),
            id="child-apps-missing-or-unknown-do-not-count",
        ),
        pytest.param(
            [res("a", H), child("payments", D)],
            AppHealth(
                D,
                "Caused by argoproj.io/Application:shop/payments",
                (key("payments", "Application", "argoproj.io"),),
            ),
            id="child-apps-degraded-do-count",
        ),
        pytest.param(
            [res("a", None, live_exists=False), res("b", None, live_exists=False)],
            AppHealth(
                M,
                "Caused by apps/Deployment:shop/a, apps/Deployment:shop/b",
                (key("a"), key("b")),
            ),
            id="resources-exist-but-none-is-live-is-missing",
        ),
        pytest.param(
            [res("a", None, live_exists=False), res("hook", H, hook=True)],
            AppHealth(M, "Caused by apps/Deployment:shop/a", (key("a"),)),
            id="live-hooks-do-not-make-the-app-live",
        ),
        pytest.param(
            [res("a", None, live_exists=False), res("cm", None)],
            AppHealth(H),
            id="a-live-resource-without-health-makes-the-app-live",
        ),
        pytest.param(
            [res("hook", None, hook=True, live_exists=False)],
            AppHealth(H),
            id="hooks-only-is-healthy",
        ),
    ],
)
def test_aggregation_rules(resources: list[ResourceHealthInput], expected: AppHealth) -> None:
    assert aggregate(resources) == expected


def test_message_names_up_to_three_causes_in_key_order_and_counts_the_rest() -> None:
    resources = [res(name, D) for name in ("e", "c", "a", "d", "b")] + [res("ok", P)]
    result = aggregate(resources)
    assert result == AppHealth(
        D,
        "Caused by apps/Deployment:shop/a, apps/Deployment:shop/b, "
        "apps/Deployment:shop/c and 2 more",
        tuple(key(n) for n in "abcde"),
    )


def test_message_with_exactly_three_causes_has_no_tail() -> None:
    result = aggregate([res(name, U) for name in ("c", "b", "a")])
    assert result.message == (
        "Caused by apps/Deployment:shop/a, apps/Deployment:shop/b, apps/Deployment:shop/c"
    )


def test_core_and_cluster_scoped_keys_keep_argo_cds_spelling() -> None:
    resources = [
        ResourceHealthInput(ResourceKey("", "Service", "shop", "web"), HealthStatus(P)),
        ResourceHealthInput(ResourceKey("example.com", "Widget", "", "w"), HealthStatus(P)),
    ]
    assert aggregate(resources).message == "Caused by /Service:shop/web, example.com/Widget:/w"


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        pytest.param({IGNORE_HEALTHCHECK: "true"}, True, id="true"),
        pytest.param({IGNORE_HEALTHCHECK: "True"}, False, id="only-lowercase-true-like-argo-cd"),
        pytest.param({IGNORE_HEALTHCHECK: "false"}, False, id="false"),
        pytest.param(None, False, id="absent"),
    ],
)
def test_ignore_healthcheck_annotation(annotations: dict[str, str] | None, expected: bool) -> None:
    assert ignores_healthcheck(live("apps/v1", "Deployment", annotations=annotations)) is expected
