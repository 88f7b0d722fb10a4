"""Argo CD's build environment and its `$VAR` expansion (Go's os.Expand rules)."""

import pytest

from app.engine.build_env import BuildTarget, build_environment, substitute

ENV = build_environment(
    BuildTarget(
        "web",
        "argocd",
        "0123456789abcdef0123456789abcdef01234567",
        "charts/web",
        "https://git.example.com/shop.git",
        "main",
        "v1.30.1",
        ("apps/v1", "v1"),
    )
)


def test_the_environment_has_argo_cd_names() -> None:
    assert ENV["ARGOCD_APP_REVISION_SHORT"] == "0123456"
    assert ENV["ARGOCD_APP_REVISION_SHORT_8"] == "01234567"
    assert ENV["KUBE_API_VERSIONS"] == "apps/v1,v1"
    assert ENV["ARGOCD_APP_SOURCE_TARGET_REVISION"] == "main"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${ARGOCD_APP_NAME}-$ARGOCD_APP_NAMESPACE", "web-argocd"),
        ("cost: $$5", "cost: $5"),
        ("$UNSET/x", "/x"),
        ("tail $", "tail $"),
        ("a $-b", "a $-b"),
    ],
)
def test_substitute_follows_os_expand(text: str, expected: str) -> None:
    assert substitute(text, ENV) == expected
