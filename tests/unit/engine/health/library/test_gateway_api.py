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

GW = "gateway.networking.k8s.io/v1"


def parent(*conds: tuple[str, str, str, str]) -> dict[str, object]:
    return {
        "parentRef": {"name": "edge", "namespace": "infra"},
        "controllerName": "example.net/gateway-controller",
        "conditions": [{"type": t, "status": s, "reason": r, "message": m} for t, s, r, m in conds],
    }


CASES = params(
    Case(
        "gateway-programmed",
        conditioned(
            GW,
            "Gateway",
            ("Accepted", "True", "Accepted", ""),
            ("Programmed", "True", "Programmed", ""),
        ),
        H,
        "Programmed",
    ),
    Case(
        "gateway-pending",
        conditioned(
            GW,
            "Gateway",
            ("Accepted", "Unknown", "Pending", "Waiting for controller"),
            ("Programmed", "Unknown", "Pending", "Waiting for controller"),
        ),
        P,
        "Waiting for controller",
    ),
    Case(
        "gateway-no-address",
        conditioned(
            GW,
            "Gateway",
            ("Accepted", "True", "", ""),
            ("Programmed", "False", "AddressNotAssigned", "no IP addresses left in pool"),
        ),
        D,
        "no IP addresses left in pool",
    ),
    Case(
        "gateway-invalid-class",
        conditioned(
            GW,
            "Gateway",
            ("Accepted", "False", "InvalidParameters", "GatewayClass parameters are invalid"),
        ),
        D,
        "GatewayClass parameters are invalid",
    ),
    Case(
        "gateway-stale",
        live(
            GW,
            "Gateway",
            generation=2,
            status={
                "conditions": [{"type": "Programmed", "status": "True", "observedGeneration": 1}]
            },
        ),
        P,
        "Waiting for the spec update to be observed",
    ),
    Case(
        "route-accepted",
        live(
            GW,
            "HTTPRoute",
            status={
                "parents": [
                    parent(
                        ("Accepted", "True", "Accepted", ""),
                        ("ResolvedRefs", "True", "ResolvedRefs", ""),
                    )
                ]
            },
        ),
        H,
    ),
    Case(
        "route-backend-missing",
        live(
            GW,
            "HTTPRoute",
            status={
                "parents": [
                    parent(
                        ("Accepted", "True", "", ""),
                        ("ResolvedRefs", "False", "BackendNotFound", 'Service "api" not found'),
                    )
                ]
            },
        ),
        D,
        'Gateway infra/edge: Service "api" not found',
    ),
    Case(
        "route-no-listener",
        live(
            GW,
            "GRPCRoute",
            status={"parents": [parent(("Accepted", "False", "NoMatchingParent", ""))]},
        ),
        D,
        "Gateway infra/edge: NoMatchingParent",
    ),
    Case("route-new", live(GW, "HTTPRoute"), P, "Waiting for a Gateway to accept the route"),
)


@pytest.mark.parametrize("case", CASES)
def test_gateway_api(case: Case) -> None:
    assert_case(case)
