"""Signed tokens and local accounts, on their own."""

import datetime as dt
import json

import pytest

from app.engine.rbac import jwt_tokens
from app.engine.rbac.accounts import parse_accounts

KEY = b"k" * 32
NOW = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)


def test_issued_tokens_carry_argo_cds_claims_and_verify() -> None:
    token, claims = jwt_tokens.issue("proj:a:ci", KEY, now=NOW, expires_in=60, token_id="t1")
    assert claims == {
        "iss": "argocd",
        "sub": "proj:a:ci",
        "iat": int(NOW.timestamp()),
        "nbf": int(NOW.timestamp()),
        "exp": int(NOW.timestamp()) + 60,
        "jti": "t1",
    }
    assert jwt_tokens.looks_like_jwt(token)


@pytest.mark.parametrize(
    ("key", "says"),
    [
        pytest.param(b"x" * 32, "not valid", id="another key"),
        pytest.param(b"", "no signing key", id="no key yet"),
    ],
)
def test_tokens_signed_otherwise_are_refused(key: bytes, says: str) -> None:
    token, _ = jwt_tokens.issue("alice:apiKey", KEY, now=dt.datetime.now(dt.UTC), token_id="t")
    with pytest.raises(jwt_tokens.TokenInvalid, match=says):
        jwt_tokens.verify(token, key, now=dt.datetime.now(dt.UTC))


def test_expired_and_unsigned_tokens_are_refused() -> None:
    old, _ = jwt_tokens.issue(
        "a:apiKey", KEY, now=dt.datetime(2020, 1, 1, tzinfo=dt.UTC), expires_in=60
    )
    with pytest.raises(jwt_tokens.TokenInvalid, match="expired"):
        jwt_tokens.verify(old, KEY, now=dt.datetime.now(dt.UTC))
    unsigned = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiJ9."
    with pytest.raises(jwt_tokens.TokenInvalid, match="HS256"):
        jwt_tokens.verify(unsigned, KEY, now=dt.datetime.now(dt.UTC))


def test_accounts_from_argocd_cm_and_secret() -> None:
    tokens = json.dumps([{"id": "t1", "iat": 1, "exp": 2}])
    found = parse_accounts(
        {
            "accounts.alice": "apiKey, login",
            "accounts.bob": "apiKey",
            "accounts.bob.enabled": "false",
            "accounts.eve": "root",
            "admin.enabled": "false",
            "url": "https://x",
        },
        {"accounts.alice.tokens": tokens},
    )
    assert sorted(found.by_name) == ["admin", "alice", "bob"]
    alice = found.get("alice")
    assert alice is not None and alice.capabilities == ("apiKey", "login")
    assert alice.token("t1") is not None and alice.token("t2") is None
    assert not found.by_name["bob"].enabled and not found.by_name["admin"].enabled
    assert found.problems == (
        "argocd-cm accounts.eve: unknown capability 'root' (expected apiKey or login)",
    )
