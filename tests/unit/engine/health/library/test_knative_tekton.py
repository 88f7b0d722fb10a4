"""Knative Serving and Tekton."""

import pytest

from tests.unit.engine.health.library.cases import (
    Case,
    D,
    H,
    P,
    S,
    assert_case,
    conditioned,
    live,
    params,
)

KN = "serving.knative.dev/v1"
TK = "tekton.dev/v1"

CASES = params(
    Case(
        "ksvc-ready", conditioned(KN, "Service", ("Ready", "True", "", ""), observedGeneration=1), H
    ),
    Case(
        "ksvc-revision-failed",
        conditioned(
            KN,
            "Service",
            (
                "Ready",
                "False",
                "RevisionFailed",
                'Revision "hello-00002" failed with message: Unable to fetch image',
            ),
            observedGeneration=1,
        ),
        D,
        'Revision "hello-00002" failed with message: Unable to fetch image',
    ),
    Case(
        "ksvc-rolling",
        conditioned(
            KN,
            "Service",
            (
                "Ready",
                "Unknown",
                "RevisionMissing",
                "Configuration is waiting for a Revision to become ready.",
            ),
            observedGeneration=1,
        ),
        P,
        "Configuration is waiting for a Revision to become ready.",
    ),
    Case("ksvc-new", live(KN, "Service"), P, "Waiting for the controller to report status"),
    Case(
        "pipelinerun-running",
        conditioned(
            TK,
            "PipelineRun",
            (
                "Succeeded",
                "Unknown",
                "Running",
                "Tasks Completed: 1 (Failed: 0, Cancelled 0), Incomplete: 2",
            ),
        ),
        P,
        "Tasks Completed: 1 (Failed: 0, Cancelled 0), Incomplete: 2",
    ),
    Case(
        "pipelinerun-succeeded",
        conditioned(
            TK,
            "PipelineRun",
            (
                "Succeeded",
                "True",
                "Succeeded",
                "Tasks Completed: 3 (Failed: 0, Cancelled 0), Skipped: 0",
            ),
        ),
        H,
        "Tasks Completed: 3 (Failed: 0, Cancelled 0), Skipped: 0",
    ),
    Case(
        "taskrun-failed",
        conditioned(
            TK, "TaskRun", ("Succeeded", "False", "Failed", '"step-build" exited with code 1')
        ),
        D,
        '"step-build" exited with code 1',
    ),
    Case(
        "pipelinerun-pending",
        live(TK, "PipelineRun", spec={"status": "PipelineRunPending"}),
        S,
        "The run is pending",
    ),
    Case("taskrun-new", live(TK, "TaskRun"), P, "Waiting for the run to start"),
)


@pytest.mark.parametrize("case", CASES)
def test_knative_and_tekton(case: Case) -> None:
    assert_case(case)
