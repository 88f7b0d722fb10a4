"""Which files make up a plain-directory source, in which order (Argo CD's findManifests)."""

import pytest

from app.model.app_spec import ApplicationSource, ApplicationSourceDirectory
from app.repo.directory import DirectoryOptions, select_manifests
from app.repo.errors import LimitExceeded, PathError, RenderError
from app.repo.sourcetype import SourceType, source_type
from tests.unit.repo.trees import Link, Spec, Submodule, make_tree

APP: Spec = {
    "app/b.yaml": "b",
    "app/a.yml": "a",
    "app/c.json": "{}",
    "app/README.md": "docs",
    "app/values.txt": "x",
    "app/sub/d.yaml": "d",
    "app/sub/deeper/e.yaml": "e",
    "app/.hidden/f.yaml": "f",
    "app/.dotfile.yaml": "g",
    "app/a-b.yaml": "h",
    "app/config.json": "{}",
    "other/z.yaml": "z",
}


def selected(spec: Spec, options: DirectoryOptions, app_dir: str = "app") -> list[str]:
    tree = make_tree(spec)
    selection = select_manifests(
        tree, app_dir, options, field="spec.source", max_bytes=1_000_000, max_hops=16
    )
    return [f.path for f in selection.files]


# (rule, options, expected paths in order)
RULES = [
    (
        "top-level-only-name-order",
        DirectoryOptions(),
        [
            "app/.dotfile.yaml",
            "app/a-b.yaml",
            "app/a.yml",
            "app/b.yaml",
            "app/c.json",
            "app/config.json",
        ],
    ),
    (
        "recurse-depth-first-skips-hidden-dirs",
        DirectoryOptions(recurse=True),
        [
            "app/.dotfile.yaml",
            "app/a-b.yaml",
            "app/a.yml",
            "app/b.yaml",
            "app/c.json",
            "app/config.json",
            "app/sub/d.yaml",
            "app/sub/deeper/e.yaml",
        ],
    ),
    (
        "recurse-with-hidden",
        DirectoryOptions(recurse=True, include="*.yaml", include_hidden=True),
        [
            "app/.dotfile.yaml",
            "app/.hidden/f.yaml",
            "app/a-b.yaml",
            "app/b.yaml",
            "app/sub/d.yaml",
            "app/sub/deeper/e.yaml",
        ],
    ),
    (
        "include-star-crosses-directories",
        DirectoryOptions(recurse=True, include="*.json"),
        ["app/c.json", "app/config.json"],
    ),
    (
        "exclude-braces",
        DirectoryOptions(recurse=True, exclude="{config.json,sub/*}"),
        ["app/.dotfile.yaml", "app/a-b.yaml", "app/a.yml", "app/b.yaml", "app/c.json"],
    ),
    (
        "exclude-wins-over-include",
        DirectoryOptions(include="*.json", exclude="c.json"),
        ["app/config.json"],
    ),
    (
        "include-extensions-braces",
        DirectoryOptions(include="{*.yml,c.json}"),
        ["app/a.yml", "app/c.json"],
    ),
]


@pytest.mark.parametrize(("options", "expected"), [r[1:] for r in RULES], ids=[r[0] for r in RULES])
def test_selection(options: DirectoryOptions, expected: list[str]) -> None:
    assert selected(APP, options) == expected


def test_hidden_directory_is_reported_as_skipped() -> None:
    tree = make_tree(APP)
    selection = select_manifests(
        tree, "app", DirectoryOptions(recurse=True), field="s", max_bytes=10**6, max_hops=16
    )
    assert [(s.path, s.reason) for s in selection.skipped] == [
        ("app/.hidden", "hidden directory (name starts with '.')")
    ]


def test_root_directory() -> None:
    assert selected({"x.yaml": "x", "d/y.yaml": "y"}, DirectoryOptions(), app_dir="") == ["x.yaml"]


def test_symlinked_manifest_reads_its_target() -> None:
    tree = make_tree({"app/link.yaml": Link("../shared/base.yaml"), "shared/base.yaml": "base"})
    selection = select_manifests(
        tree, "app", DirectoryOptions(), field="s", max_bytes=100, max_hops=16
    )
    [only] = selection.files
    assert (only.path, only.content_path) == ("app/link.yaml", "shared/base.yaml")


def test_symlinked_directory_is_not_entered_but_reported() -> None:
    tree = make_tree({"app/dir": Link("../shared"), "shared/base.yaml": "base", "app/x.yaml": "x"})
    selection = select_manifests(
        tree, "app", DirectoryOptions(recurse=True), field="s", max_bytes=100, max_hops=16
    )
    assert [f.path for f in selection.files] == ["app/x.yaml"]
    assert selection.skipped[0].path == "app/dir"


def test_dangling_manifest_link_is_an_error_naming_the_file() -> None:
    tree = make_tree({"app/gone.yaml": Link("missing.yaml"), "app/x.yaml": "x"})
    with pytest.raises(
        RenderError, match=r"'app/gone\.yaml' is a symlink to 'missing\.yaml', which"
    ):
        select_manifests(tree, "app", DirectoryOptions(), field="s", max_bytes=100, max_hops=16)


