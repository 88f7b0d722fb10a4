"""The source-spec hash: equal for sources that render the same, different otherwise."""

import pytest

from app.model.app_spec import ApplicationSource, ApplicationSourceDirectory
from app.repo.errors import RepoURLError
from app.repo.sourcehash import source_hash


def src(**kwargs: object) -> ApplicationSource:
    base: dict[str, object] = {"repo_url": "https://github.com/org/repo", "path": "apps/web"}
    return ApplicationSource(**{**base, **kwargs})  # type: ignore[arg-type]


BASE = source_hash(src())


@pytest.mark.parametrize(
    "variant",
    [
        pytest.param(src(repo_url="git@github.com:org/repo.git"), id="same-repo-other-form"),
        pytest.param(src(repo_url="https://tok@github.com/org/repo"), id="credentials-ignored"),
        pytest.param(src(path="./apps/web/"), id="path-spelling"),
        pytest.param(src(path="/apps/web"), id="leading-slash"),
        pytest.param(src(target_revision="HEAD"), id="empty-revision-is-head"),
        pytest.param(src(name="first"), id="source-name-ignored"),
    ],
)
def test_same_hash(variant: ApplicationSource) -> None:
    assert source_hash(variant) == BASE


@pytest.mark.parametrize(
    "variant",
    [
        pytest.param(src(repo_url="https://github.com/org/other"), id="repo"),
        pytest.param(src(path="apps/api"), id="path"),
        pytest.param(src(target_revision="v1.2.0"), id="revision"),
        pytest.param(src(directory=ApplicationSourceDirectory(recurse=True)), id="recurse"),
        pytest.param(src(directory=ApplicationSourceDirectory(include="*.yaml")), id="include"),
        pytest.param(src(directory=ApplicationSourceDirectory(exclude="x.yaml")), id="exclude"),
        pytest.param(src(directory=ApplicationSourceDirectory()), id="explicit-directory-type"),
        pytest.param(src(kustomize={"namePrefix": "a-"}), id="kustomize-options"),
    ],
)
def test_different_hash(variant: ApplicationSource) -> None:
    assert source_hash(variant) != BASE


def test_invalid_url_is_an_error() -> None:
    with pytest.raises(RepoURLError):
        source_hash(src(repo_url="ftp://x/y"))
