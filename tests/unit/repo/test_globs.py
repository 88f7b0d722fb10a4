"""include/exclude globs (gobwas dialect) and manifest-generate-paths globs (filepath.Match)."""

import pytest

from app.repo import globs
from app.repo.errors import PathError
from app.repo.globs import compile_directory_glob, compile_path_glob

# (rule, pattern, path, matches)
DIRECTORY = [
    ("star-crosses-slash", "*.yaml", "sub/dir/x.yaml", True),
    ("star-suffix", "*.yaml", "x.yml", False),
    ("braces", "{config.json,env-usw2/*}", "env-usw2/deploy.yaml", True),
    ("braces-first", "{config.json,env-usw2/*}", "config.json", True),
    ("braces-none", "{config.json,env-usw2/*}", "other.json", False),
    ("braces-extensions", "*.{yml,yaml}", "a/b.yml", True),
    ("nested-braces", "{a,b{1,2}}.yaml", "b2.yaml", True),
    ("question", "?.yaml", "a.yaml", True),
    ("question-one-char", "?.yaml", "ab.yaml", False),
    ("class", "[ab].yaml", "b.yaml", True),
    ("class-negated", "[!ab].yaml", "a.yaml", False),
    ("class-range", "v[0-9].yaml", "v7.yaml", True),
    ("escape", "\\*.yaml", "*.yaml", True),
    ("escape-literal-only", "\\*.yaml", "x.yaml", False),
    ("whole-path", "deploy.yaml", "sub/deploy.yaml", False),
    ("double-star", "**/secret*", "a/b/secret.yaml", True),
    ("comma-outside-braces-is-literal", "a,b.yaml", "a,b.yaml", True),
]


@pytest.mark.parametrize(
    ("pattern", "path", "matches"), [r[1:] for r in DIRECTORY], ids=[r[0] for r in DIRECTORY]
)
def test_directory_glob(pattern: str, path: str, matches: bool) -> None:
    assert compile_directory_glob(pattern, field="f").matches(path) is matches


PATHS = [
    ("star-stops-at-slash", "apps/*.yaml", "apps/sub/x.yaml", False),
    ("star-in-segment", "apps/*/x.yaml", "apps/web/x.yaml", True),
    ("no-braces", "{a,b}", "a", False),
    ("literal-braces", "{a,b}", "{a,b}", True),
    ("caret-negation", "[^a]", "b", True),
]


@pytest.mark.parametrize(
    ("pattern", "path", "matches"), [r[1:] for r in PATHS], ids=[r[0] for r in PATHS]
)
def test_path_glob(pattern: str, path: str, matches: bool) -> None:
    assert compile_path_glob(pattern, field="f").matches(path) is matches


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("{a,b", "unclosed '{'"),
        ("[ab", "unclosed '['"),
        ("x\\", "lone backslash"),
        ("[z-a]", "inverted range"),
        ("{a,b}" * 9, "more than 256 alternatives"),
        ("x" * 2000, "longer than 1024"),
    ],
)
def test_malformed_pattern_names_the_field(pattern: str, problem: str) -> None:
    with pytest.raises(PathError) as info:
        compile_directory_glob(pattern, field="spec.source.directory.include")
    assert str(info.value).startswith("spec.source.directory.include: ")
    assert problem in str(info.value)


def test_pathological_pattern_costs_at_most_text_times_pattern(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A backtracking matcher is exponential on this; the cost: `python -m bench hostile_inputs`."""
    comparisons = 0
    compare = globs._token_matches

    def counted(token: globs._Token, ch: str) -> bool:
        nonlocal comparisons
        comparisons += 1
        return compare(token, ch)

    monkeypatch.setattr(globs, "_token_matches", counted)
    glob = compile_directory_glob("*a*a*a*a*a*a*a*a*a*a*a*a*b", field="f")
    text = "a" * 4000
    assert not glob.matches(text)
    (tokens,) = glob.alternatives
    assert 0 < comparisons <= len(text) * len(tokens)