def test_excluded_dangling_link_is_harmless() -> None:
    spec: Spec = {"app/gone.yaml": Link("missing.yaml"), "app/x.yaml": "x"}
    assert selected(spec, DirectoryOptions(exclude="gone.yaml")) == ["app/x.yaml"]


def test_jsonnet_files_are_listed_apart_with_include_and_exclude_applied() -> None:
    tree = make_tree(
        {
            "app/main.jsonnet": "{}" * 100,
            "app/skip.jsonnet": "{}",
            "app/lib.libsonnet": "{}",
            "app/x.yaml": "x",
            "app/sub/more.jsonnet": "{}",
        }
    )
    options = DirectoryOptions(recurse=True, exclude="skip.jsonnet")
    selection = select_manifests(tree, "app", options, field="s", max_bytes=100, max_hops=16)
    assert selection.jsonnet == ("app/main.jsonnet", "app/sub/more.jsonnet")
    assert [f.path for f in selection.files] == ["app/x.yaml"]
    assert selection.total_bytes == 1, "Jsonnet sources do not count as manifest bytes"


def test_submodule_is_skipped_with_reason() -> None:
    tree = make_tree({"app/vendored.yaml": Submodule(), "app/x.yaml": "x"})
    selection = select_manifests(
        tree, "app", DirectoryOptions(), field="s", max_bytes=100, max_hops=16
    )
    assert [s.reason for s in selection.skipped] == ["submodule (submodules are not fetched)"]


def test_combined_size_is_checked_before_reading() -> None:
    tree = make_tree({"app/a.yaml": "a" * 60, "app/b.yaml": "b" * 60})
    with pytest.raises(LimitExceeded, match="total 120 bytes, more than the limit of 100"):
        select_manifests(tree, "app", DirectoryOptions(), field="s", max_bytes=100, max_hops=16)


def test_bad_glob_names_the_field() -> None:
    tree = make_tree(APP)
    with pytest.raises(PathError, match=r"^spec.source.directory.include: pattern '\{a' "):
        select_manifests(
            tree,
            "app",
            DirectoryOptions(include="{a"),
            field="spec.source",
            max_bytes=100,
            max_hops=16,
        )


def test_options_from_the_application() -> None:
    directory = ApplicationSourceDirectory(recurse=True, include=" *.yaml ", exclude="")
    assert DirectoryOptions.of(directory, include_hidden=False) == DirectoryOptions(True, "*.yaml")
    assert DirectoryOptions.of(None, include_hidden=True) == DirectoryOptions(include_hidden=True)


def source(**kwargs: object) -> ApplicationSource:
    return ApplicationSource(repo_url="https://h/r", path="app", **kwargs)  # type: ignore[arg-type]


# (rule, files, source, type)
TYPES = [
    ("plain", {"app/x.yaml": "x"}, source(), SourceType.DIRECTORY),
    ("kustomization", {"app/kustomization.yaml": "x"}, source(), SourceType.KUSTOMIZE),
    ("kustomization-capital", {"app/Kustomization": "x"}, source(), SourceType.KUSTOMIZE),
    ("chart", {"app/Chart.yaml": "x"}, source(), SourceType.HELM),
    (
        "explicit-directory-wins",
        {"app/Chart.yaml": "x"},
        source(directory=ApplicationSourceDirectory()),
        SourceType.DIRECTORY,
    ),
    ("explicit-chart", {"app/x.yaml": "x"}, source(chart="nginx"), SourceType.HELM),
    ("explicit-plugin", {"app/x.yaml": "x"}, source(plugin={"name": "p"}), SourceType.PLUGIN),
]


@pytest.mark.parametrize(
    ("files", "src", "expected"), [r[1:] for r in TYPES], ids=[r[0] for r in TYPES]
)
def test_source_type(files: Spec, src: ApplicationSource, expected: SourceType) -> None:
    assert source_type(src, make_tree(files), "app", field="spec.source") is expected


def test_two_explicit_types_are_an_error() -> None:
    src = source(kustomize={"namePrefix": "x"}, directory=ApplicationSourceDirectory())
    with pytest.raises(RenderError, match="multiple source types are set"):
        source_type(src, make_tree({"app/x.yaml": "x"}), "app", field="spec.source")


@pytest.mark.parametrize(
    "pattern", ["../../**", "../*.yaml", "{*.yaml,../other/*.yaml}", "/etc/*.yaml", "a/../../b"]
)
def test_a_pattern_that_leaves_the_path_is_refused_naming_the_field(pattern: str) -> None:
    tree = make_tree(APP)
    with pytest.raises(PathError, match=r"^spec.source.directory.include: .* leaves source.path"):
        select_manifests(
            tree,
            "app",
            DirectoryOptions(recurse=True, include=pattern),
            field="spec.source",
            max_bytes=100,
            max_hops=16,
        )


@pytest.mark.parametrize("pattern", ["*.yaml", "sub/**", "{a..b,*.json}", "x..y/*.yaml"])
def test_patterns_inside_the_path_are_accepted(pattern: str) -> None:
    tree = make_tree(APP)
    select_manifests(
        tree,
        "app",
        DirectoryOptions(recurse=True, include=pattern),
        field="spec.source",
        max_bytes=10_000,
        max_hops=16,
    )
