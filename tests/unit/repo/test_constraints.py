"""Semver constraints over tags, rule by rule as Masterminds/semver (Argo CD) applies them."""

import pytest

from app.repo.constraints import (
    MAX_CONSTRAINT_LENGTH,
    highest_tag,
    parse_constraint,
    parse_version,
)

# (rule, constraint, version, allowed)
RULES = [
    ("range-and-space", ">=1.2.0 <2", "1.9.9", True),
    ("range-and-space-upper", ">=1.2.0 <2", "2.0.0", False),
    ("range-and-comma", ">= 1.2.0, < 2", "1.2.0", True),
    ("range-lower", ">=1.2.0 <2", "1.1.9", False),
    ("or", "<1.0.0 || >=3", "3.1.0", True),
    ("or-neither", "<1.0.0 || >=3", "2.0.0", False),
    ("wildcard-patch", "1.2.*", "1.2.7", True),
    ("wildcard-patch-other-minor", "1.2.*", "1.3.0", False),
    ("wildcard-x", "1.x", "1.9.0", True),
    ("wildcard-x-major", "1.x", "2.0.0", False),
    ("star-any", "*", "9.9.9", True),
    ("equal-partial-is-tilde", "=1.2", "1.2.5", True),
    ("tilde-minor", "~1.2", "1.2.9", True),
    ("tilde-minor-next", "~1.2", "1.3.0", False),
    ("tilde-patch", "~1.2.3", "1.2.2", False),
    ("tilde-patch-same-minor", "~1.2.3", "1.2.8", True),
    ("tilde-major", "~1", "1.7.0", True),
    ("tilde-major-next", "~1", "2.0.0", False),
    ("tilde-arrow", "~>1.2", "1.2.1", True),
    ("caret-major", "^1.2.3", "1.9.0", True),
    ("caret-major-next", "^1.2.3", "2.0.0", False),
    ("caret-zero-minor", "^0.2.3", "0.2.9", True),
    ("caret-zero-minor-next", "^0.2.3", "0.3.0", False),
    ("caret-zero-zero", "^0.0.3", "0.0.4", False),
    ("caret-zero", "^0", "0.9.0", True),
    ("greater-partial", ">1.2", "1.2.9", False),
    ("greater-partial-next-minor", ">1.2", "1.3.0", True),
    ("greater-major-only", ">1", "1.9.9", False),
    ("less-equal-partial", "<=1.2", "1.2.9", True),
    ("less-equal-partial-next", "<=1.2", "1.3.0", False),
    ("not-equal", "!=1.2.3", "1.2.4", True),
    ("not-equal-same", "!=1.2.3", "1.2.3", False),
    ("not-equal-wildcard", "!=1.2.x", "1.2.5", False),
    ("not-equal-wildcard-other", "!=1.2.x", "1.3.0", True),
    ("hyphen-range", "1.2 - 1.4.5", "1.4.5", True),
    ("hyphen-range-above", "1.2 - 1.4.5", "1.4.6", False),
    ("v-prefix", ">=v1.2.0", "1.3.0", True),
    ("prerelease-excluded", ">=1.2.0", "1.3.0-rc.1", False),
    ("prerelease-excluded-wildcard", "1.x", "1.3.0-beta", False),
    ("prerelease-wanted", ">=1.3.0-alpha", "1.3.0-rc.1", True),
    ("prerelease-order", ">=1.3.0-rc.2", "1.3.0-rc.1", False),
    ("build-metadata-ignored", "=1.2.3", "1.2.3+build.7", True),
]


@pytest.mark.parametrize(
    ("constraint", "version", "allowed"), [r[1:] for r in RULES], ids=[r[0] for r in RULES]
)
def test_constraint_rules(constraint: str, version: str, allowed: bool) -> None:
    parsed = parse_constraint(constraint)
    assert parsed is not None, f"{constraint!r} should parse"
    v = parse_version(version)
    assert v is not None
    assert parsed.allows(v) is allowed


@pytest.mark.parametrize(
    "text", ["main", "HEAD", "release-1.0", "feature/x", ">=", "1.2.3.4", ">=1.2 <", "abc1234"]
)
def test_not_a_constraint(text: str) -> None:
    assert parse_constraint(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("v1.2.3", (1, 2, 3)),
        ("1.2", (1, 2, 0)),
        ("v2", (2, 0, 0)),
        ("2021.01.05", (2021, 1, 5)),
        ("1.2.3-rc.1+meta", (1, 2, 3)),
    ],
)
def test_lenient_versions(text: str, expected: tuple[int, int, int]) -> None:
    v = parse_version(text)
    assert v is not None
    assert (v.major, v.minor, v.patch) == expected


@pytest.mark.parametrize("text", ["release", "1.2.3.4", "v", "1.2.3-01", "1..2", "x1.2"])
def test_not_versions(text: str) -> None:
    assert parse_version(text) is None


def test_highest_matching_tag_wins() -> None:
    constraint = parse_constraint(">=1.2.0 <2")
    assert constraint is not None
    tags = ["v1.1.0", "v1.2.0", "v1.10.0", "v1.9.3", "v2.0.0", "v1.11.0-rc.1", "latest"]
    match = highest_tag(constraint, tags)
    assert match is not None
    assert match.tag == "v1.10.0"


def test_no_tag_matches() -> None:
    constraint = parse_constraint("~3.0")
    assert constraint is not None
    assert highest_tag(constraint, ["v1.0.0", "v2.0.0"]) is None


@pytest.mark.parametrize(
    "text", [">=1" + " " * 250 + "!", ">=1 " * 60 + "!", "1" * 300], ids=["spaces", "many", "long"]
)
def test_hostile_input_is_refused(text: str) -> None:
    """What a refusal costs is measured by `python -m bench hostile_inputs`."""
    assert parse_constraint(text) is None


def test_a_constraint_over_the_length_limit_is_refused_before_parsing() -> None:
    under = ", ".join([">=1.0.0"] * 28)
    over = f"{under}, >=1.0.0"
    assert len(under) <= MAX_CONSTRAINT_LENGTH < len(over)
    assert parse_constraint(under) is not None
    assert parse_constraint(over) is None
