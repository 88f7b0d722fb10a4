"""manifest-generate-paths: which pushes refresh an app (SEMANTICS §8, Argo CD util/app/path)."""

import pytest

from app.repo.errors import PathError
from app.repo.generate_paths import files_changed, refresh_paths


@pytest.mark.parametrize(
    ("annotation", "sources", "expected"),
    [
        (".", ["apps/web"], ("apps/web",)),
        ("/shared;.", ["apps/web"], ("shared", "apps/web")),
        ("../common", ["apps/web"], ("apps/common",)),
        (
            "manifests/*.yaml",
            ["apps/web", "apps/api"],
            ("apps/web/manifests/*.yaml", "apps/api/manifests/*.yaml"),
        ),
        (";;", ["apps/web"], ()),
        ("", ["apps/web"], ()),
        (None, ["apps/web"], ()),
        ("/", ["x"], ("",)),
    ],
)
def test_refresh_paths(
    annotation: str | None, sources: list[str], expected: tuple[str, ...]
) -> None:
    assert refresh_paths(annotation, sources) == expected


# (rule, paths, changed files, refresh?)
RULES = [
    ("file-under-path", ("apps/web",), ["apps/web/deploy.yaml"], True),
    ("exact-file", ("apps/web/deploy.yaml",), ["apps/web/deploy.yaml"], True),
    ("sibling-prefix-is-not-under", ("apps/web",), ["apps/web2/deploy.yaml"], False),
    ("other-path", ("apps/web",), ["docs/readme.md"], False),
    ("glob-in-segment", ("apps/*/kustomization.yaml",), ["apps/api/kustomization.yaml"], True),
    ("glob-does-not-cross-slash", ("apps/*.yaml",), ["apps/web/x.yaml"], False),
    ("leading-slash-in-change", ("apps/web",), ["/apps/web/x.yaml"], True),
    ("root-covers-all", ("",), ["anything"], True),
    ("unknown-changes-refresh", ("apps/web",), [], True),
    ("no-paths-refresh", (), ["docs/readme.md"], True),
]


@pytest.mark.parametrize(
    ("paths", "changed", "refresh"), [r[1:] for r in RULES], ids=[r[0] for r in RULES]
)
def test_files_changed(paths: tuple[str, ...], changed: list[str], refresh: bool) -> None:
    assert files_changed(paths, changed) is refresh


def test_malformed_glob_names_the_annotation() -> None:
    with pytest.raises(PathError, match="manifest-generate-paths"):
        files_changed(("apps/[web",), ["apps/x"])
