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

V1 = "cert-manager.io/v1"

CASES = params(
    Case(
        "issuer-ready",
        conditioned(
            V1,
            "Issuer",
            ("Ready", "True", "ACMEAccountRegistered", "The ACME account was registered"),
        ),
        H,
        "The ACME account was registered",
    ),
    Case(
        "cluster-issuer-secret-missing",
        conditioned(
            V1,
            "ClusterIssuer",
            (
                "Ready",
                "False",
                "ErrGetKeyPair",
                'Error getting keypair for CA issuer: secret "ca" not found',
            ),
        ),
        D,
        'Error getting keypair for CA issuer: secret "ca" not found',
    ),
    Case("issuer-new", live(V1, "Issuer"), P, "Waiting for the issuer to be verified"),
    Case(
        "request-pending",
        conditioned(
            V1,
            "CertificateRequest",
            ("Approved", "True", "policy", ""),
            ("Ready", "False", "Pending", "Waiting on certificate issuance from order"),
        ),
        P,
        "Waiting on certificate issuance from order",
    ),
    Case(
        "request-issued",
        conditioned(
            V1,
            "CertificateRequest",
            ("Ready", "True", "Issued", "Certificate fetched from issuer successfully"),
        ),
        H,
        "Certificate fetched from issuer successfully",
    ),
    Case(
        "request-failed",
        conditioned(
            V1, "CertificateRequest", ("Ready", "False", "Failed", "Failed to sign: CA expired")
        ),
        D,
        "Failed to sign: CA expired",
    ),
    Case(
        "request-denied",
        conditioned(
            V1,
            "CertificateRequest",
            ("Denied", "True", "policy.cert-manager.io", "no policy matched"),
        ),
        D,
        "no policy matched",
    ),
    Case(
        "request-new", live(V1, "CertificateRequest"), P, "Waiting for the request to be approved"
    ),
)


@pytest.mark.parametrize("case", CASES)
def test_cert_manager(case: Case) -> None:
    assert_case(case)
