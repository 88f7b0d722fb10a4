"""Bitnami Sealed Secrets and KEDA."""

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

SS = "bitnami.com/v1alpha1"
K = "keda.sh/v1alpha1"

CASES = params(
    Case("sealed-synced", conditioned(SS, "SealedSecret", ("Synced", "True", "", "")), H),
    Case(
        "sealed-wrong-key",
        conditioned(
            SS, "SealedSecret", ("Synced", "False", "", "no key could decrypt secret (password)")
        ),
        D,
        "no key could decrypt secret (password)",
    ),
    Case("sealed-new", live(SS, "SealedSecret"), P, "Waiting for the controller to unseal it"),
    Case(
        "scaled-object-ready",
        conditioned(
            K,
            "ScaledObject",
            (
                "Ready",
                "True",
                "ScaledObjectReady",
                "ScaledObject is defined correctly and is ready for scaling",
            ),
            ("Active", "False", "", ""),
        ),
        H,
        "ScaledObject is defined correctly and is ready for scaling",
    ),
    Case(
        "scaled-object-no-target",
        conditioned(
            K,
            "ScaledObject",
            (
                "Ready",
                "False",
                "ScaledObjectCheckFailed",
                "ScaledObject doesn't have correct scaleTargetRef specification",
            ),
        ),
        D,
        "ScaledObject doesn't have correct scaleTargetRef specification",
    ),
    Case(
        "scaled-object-fallback",
        conditioned(
            K,
            "ScaledObject",
            ("Ready", "True", "", ""),
            ("Fallback", "True", "FallbackExists", "At least one trigger is falling back"),
        ),
        D,
        "At least one trigger is falling back",
    ),
    Case(
        "scaled-object-paused",
        conditioned(
            K,
            "ScaledObject",
            ("Ready", "True", "", ""),
            ("Paused", "True", "ScaledObjectPaused", "ScaledObject is paused"),
        ),
        S,
        "ScaledObject is paused",
    ),
    Case(
        "scaled-job-paused-annotation",
        live(K, "ScaledJob", annotations={"autoscaling.keda.sh/paused": "true"}),
        S,
        "Scaling is paused by annotation",
    ),
    Case("scaled-job-new", live(K, "ScaledJob"), P, "Waiting for KEDA to set up scaling"),
)


@pytest.mark.parametrize("case", CASES)
def test_sealed_secrets_and_keda(case: Case) -> None:
    assert_case(case)
