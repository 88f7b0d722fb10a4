"""Pod, Job and Argo Workflow health: the kinds hooks are made of (SEMANTICS §2, §5)."""

from typing import Any

import pytest

from app.engine.health import argo_workflow, job, pod
from app.model.health import HealthStatus, HealthStatusCode
from tests.unit.engine.health.objects import condition, live

H, S, P, D, U = (
    HealthStatusCode.HEALTHY,
    HealthStatusCode.SUSPENDED,
    HealthStatusCode.PROGRESSING,
    HealthStatusCode.DEGRADED,
    HealthStatusCode.UNKNOWN,
)


def waiting(reason: str, message: str, name: str = "main") -> dict[str, Any]:
    return {"name": name, "state": {"waiting": {"reason": reason, "message": message}}}


def terminated(name: str = "main", **state: Any) -> dict[str, Any]:
    return {"name": name, "state": {"terminated": state}}


def a_pod(
    phase: str,
    restart_policy: str | None = "Always",
    *,
    message: str | None = None,
    **status: Any,
) -> dict[str, Any]:
    spec = {"containers": [{"name": "main", "image": "app:1"}]}
    if restart_policy is not None:
        spec["restartPolicy"] = restart_policy
    full_status: dict[str, Any] = {"phase": phase, **status}
    if message is not None:
        full_status["message"] = message
    return live("v1", "Pod", spec=spec, status=full_status)


READY = [condition("Ready", "True")]
NOT_READY = [condition("Ready", "False", "ContainersNotReady")]


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        pytest.param(
            a_pod("Pending", containerStatuses=[waiting("ImagePullBackOff", "Back-off pulling")]),
            HealthStatus(D, "Back-off pulling"),
            id="always-waiting-backoff-is-degraded",
        ),
        pytest.param(
            a_pod(
                "Running",
                conditions=READY,
                containerStatuses=[
                    waiting("ErrImagePull", "pull failed", "a"),
                    waiting("CreateContainerConfigError", "secret missing", "b"),
                ],
            ),
            HealthStatus(D, "pull failed, secret missing"),
            id="always-waiting-err-prefix-or-error-suffix-is-degraded-with-all-messages",
        ),
        pytest.param(
            a_pod("Running", containerStatuses=[waiting("CrashLoopBackOff", "back-off 5m")]),
            HealthStatus(D, "back-off 5m"),
            id="always-crash-loop-is-degraded",
        ),
        pytest.param(
            a_pod("Pending", containerStatuses=[waiting("ContainerCreating", "")]),
            HealthStatus(P),
            id="always-waiting-without-error-is-not-degraded",
        ),
        pytest.param(
            a_pod("Pending", "Never", containerStatuses=[waiting("ImagePullBackOff", "Back-off")]),
            HealthStatus(P),
            id="never-waiting-backoff-is-not-degraded-hooks-may-recover",
        ),
        pytest.param(
            a_pod("Pending", message="0/3 nodes are available"),
            HealthStatus(P, "0/3 nodes are available"),
            id="pending-is-progressing",
        ),
        pytest.param(a_pod("Succeeded", "Never"), HealthStatus(H), id="succeeded-is-healthy"),
        pytest.param(
            a_pod("Failed", "Never", message="Pod was evicted", containerStatuses=[]),
            HealthStatus(D, "Pod was evicted"),
            id="failed-uses-the-pod-message-first",
        ),
        pytest.param(
            a_pod(
                "Failed",
                "Never",
                containerStatuses=[terminated(exitCode=1, message="migration 42 failed")],
            ),
            HealthStatus(D, "migration 42 failed"),
            id="failed-uses-the-terminated-container-message",
        ),
        pytest.param(
            a_pod(
                "Failed", "Never", containerStatuses=[terminated(exitCode=137, reason="OOMKilled")]
            ),
            HealthStatus(D, "OOMKilled"),
            id="failed-oom-killed",
        ),
        pytest.param(
            a_pod("Failed", "OnFailure", containerStatuses=[terminated(exitCode=2)]),
            HealthStatus(D, 'container "main" failed with exit code 2'),
            id="failed-exit-code",
        ),
        pytest.param(
            a_pod(
                "Failed",
                "Never",
                initContainerStatuses=[terminated("init-db", exitCode=3)],
                containerStatuses=[terminated(exitCode=4)],
            ),
            HealthStatus(D, 'container "init-db" failed with exit code 3'),
            id="failed-init-containers-are-read-first",
        ),
        pytest.param(
            a_pod("Failed", "Never", containerStatuses=[terminated(exitCode=0)]),
            HealthStatus(D),
            id="failed-without-detail-has-no-message",
        ),
        pytest.param(
            a_pod("Running", conditions=READY),
            HealthStatus(H),
            id="running-always-ready-is-healthy",
        ),
        pytest.param(
            a_pod(
                "Running",
                conditions=NOT_READY,
                containerStatuses=[
                    {"name": "main", "state": {"running": {}}, "lastState": {"terminated": {}}}
                ],
            ),
            HealthStatus(D),
            id="running-always-not-ready-after-restart-is-degraded",
        ),
        pytest.param(
            a_pod("Running", conditions=NOT_READY, containerStatuses=[{"name": "main"}]),
            HealthStatus(P),
            id="running-always-not-ready-is-progressing",
        ),
        pytest.param(
            a_pod("Running", "Never", conditions=READY),
            HealthStatus(P),
            id="running-never-is-progressing-until-it-ends",
        ),
        pytest.param(
            a_pod("Running", "OnFailure", conditions=READY),
            HealthStatus(P),
            id="running-on-failure-is-progressing-until-it-ends",
        ),
        pytest.param(
            a_pod("Running", None, conditions=READY),
            HealthStatus(H),
            id="absent-restart-policy-is-the-kubernetes-default-always",
        ),
        pytest.param(
            a_pod("Unknown", message="node lost"),
            HealthStatus(U, "node lost"),
            id="unknown-phase-is-unknown",
        ),
    ],
)
def test_pod(obj: dict[str, Any], expected: HealthStatus) -> None:
    assert pod.health(obj) == expected


