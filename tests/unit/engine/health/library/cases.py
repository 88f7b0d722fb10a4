"""The shape of a library case and the assertion every family file runs."""

from dataclasses import dataclass
from typing import Any

import pytest

from app.engine.health import HealthCustomizations, assess
from app.model.health import HealthStatus, HealthStatusCode
from tests.unit.engine.health.objects import condition, live

BUILTIN_ONLY = HealthCustomizations()
H, P, D, S, U = (
    HealthStatusCode.HEALTHY,
    HealthStatusCode.PROGRESSING,
    HealthStatusCode.DEGRADED,
    HealthStatusCode.SUSPENDED,
    HealthStatusCode.UNKNOWN,
)


@dataclass(frozen=True)
class Case:
    id: str
    obj: dict[str, Any]
    status: HealthStatusCode
    message: str = ""


def params(*cases: Case) -> list[Any]:
    return [pytest.param(case, id=case.id) for case in cases]


def assert_case(case: Case) -> None:
    assert assess(case.obj, customizations=BUILTIN_ONLY) == HealthStatus(case.status, case.message)


def conditioned(
    api_version: str, kind: str, *conds: tuple[str, str, str, str], **status: Any
) -> dict[str, Any]:
    """A live object whose status holds `conds` (type, status, reason, message) and `status`."""
    body = {"conditions": [condition(*c) for c in conds], **status}
    return live(api_version, kind, status=body)


__all__ = ["Case", "D", "H", "P", "S", "U", "assert_case", "conditioned", "live", "params"]
