"""batch CronJob and policy PodDisruptionBudget."""

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

CASES = params(
    Case("cronjob-never-ran", live("batch/v1", "CronJob", status={}), H),
    Case(
        "cronjob-ran",
        live(
            "batch/v1",
            "CronJob",
            status={
                "lastScheduleTime": "2025-03-01T10:00:00Z",
                "lastSuccessfulTime": "2025-03-01T10:00:09Z",
            },
        ),
        H,
        "last run at 2025-03-01T10:00:00Z",
    ),
    Case(
        "cronjob-running",
        live(
            "batch/v1",
            "CronJob",
            status={"active": [{"name": "backup-1"}], "lastScheduleTime": "2025-03-01T10:00:00Z"},
        ),
        H,
        "1 job(s) running",
    ),
    Case(
        "cronjob-last-failed",
        live(
            "batch/v1",
            "CronJob",
            status={
                "lastScheduleTime": "2025-03-01T11:00:00Z",
                "lastSuccessfulTime": "2025-03-01T10:00:09Z",
            },
        ),
        D,
        "the job scheduled at 2025-03-01T11:00:00Z did not succeed",
    ),
    Case(
        "cronjob-suspended",
        live("batch/v1", "CronJob", spec={"suspend": True}),
        S,
        "CronJob is suspended",
    ),
    Case(
        "pdb-healthy",
        conditioned(
            "policy/v1",
            "PodDisruptionBudget",
            ("DisruptionAllowed", "True", "SufficientPods", ""),
            currentHealthy=3,
            desiredHealthy=2,
            observedGeneration=1,
        ),
        H,
        "3 healthy pod(s)",
    ),
    Case(
        "pdb-zero-disruptions-is-healthy",
        conditioned(
            "policy/v1",
            "PodDisruptionBudget",
            ("DisruptionAllowed", "False", "SufficientPods", ""),
            currentHealthy=2,
            desiredHealthy=2,
        ),
        H,
        "2 healthy pod(s)",
    ),
    Case(
        "pdb-too-few",
        conditioned(
            "policy/v1",
            "PodDisruptionBudget",
            ("DisruptionAllowed", "False", "InsufficientPods", ""),
            currentHealthy=1,
            desiredHealthy=2,
        ),
        D,
        "1 healthy pod(s), the budget needs 2",
    ),
    Case(
        "pdb-uncounted",
        live("policy/v1", "PodDisruptionBudget"),
        P,
        "Waiting for the pods to be counted",
    ),
)


@pytest.mark.parametrize("case", CASES)
def test_cronjob_and_pdb(case: Case) -> None:
    assert_case(case)
