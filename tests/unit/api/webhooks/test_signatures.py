"""Proofs of the sender: HMAC over the raw body, token and UUID headers, HTTP Basic; no header
value can make a check raise anything but Unauthorized, and no message holds the secret."""

import base64
from collections.abc import Callable

import pytest
from multidict import CIMultiDict

from app.api.webhooks.errors import Unauthorized
from app.api.webhooks.signatures import check_basic_auth, check_hmac, check_token
from tests.unit.api.webhooks.samples import SECRET, hex_hmac

BODY = b'{"ref": "refs/heads/main"}'
GOOD = "sha256=" + hex_hmac(SECRET, BODY)


def assert_verdict(check: Callable[[], None], ok: bool) -> None:
    """`check` passes when `ok`; otherwise it is Unauthorized, without naming the secret."""
    if ok:
        check()
        return
    with pytest.raises(Unauthorized) as info:
        check()
    assert SECRET not in str(info.value)


def _hmac(value: str | None) -> None:
    headers = CIMultiDict({} if value is None else {"X-Hub-Signature-256": value})
    check_hmac(
        headers,
        header="X-Hub-Signature-256",
        prefix="sha256=",
        secret=SECRET,
        body=BODY,
        provider="GitHub",
        setting="webhook.github.secret",
    )


def test_hmac_of_the_body_is_accepted_in_any_case() -> None:
    _hmac(GOOD)
    _hmac(GOOD.upper().replace("SHA256=", "sha256="))


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (None, "has no X-Hub-Signature-256 header"),
        ("", "has no X-Hub-Signature-256 header"),
        ("sha256=" + hex_hmac("wrong", BODY), "does not match"),
        ("sha1=" + hex_hmac(SECRET, BODY), "does not match"),
        (hex_hmac(SECRET, BODY), "does not match"),
        ("sha256=" + hex_hmac(SECRET, BODY + b" "), "does not match"),
        ("sha256=zz\udcff\u00e9", "does not match"),
        (GOOD + "00", "does not match"),
    ],
    ids=[
        "missing",
        "empty",
        "other-secret",
        "sha1",
        "no-prefix",
        "other-body",
        "non-ascii",
        "longer",
    ],
)
def test_hmac_refusals(value: str | None, problem: str) -> None:
    with pytest.raises(Unauthorized, match=problem) as info:
        _hmac(value)
    assert SECRET not in str(info.value)


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        (SECRET, True),
        ("", False),
        ("it's a secret", False),
        (SECRET + " ", False),
        ("\u00e9", False),
    ],
    ids=["equal", "missing", "other", "trailing-space", "non-ascii"],
)
def test_token_equality(value: str, ok: bool) -> None:
    headers = CIMultiDict({"X-Gitlab-Token": value} if value else {})

    def check() -> None:
        check_token(
            headers,
            header="X-Gitlab-Token",
            secret=SECRET,
            provider="GitLab",
            setting="webhook.gitlab.secret",
        )

    assert_verdict(check, ok)


def _basic(user: bytes, password: bytes) -> str:
    return "Basic " + base64.b64encode(user + b":" + password).decode()


@pytest.mark.parametrize(
    ("authorization", "ok"),
    [
        (_basic(b"sluice", SECRET.encode()), True),
        ("basic " + _basic(b"sluice", SECRET.encode()).split()[1], True),
        (_basic(b"sluice", b"wrong"), False),
        (_basic(b"other", SECRET.encode()), False),
        (_basic(b"sluice:" + SECRET.encode(), b""), False),
        ("Bearer " + SECRET, False),
        ("Basic", False),
        ("Basic !!!not-base64!!!", False),
        ("Basic \u00e9\u00e9", False),
        ("", False),
    ],
    ids=[
        "correct",
        "scheme-case",
        "wrong-password",
        "wrong-user",
        "colon-shifted",
        "bearer",
        "no-credentials",
        "bad-base64",
        "non-ascii",
        "missing",
    ],
)
def test_basic_auth(authorization: str, ok: bool) -> None:
    headers = CIMultiDict({"Authorization": authorization} if authorization else {})

    def check() -> None:
        check_basic_auth(
            headers,
            username="sluice",
            password=SECRET,
            provider="Azure DevOps",
            setting="webhook.azuredevops.username/password",
        )

    assert_verdict(check, ok)
