"""Deployment, StatefulSet, DaemonSet and ReplicaSet health: one case per rule (SEMANTICS §5)."""

from typing import Any

import pytest

from app.engine.health import daemonset, deployment, replicaset, statefulset
from app.model.health import HealthStatus, HealthStatusCode
from tests.unit.engine.health.objects import condition, live

H, S, P, D = (
    HealthStatusCode.HEALTHY,
    HealthStatusCode.SUSPENDED,
    HealthStatusCode.PROGRESSING,
    HealthStatusCode.DEGRADED,
)


def deploy(*, generation: int = 2, spec: Any = None, **status: Any) -> dict[str, Any]:
    full_status = {
        "observedGeneration": 2,
        "replicas": 3,
        "updatedReplicas": 3,
        "availableReplicas": 3,
    } | status
    return live(
        "apps/v1",
        "Deployment",
        generation=generation,
        spec={"replicas": 3} if spec is None else spec,
        status=full_status,
    )


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        pytest.param(
            deploy(spec={"replicas": 3, "paused": True}, observedGeneration=1),
            HealthStatus(S, "Deployment is paused"),
            id="paused-is-suspended-before-anything-else",
        ),
        pytest.param(
            deploy(generation=3),
            HealthStatus(
                P,
                "Waiting for rollout to finish: "
                "observed deployment generation less than desired generation",
            ),
            id="generation-ahead-of-observed-is-progressing",
        ),
        pytest.param(
            deploy(
                conditions=[
                    condition("Available", "True"),
                    condition("Progressing", "False", "ProgressDeadlineExceeded", "timed out"),
                ],
                updatedReplicas=1,
            ),
            HealthStatus(D, 'Deployment "web" exceeded its progress deadline'),
            id="progress-deadline-exceeded-is-degraded",
        ),
        pytest.param(
            deploy(updatedReplicas=1, availableReplicas=1),
            HealthStatus(
                P, "Waiting for rollout to finish: 1 out of 3 new replicas have been updated..."
            ),
            id="updated-below-desired-is-progressing",
        ),
        pytest.param(
            deploy(replicas=4),
            HealthStatus(
                P, "Waiting for rollout to finish: 1 old replicas are pending termination..."
            ),
            id="old-replicas-pending-termination-is-progressing",
        ),
        pytest.param(
            deploy(availableReplicas=2),
            HealthStatus(
                P, "Waiting for rollout to finish: 2 of 3 updated replicas are available..."
            ),
            id="available-below-updated-is-progressing",
        ),
        pytest.param(
            deploy(conditions=[condition("Progressing", "True", "NewReplicaSetAvailable", "done")]),
            HealthStatus(H),
            id="rolled-out-is-healthy",
        ),
        pytest.param(
            deploy(spec={}, updatedReplicas=0, replicas=0, availableReplicas=0),
            HealthStatus(H),
            id="no-spec-replicas-skips-the-desired-count-check",
        ),
    ],
)
def test_deployment(obj: dict[str, Any], expected: HealthStatus) -> None:
    assert deployment.health(obj) == expected


def sts(*, generation: int = 2, spec: Any = None, **status: Any) -> dict[str, Any]:
    full_status = {
        "observedGeneration": 2,
        "readyReplicas": 3,
        "updatedReplicas": 3,
        "currentReplicas": 3,
        "currentRevision": "web-7c9",
        "updateRevision": "web-7c9",
    } | status
    return live(
        "apps/v1",
        "StatefulSet",
        generation=generation,
        spec={"replicas": 3} if spec is None else spec,
        status=full_status,
    )