def a_job(*conditions: dict[str, str]) -> dict[str, Any]:
    return live("batch/v1", "Job", status={"conditions": list(conditions)} if conditions else {})


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        pytest.param(a_job(), HealthStatus(P), id="no-terminal-condition-is-progressing"),
        pytest.param(
            a_job(condition("Failed", "True", "BackoffLimitExceeded", "Job has reached the limit")),
            HealthStatus(D, "Job has reached the limit"),
            id="failed-is-degraded",
        ),
        pytest.param(
            a_job(condition("Suspended", "True", "JobSuspended", "Job suspended")),
            HealthStatus(S, "Job suspended"),
            id="suspended-true-is-suspended",
        ),
        pytest.param(
            a_job(condition("Suspended", "False", "JobResumed", "Job resumed")),
            HealthStatus(P),
            id="suspended-false-resumed-is-still-progressing",
        ),
        pytest.param(
            a_job(condition("Complete", "True", "", "Reached expected number of succeeded pods")),
            HealthStatus(H, "Reached expected number of succeeded pods"),
            id="complete-is-healthy",
        ),
        pytest.param(
            a_job(condition("Complete", "True"), condition("Failed", "True", "", "boom")),
            HealthStatus(D, "boom"),
            id="failed-wins-over-complete",
        ),
    ],
)
def test_job(obj: dict[str, Any], expected: HealthStatus) -> None:
    assert job.health(obj) == expected


@pytest.mark.parametrize(
    ("phase", "expected"),
    [
        pytest.param("", P, id="no-phase-is-progressing"),
        pytest.param("Pending", P, id="pending-is-progressing"),
        pytest.param("Running", P, id="running-is-progressing"),
        pytest.param("Succeeded", H, id="succeeded-is-healthy"),
        pytest.param("Failed", D, id="failed-is-degraded"),
        pytest.param("Error", D, id="error-is-degraded"),
        pytest.param("Exploded", U, id="unknown-phase-is-unknown"),
    ],
)
def test_argo_workflow(phase: str, expected: HealthStatusCode) -> None:
    status = {"phase": phase, "message": "step 3/4"} if phase else {"message": "step 3/4"}
    obj = live("argoproj.io/v1alpha1", "Workflow", status=status)
    assert argo_workflow.health(obj) == HealthStatus(expected, "step 3/4")


def _ignoring(obj: dict[str, Any], value: str = "true") -> dict[str, Any]:
    obj["metadata"]["annotations"] = {"argocd.argoproj.io/ignore-restart-policy": value}
    return obj


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        pytest.param(
            _ignoring(a_pod("Running", "Never", conditions=READY)),
            HealthStatus(H),
            id="never-pod-ignoring-its-policy-is-healthy-once-ready",
        ),
        pytest.param(
            _ignoring(a_pod("Running", "OnFailure", conditions=NOT_READY)),
            HealthStatus(P),
            id="on-failure-pod-ignoring-its-policy-progresses-until-ready",
        ),
        pytest.param(
            _ignoring(a_pod("Pending", "Never", containerStatuses=[waiting("ErrImagePull", "x")])),
            HealthStatus(D, "x"),
            id="never-pod-ignoring-its-policy-is-degraded-on-an-error-wait",
        ),
        pytest.param(
            _ignoring(a_pod("Running", "Never", conditions=READY), "false"),
            HealthStatus(P),
            id="the-value-false-keeps-the-policy",
        ),
    ],
)
def test_pod_ignore_restart_policy(obj: dict[str, Any], expected: HealthStatus) -> None:
    assert pod.health(obj) == expected
