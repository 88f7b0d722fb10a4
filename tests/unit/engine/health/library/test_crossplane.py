"""Crossplane and Upbound: every group under crossplane.io and upbound.io."""

import pytest

from tests.unit.engine.health.library.cases import (
    Case,
    D,
    H,
    P,
    assert_case,
    conditioned,
    live,
    params,
)

CASES = params(
    Case(
        "managed-ready",
        conditioned(
            "s3.aws.upbound.io/v1beta1",
            "Bucket",
            ("Ready", "True", "Available", ""),
            ("Synced", "True", "ReconcileSuccess", ""),
        ),
        H,
        "Available",
    ),
    Case(
        "managed-creating",
        conditioned(
            "rds.aws.upbound.io/v1beta1",
            "Instance",
            ("Ready", "False", "Creating", ""),
            ("Synced", "True", "ReconcileSuccess", ""),
        ),
        P,
        "Creating",
    ),
    Case(
        "managed-reconcile-error",
        conditioned(
            "ec2.aws.upbound.io/v1beta1",
            "VPC",
            ("Ready", "False", "Creating", ""),
            ("Synced", "False", "ReconcileError", "cannot create VPC: UnauthorizedOperation"),
        ),
        D,
        "cannot create VPC: UnauthorizedOperation",
    ),
    Case(
        "managed-new",
        live("database.gcp.crossplane.io/v1beta1", "CloudSQLInstance"),
        P,
        "Waiting for Crossplane to reconcile it",
    ),
    Case(
        "claim-unready",
        conditioned(
            "platform.example.org.crossplane.io/v1alpha1",
            "PostgreSQLInstance",
            ("Ready", "False", "Unavailable", "Unready resources: db"),
            ("Synced", "True", "", ""),
        ),
        P,
        "Unready resources: db",
    ),
    Case("composition-has-no-status", live("apiextensions.crossplane.io/v1", "Composition"), H),
    Case(
        "provider-healthy",
        conditioned(
            "pkg.crossplane.io/v1",
            "Provider",
            ("Installed", "True", "ActivePackageRevision", ""),
            ("Healthy", "True", "HealthyPackageRevision", ""),
        ),
        H,
        "HealthyPackageRevision",
    ),
    Case(
        "provider-unhealthy",
        conditioned(
            "pkg.crossplane.io/v1",
            "Provider",
            ("Installed", "True", "", ""),
            ("Healthy", "False", "UnhealthyPackageRevision", "post establish runtime hook failed"),
        ),
        D,
        "post establish runtime hook failed",
    ),
    Case(
        "provider-installing",
        conditioned(
            "pkg.crossplane.io/v1",
            "Provider",
            ("Installed", "False", "InactivePackageRevision", ""),
        ),
        P,
        "InactivePackageRevision",
    ),
)


@pytest.mark.parametrize("case", CASES)
def test_crossplane(case: Case) -> None:
    assert_case(case)


def test_a_group_that_only_ends_like_crossplane_is_not_covered() -> None:
    from app.engine.health import assess
    from tests.unit.engine.health.library.cases import BUILTIN_ONLY

    assert assess(live("notcrossplane.io/v1", "Thing"), customizations=BUILTIN_ONLY) is None