_ROLLING = {"type": "RollingUpdate"}


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        pytest.param(
            sts(observedGeneration=0, generation=0),
            HealthStatus(P, "Waiting for statefulset spec update to be observed..."),
            id="never-observed-is-progressing",
        ),
        pytest.param(
            sts(generation=3),
            HealthStatus(P, "Waiting for statefulset spec update to be observed..."),
            id="stale-generation-is-progressing",
        ),
        pytest.param(
            sts(readyReplicas=1),
            HealthStatus(P, "Waiting for 2 pods to be ready..."),
            id="ready-below-replicas-is-progressing",
        ),
        pytest.param(
            sts(
                spec={
                    "replicas": 3,
                    "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 1}},
                },
                updatedReplicas=1,
            ),
            HealthStatus(
                P,
                "Waiting for partitioned roll out to finish: "
                "1 out of 2 new pods have been updated...",
            ),
            id="partition-not-rolled-out-is-progressing",
        ),
        pytest.param(
            sts(
                spec={
                    "replicas": 3,
                    "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 1}},
                },
                updatedReplicas=2,
                updateRevision="web-8d1",
            ),
            HealthStatus(H, "partitioned roll out complete: 2 new pods have been updated..."),
            id="partition-rolled-out-is-healthy-even-with-revisions-differing",
        ),
        pytest.param(
            sts(
                spec={
                    "replicas": 3,
                    "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {}},
                },
                updateRevision="web-8d1",
            ),
            HealthStatus(H, "partitioned roll out complete: 3 new pods have been updated..."),
            id="defaulted-rolling-update-block-decides-without-comparing-revisions",
        ),
        pytest.param(
            sts(spec={"replicas": 3, "updateStrategy": {"type": "OnDelete"}}, updateRevision="x"),
            HealthStatus(H, "statefulset has 3 ready pods"),
            id="on-delete-is-healthy-once-ready",
        ),
        pytest.param(
            sts(spec={"replicas": 3, "updateStrategy": _ROLLING}, updateRevision="web-8d1"),
            HealthStatus(
                P,
                "waiting for statefulset rolling update to complete 3 pods at revision web-8d1...",
            ),
            id="update-revision-differs-is-progressing",
        ),
        pytest.param(
            sts(spec={"replicas": 3, "updateStrategy": _ROLLING}),
            HealthStatus(H, "statefulset rolling update complete 3 pods at revision web-7c9..."),
            id="same-revision-is-healthy",
        ),
    ],
)
def test_statefulset(obj: dict[str, Any], expected: HealthStatus) -> None:
    assert statefulset.health(obj) == expected


def ds(*, generation: int = 2, strategy: str = "RollingUpdate", **status: Any) -> dict[str, Any]:
    full_status = {
        "observedGeneration": 2,
        "desiredNumberScheduled": 3,
        "updatedNumberScheduled": 3,
        "numberAvailable": 3,
    } | status
    return live(
        "apps/v1",
        "DaemonSet",
        name="agent",
        generation=generation,
        spec={"updateStrategy": {"type": strategy}},
        status=full_status,
    )


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        pytest.param(
            ds(generation=3),
            HealthStatus(
                P,
                "Waiting for rollout to finish: "
                "observed daemon set generation less than desired generation",
            ),
            id="stale-generation-is-progressing",
        ),
        pytest.param(
            ds(strategy="OnDelete", updatedNumberScheduled=1),
            HealthStatus(H, "daemon set 1 out of 3 new pods have been updated"),
            id="on-delete-is-healthy",
        ),
        pytest.param(
            ds(updatedNumberScheduled=1),
            HealthStatus(
                P,
                'Waiting for daemon set "agent" rollout to finish: '
                "1 out of 3 new pods have been updated...",
            ),
            id="updated-below-desired-is-progressing",
        ),
        pytest.param(
            ds(numberAvailable=2),
            HealthStatus(
                P,
                'Waiting for daemon set "agent" rollout to finish: '
                "2 of 3 updated pods are available...",
            ),
            id="available-below-desired-is-progressing",
        ),
        pytest.param(ds(), HealthStatus(H), id="rolled-out-is-healthy"),
    ],
)
def test_daemonset(obj: dict[str, Any], expected: HealthStatus) -> None:
    assert daemonset.health(obj) == expected


def rs(*, generation: int = 2, **status: Any) -> dict[str, Any]:
    full_status = {"observedGeneration": 2, "availableReplicas": 3} | status
    return live(
        "apps/v1", "ReplicaSet", generation=generation, spec={"replicas": 3}, status=full_status
    )


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        pytest.param(
            rs(
                conditions=[
                    condition("ReplicaFailure", "True", "FailedCreate", 'pods "web-x" forbidden')
                ],
                availableReplicas=0,
            ),
            HealthStatus(D, 'pods "web-x" forbidden'),
            id="replica-failure-true-is-degraded",
        ),
        pytest.param(
            rs(conditions=[condition("ReplicaFailure", "False")]),
            HealthStatus(H),
            id="replica-failure-false-is-not-degraded",
        ),
        pytest.param(
            rs(availableReplicas=1),
            HealthStatus(
                P, "Waiting for rollout to finish: 1 out of 3 new replicas are available..."
            ),
            id="available-below-replicas-is-progressing",
        ),
        pytest.param(
            rs(generation=3),
            HealthStatus(
                P,
                "Waiting for rollout to finish: "
                "observed replica set generation less than desired generation",
            ),
            id="stale-generation-is-progressing",
        ),
        pytest.param(rs(), HealthStatus(H), id="all-available-is-healthy"),
    ],
)
def test_replicaset(obj: dict[str, Any], expected: HealthStatus) -> None:
    assert replicaset.health(obj) == expected
