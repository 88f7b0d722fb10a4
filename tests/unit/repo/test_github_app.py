"""Which API a GitHub App's token is exchanged at (GitHub, or Enterprise under /api/v3)."""

import pytest

from app.model.repository_secret import RepoCreds
from app.repo.githubapp import api_base

CASES = [
    ("", "https://api.github.com"),
    ("https://ghe.example.com", "https://ghe.example.com/api/v3"),
    ("https://ghe.example.com/", "https://ghe.example.com/api/v3"),
    ("https://ghe.example.com/api/v3", "https://ghe.example.com/api/v3"),
    ("https://api.ghe.example.com", "https://api.ghe.example.com"),
]


@pytest.mark.parametrize(("configured", "expected"), CASES)
def test_api_base(configured: str, expected: str) -> None:
    assert api_base(RepoCreds(github_app_enterprise_base_url=configured)) == expected
