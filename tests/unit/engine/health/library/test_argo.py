"""Argo Rollouts AnalysisRun and Experiment, Argo Workflows CronWorkflow."""

import pytest

from tests.unit.engine.health.library.cases import (
    Case,
    D,
    H,
    P,
    S,
    U,
    assert_case,
    conditioned,
    live,
    params,
)

A = "argoproj.io/v1alpha1"

CASES = params(
    Case(
        "analysis-new", live(A, "AnalysisRun"), P, "Waiting for the rollout controller to start it"
    ),
    Case("analysis-running", live(A, "AnalysisRun", status={"phase": "Running"}), P),
    Case("analysis-successful", live(A, "AnalysisRun", status={"phase": "Successful"}), H),
    Case(
        "analysis-failed",
        live(
            A,
            "AnalysisRun",
            status={
                "phase": "Failed",
                "message": 'Metric "error-rate" assessed Failed: failed (3) > failureLimit (2)',
            },
        ),
        D,
        'Metric "error-rate" assessed Failed: failed (3) > failureLimit (2)',
    ),
    Case("analysis-inconclusive", live(A, "AnalysisRun", status={"phase": "Inconclusive"}), S),
    Case(
        "analysis-odd-phase",
        live(A, "AnalysisRun", status={"phase": "Weird"}),
        U,
        "unknown phase 'Weird'",
    ),
    Case(
        "experiment-error",
        live(A, "Experiment", status={"phase": "Error", "message": "ReplicaSet canary failed"}),
        D,
        "ReplicaSet canary failed",
    ),
    Case("experiment-pending", live(A, "Experiment", status={"phase": "Pending"}), P),
    Case(
        "cron-workflow-suspended",
        live(A, "CronWorkflow", spec={"suspend": True}),
        S,
        "CronWorkflow is suspended",
    ),
    Case(
        "cron-workflow-submission-error",
        conditioned(
            A,
            "CronWorkflow",
            ("SubmissionError", "True", "", "Failed to submit Workflow: template not found"),
        ),
        D,
        "Failed to submit Workflow: template not found",
    ),
    Case(
        "cron-workflow-ran",
        live(A, "CronWorkflow", status={"lastScheduledTime": "2025-03-01T10:00:00Z"}),
        H,
        "last run at 2025-03-01T10:00:00Z",
    ),
)


@pytest.mark.parametrize("case", CASES)
def test_argo(case: Case) -> None:
    assert_case(case)
