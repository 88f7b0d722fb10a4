"""A hook's phase from its health (SEMANTICS §2)."""

from typing import Any

import pytest

from app.engine.health import HealthCustomizations, HookStatus, hook_status, hook_status_from_health
from app.model.annotations import HOOK_FINALIZER
from app.model.health import HealthStatus, HealthStatusCode
from app.model.sync import OperationPhase
from tests.unit.engine.health.objects import condition, live

RUNNING, SUCCEEDED, FAILED = (
    OperationPhase.RUNNING,
    OperationPhase.SUCCEEDED,
    OperationPhase.FAILED,
)


def hook_job(*conditions: dict[str, str], **meta: Any) -> dict[str, Any]:
    return live("batch/v1", "Job", name="migrate", status={"conditions": list(conditions)}, **meta)


def hook_pod(phase: str, restart_policy: str, **status: Any) -> dict[str, Any]:
    return live(
        "v1",
        "Pod",
        name="smoke",
        spec={"restartPolicy": restart_policy},
        status={"phase": phase, **status},
    )


def workflow(phase: str) -> dict[str, Any]:
    return live(
        "argoproj.io/v1alpha1", "Workflow", name="e2e", status={"phase": phase, "message": phase}
    )


@pytest.mark.parametrize(
    ("live_hook", "expected"),
    [
        pytest.param(
            live("v1", "ConfigMap", name="settings"),
            HookStatus(SUCCEEDED, "settings created"),
            id="no-health-check-succeeds-once-created",
        ),
        pytest.param(hook_job(), HookStatus(RUNNING, ""), id="job-running-is-running"),
        pytest.param(
            hook_job(condition("Complete", "True", "", "Job completed")),
            HookStatus(SUCCEEDED, "Job completed"),
            id="job-complete-is-healthy-so-succeeded",
        ),
        pytest.param(
            hook_job(condition("Failed", "True", "BackoffLimitExceeded", "Job has failed")),
            HookStatus(FAILED, "Job has failed"),
            id="job-failed-is-degraded-so-failed",
        ),
        pytest.param(
            hook_job(condition("Suspended", "True", "JobSuspended", "Job suspended")),
            HookStatus(RUNNING, "Job suspended"),
            id="job-suspended-is-suspended-so-running",
        ),
        pytest.param(
            hook_pod("Running", "Never", conditions=[condition("Ready", "True")]),
            HookStatus(RUNNING, ""),
            id="pod-never-running-is-progressing-so-running",
        ),
        pytest.param(
            hook_pod(
                "Pending",
                "OnFailure",
                containerStatuses=[
                    {
                        "name": "c",
                        "state": {"waiting": {"reason": "ImagePullBackOff", "message": "x"}},
                    }
                ],
            ),
            HookStatus(RUNNING, ""),
            id="pod-on-failure-pull-backoff-keeps-running",
        ),
        pytest.param(hook_pod("Succeeded", "Never"), HookStatus(SUCCEEDED, ""), id="pod-succeeded"),
        pytest.param(
            hook_pod("Failed", "Never", message="Pod was evicted"),
            HookStatus(FAILED, "Pod was evicted"),
            id="pod-failed",
        ),
        pytest.param(workflow(""), HookStatus(RUNNING, ""), id="workflow-no-phase-is-running"),
        pytest.param(workflow("Pending"), HookStatus(RUNNING, "Pending"), id="workflow-pending"),
        pytest.param(workflow("Running"), HookStatus(RUNNING, "Running"), id="workflow-running"),
        pytest.param(
            workflow("Succeeded"), HookStatus(SUCCEEDED, "Succeeded"), id="workflow-succeeded"
        ),
        pytest.param(workflow("Failed"), HookStatus(FAILED, "Failed"), id="workflow-failed"),
        pytest.param(workflow("Error"), HookStatus(FAILED, "Error"), id="workflow-error"),
        pytest.param(
            hook_job(
                condition("Complete", "True", "", "Job completed"),
                deleted=True,
                finalizers=[HOOK_FINALIZER],
            ),
            HookStatus(SUCCEEDED, "Job completed"),
            id="deleted-hook-with-hook-finalizer-is-judged-on-its-result",
        ),
        pytest.param(
            hook_job(condition("Complete", "True"), deleted=True),
            HookStatus(RUNNING, "Pending deletion"),
            id="deleted-hook-without-finalizer-is-pending-deletion-so-running",
        ),
    ],
)
def test_hook_status(live_hook: dict[str, Any], expected: HookStatus) -> None:
    assert hook_status(live_hook) == expected


@pytest.mark.parametrize(
    ("health", "expected"),
    [
        pytest.param(None, HookStatus(SUCCEEDED, "h created"), id="no-health"),
        pytest.param(
            HealthStatus(HealthStatusCode.HEALTHY, "ok"), HookStatus(SUCCEEDED, "ok"), id="healthy"
        ),
        pytest.param(
            HealthStatus(HealthStatusCode.PROGRESSING, "p"),
            HookStatus(RUNNING, "p"),
            id="progressing",
        ),
        pytest.param(
            HealthStatus(HealthStatusCode.SUSPENDED, "s"),
            HookStatus(RUNNING, "s"),
            id="suspended",
        ),
        pytest.param(
            HealthStatus(HealthStatusCode.DEGRADED, "d"), HookStatus(FAILED, "d"), id="degraded"
        ),
        pytest.param(
            HealthStatus(HealthStatusCode.UNKNOWN, "u"), HookStatus(FAILED, "u"), id="unknown"
        ),
        pytest.param(
            HealthStatus(HealthStatusCode.MISSING, "m"),
            HookStatus(SUCCEEDED, "h created"),
            id="missing-is-no-verdict-like-argo-cd",
        ),
    ],
)
def test_hook_phase_from_each_health_status(
    health: HealthStatus | None, expected: HookStatus
) -> None:
    assert hook_status_from_health("h", health) == expected


def test_a_broken_custom_check_fails_the_hook() -> None:
    configured = HealthCustomizations.from_config(
        {"resource.customizations.health.batch_Job": "return {status = 'Done'}"}
    )
    result = hook_status(hook_job(), customizations=configured)
    assert result.phase is FAILED
    assert "invalid health status 'Done'" in result.message
