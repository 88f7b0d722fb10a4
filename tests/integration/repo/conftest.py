"""Fixtures: an origin repository on disk and a `Repositories` with a fresh cache."""

from pathlib import Path

import pytest

from app.repo.service import Repositories
from app.repo.settings import RepoSettings
from tests.integration.repo.origin import Origin


@pytest.fixture
def origin(tmp_path: Path) -> Origin:
    return Origin(tmp_path / "origin")


@pytest.fixture
def settings(tmp_path: Path) -> RepoSettings:
    return RepoSettings(cache_dir=tmp_path / "cache", allow_local=True, network_timeout=20)


@pytest.fixture
def repos(settings: RepoSettings) -> Repositories:
    return Repositories(settings)
