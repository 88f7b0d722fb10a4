"""Credentials never survive into messages: URL userinfo, headers, tokens, configured secrets."""

import pytest

from app.repo.redact import redact


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("fatal: unable to access 'https://alice:tok3n-value@host/r/'", "tok3n-value"),
        ("fatal: unable to access 'https://tok3n-value@host/r/'", "tok3n-value"),
        ("remote: GET https://host/r?private_token=tok3n-value&x=1", "tok3n-value"),
        ("header Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA=="),
        ("Authorization: Bearer tok3n-value-long", "tok3n-value-long"),
    ],
)
def test_patterns_are_masked(text: str, secret: str) -> None:
    assert secret not in redact(text)


def test_configured_secrets_are_masked_anywhere() -> None:
    out = redact("server said: hunter2-password is wrong", ["hunter2-password"])
    assert "hunter2-password" not in out
    assert "server said" in out


def test_short_secrets_are_not_searched() -> None:
    assert redact("a b c", ["a"]) == "a b c"


def test_text_without_credentials_is_unchanged() -> None:
    text = "fatal: repository 'https://github.com/org/repo/' not found"
    assert redact(text, ["s3cret"]) == text
