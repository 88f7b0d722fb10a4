"""A schema-driven fuzz run: schemathesis generates requests from /api/openapi.json for every
operation and the server must never answer 5xx (the document itself must validate)."""

import asyncio
from collections.abc import Callable
from typing import Any

import hypothesis
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, given

from app.api.openapi import EXAMPLE_NAME
from app.api.server import ApiServer
from app.api.settings import ApiSettings
from app.runtime.runtime import Runtime
from tests.integration.api.server.conftest import (
    ADMIN,
    NAMESPACE,
    application,
    auth,
    seed_app,
    tokens,
)

EXAMPLES = 30
"""Examples per operation: enough to reach every decoder branch, bounded for a quick run."""
SKIPPED = {"streamEvents", "createRepository"}
"""Event streams never end by themselves; tests/…/test_stream.py covers them. Registering a
repository runs an ls-remote of the URL it is given: fuzzed URLs would send git to
arbitrary hosts (tests/…/test_repositories.py covers it)."""


def fuzz_operation(operation: Any, base_url: str, failures: list[str]) -> None:
    @hypothesis.settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
        phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate],
    )
    @given(case=operation.as_strategy())
    def run(case: Any) -> None:
        response = case.call(base_url=base_url, headers=auth(ADMIN), timeout=15)
        if response.status_code >= 500:
            failures.append(
                f"{case.method} {case.formatted_path} -> {response.status_code}: "
                f"{response.text[:300]} ({case.as_curl_command()})"
            )

    run()


def fuzz_all(base_url: str) -> list[str]:
    document = requests.get(f"{base_url}/api/openapi.json", headers=auth(ADMIN), timeout=10)
    document.raise_for_status()
    schema = schemathesis.openapi.from_dict(document.json())
    schema.validate()
    failures: list[str] = []
    fuzzed = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        if schema.get_operation_id(operation) in SKIPPED:
            continue
        fuzz_operation(operation, base_url, failures)
        fuzzed += 1
    assert fuzzed >= 20, f"only {fuzzed} operations were fuzzed"
    return failures


@pytest.mark.timeout(600)  # every operation of the API, each with EXAMPLES requests
async def test_no_request_makes_the_server_fail(runtime: Runtime) -> None:
    await runtime.control_plane.apply(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
    )
    await seed_app(runtime, application(EXAMPLE_NAME))
    server = ApiServer(runtime, ApiSettings(port=0, tokens=tokens(), request_timeout=10.0))
    await server.start()
    try:
        run: Callable[[str], list[str]] = fuzz_all
        failures = await asyncio.to_thread(run, server.url)
    finally:
        await server.stop()
    assert not failures, "\n".join(failures[:10])
