"""HTTP answers and transport failures become the right ClusterError, with a usable message."""

import json

import aiohttp
import pytest

from app.cluster.errors import (
    MAX_MESSAGE_CHARS,
    ClusterError,
    Conflict,
    Expired,
    Forbidden,
    Invalid,
    NotFound,
    Target,
    Unauthorized,
    Unavailable,
    error_for_exception,
    error_for_status,
)

TARGET = Target("apply", "Deployment", "apps/v1", "shop", "web", "prod")


def status_body(code: int, reason: str, message: str, **details: object) -> bytes:
    return json.dumps(
        {
            "kind": "Status",
            "apiVersion": "v1",
            "status": "Failure",
            "message": message,
            "reason": reason,
            "details": details,
            "code": code,
        }
    ).encode()


@pytest.mark.parametrize(
    ("status", "reason", "expected", "retriable"),
    [
        pytest.param(400, "BadRequest", Invalid, False, id="400-bad-request-is-invalid"),
        pytest.param(401, "Unauthorized", Unauthorized, False, id="401-unauthorized"),
        pytest.param(403, "Forbidden", Forbidden, False, id="403-forbidden"),
        pytest.param(404, "NotFound", NotFound, False, id="404-not-found"),
        pytest.param(405, "MethodNotAllowed", Invalid, False, id="405-is-invalid"),
        pytest.param(409, "AlreadyExists", Conflict, False, id="409-already-exists-is-conflict"),
        pytest.param(409, "Conflict", Conflict, False, id="409-conflict"),
        pytest.param(410, "Expired", Expired, False, id="410-expired"),
        pytest.param(413, "RequestEntityTooLarge", Invalid, False, id="413-is-invalid"),
        pytest.param(415, "UnsupportedMediaType", Invalid, False, id="415-is-invalid"),
        pytest.param(422, "Invalid", Invalid, False, id="422-invalid"),
        pytest.param(429, "TooManyRequests", Unavailable, True, id="429-is-unavailable"),
        pytest.param(500, "InternalError", Unavailable, True, id="500-is-unavailable"),
        pytest.param(503, "ServiceUnavailable", Unavailable, True, id="503-is-unavailable"),
        pytest.param(504, "Timeout", Unavailable, True, id="504-is-unavailable"),
        pytest.param(418, "Teapot", ClusterError, False, id="other-is-plain-cluster-error"),
    ],
)
def test_status_maps_to_its_class(
    status: int, reason: str, expected: type[ClusterError], retriable: bool
) -> None:
    err = error_for_status(status, status_body(status, reason, "the server said so"), TARGET)
    assert type(err) is expected
    assert err.retriable is retriable
    assert err.status == status
    assert err.reason == reason
    assert str(err).startswith("apply Deployment shop/web (apps/v1) on cluster prod: ")
    assert "the server said so" in str(err)


def test_invalid_keeps_the_field_causes() -> None:
    body = status_body(
        422,
        "Invalid",
        'Deployment.apps "web" is invalid',
        name="web",
        causes=[
            {"reason": "FieldValueInvalid", "message": "must be >= 0", "field": "spec.replicas"}
        ],
    )
    err = error_for_status(422, body, TARGET)
    assert isinstance(err, Invalid)
    assert [(c.field, c.message) for c in err.causes] == [("spec.replicas", "must be >= 0")]
    assert "spec.replicas: must be >= 0" in str(err)


def test_missing_namespace_says_what_to_do() -> None:
    body = status_body(
        404, "NotFound", 'namespaces "shop" not found', name="shop", kind="namespaces"
    )
    err = error_for_status(404, body, TARGET)
    assert isinstance(err, NotFound)
    assert "CreateNamespace=true" in str(err)


def test_long_server_messages_are_truncated() -> None:
    err = error_for_status(500, status_body(500, "InternalError", "x" * 5000), TARGET)
    assert len(err.problem) <= MAX_MESSAGE_CHARS
    assert err.problem.endswith("...")


def test_credentials_in_server_messages_are_removed() -> None:
    message = (
        "proxy https://admin:hunter2hunter2@10.0.0.1/ said Authorization: "
        "Bearer eyJhbGciOiJSUzI1NiJ9.payload.signature and ?token=abcdefgh123"
    )
    err = error_for_status(502, status_body(502, "BadGateway", message), TARGET)
    text = str(err)
    for secret in ("hunter2hunter2", "eyJhbGciOiJSUzI1NiJ9", "abcdefgh123"):
        assert secret not in text


@pytest.mark.parametrize("quote", ['"', "'"], ids=["double-quoted", "single-quoted"])
def test_secret_values_are_masked_in_invalid_messages(quote: str) -> None:
    target = Target("apply", "Secret", "v1", "shop", "db")
    body = status_body(
        422,
        "Invalid",
        f'Secret "db" is invalid: data[pw]: Invalid value: {quote}hunter2{quote}: bad',
        causes=[{"field": "data[pw]", "message": f"Invalid value: {quote}hunter2{quote}: bad"}],
    )
    err = error_for_status(422, body, target)
    assert "hunter2" not in str(err)
    assert "hunter2" not in err.causes[0].message
    assert "++++++++" in str(err)


def test_a_body_that_is_not_a_status_is_shown_briefly() -> None:
    err = error_for_status(502, b"<html>" + b"bad gateway " * 100 + b"</html>", TARGET)
    assert isinstance(err, Unavailable)
    assert err.problem.startswith("HTTP 502: <html>bad gateway")
    assert len(err.problem) < 260


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        pytest.param("7", 7.0, id="seconds"),
        pytest.param(None, None, id="absent"),
        pytest.param("Wed, 21 Oct 2015 07:28:00 GMT", None, id="http-date-ignored"),
    ],
)
def test_retry_after_is_kept_on_429(header: str | None, expected: float | None) -> None:
    body = status_body(429, "TooManyRequests", "slow down")
    err = error_for_status(429, body, TARGET, retry_after=header)
    assert isinstance(err, Unavailable)
    assert err.retry_after == expected


def test_timeout_is_unavailable_and_names_the_deadline() -> None:
    err = error_for_exception(TimeoutError(), TARGET, timeout=2.5)
    assert isinstance(err, Unavailable)
    assert "no answer within 2.5 s" in str(err)


def test_connection_failure_is_unavailable_without_credentials() -> None:
    exc = aiohttp.ClientConnectionError("cannot connect to https://u:p4ssw0rd@host:6443")
    err = error_for_exception(exc, TARGET, timeout=30)
    assert isinstance(err, Unavailable)
    assert err.retriable
    assert "p4ssw0rd" not in str(err)
    assert "cannot reach the API server" in str(err)


def test_target_names_a_collection_by_namespace() -> None:
    assert str(Target("list", "ConfigMap", "v1", "shop")) == "list ConfigMap in namespace shop (v1)"
