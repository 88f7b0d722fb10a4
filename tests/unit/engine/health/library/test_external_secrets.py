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

V = "external-secrets.io/v1beta1"

CASES = params(
    Case(
        "es-synced",
        conditioned(V, "ExternalSecret", ("Ready", "True", "SecretSynced", "Secret was synced")),
        H,
        "Secret was synced",
    ),
    Case(
        "es-sync-error",
        conditioned(
            V,
            "ExternalSecret",
            ("Ready", "False", "SecretSyncedError", "could not get secret data from provider"),
        ),
        D,
        "could not get secret data from provider",
    ),
    Case("es-new", live(V, "ExternalSecret"), P, "Waiting for the first sync"),
    Case(
        "push-secret-errored",
        conditioned(
            "external-secrets.io/v1alpha1",
            "PushSecret",
            ("Ready", "False", "Errored", "set secret failed: AccessDenied"),
        ),
        D,
        "set secret failed: AccessDenied",
    ),
    Case(
        "store-valid",
        conditioned(V, "SecretStore", ("Ready", "True", "Valid", "store validated")),
        H,
        "store validated",
    ),
    Case(
        "cluster-store-invalid",
        conditioned(
            V,
            "ClusterSecretStore",
            ("Ready", "False", "InvalidProviderConfig", "unable to create client"),
        ),
        D,
        "unable to create client",
    ),
    Case("store-new", live(V, "ClusterSecretStore"), P, "Waiting for the store to be validated"),
    Case(
        "ces-failed-namespaces",
        conditioned(
            V,
            "ClusterExternalSecret",
            ("Ready", "False", "", "one or more namespaces failed"),
            failedNamespaces=[{"namespace": "team-b", "reason": "x"}],
        ),
        D,
        "failed in namespace(s) team-b",
    ),
    Case("ces-ready", conditioned(V, "ClusterExternalSecret", ("Ready", "True", "", "")), H),
)


@pytest.mark.parametrize("case", CASES)
def test_external_secrets(case: Case) -> None:
    assert_case(case)
