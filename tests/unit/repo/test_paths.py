"""The confined path resolver and the commit-wide symlink scan (docs/threats.md, Rendering)."""

import pytest

from app.repo.errors import PathError, SymlinkError
from app.repo.paths import resolve_path
from app.repo.symlinks import check_symlinks
from app.repo.tree import NodeKind
from tests.unit.repo.trees import Link, make_tree

TREE = make_tree(
    {
        "apps/web/deploy.yaml": "a",
        "apps/api/deploy.yaml": "b",
        "shared/base.yaml": "c",
        "apps/web/current": Link("../api"),
        "apps/web/up": Link(".."),
        "apps/web/base.yaml": Link("../../shared/base.yaml"),
        "apps/web/loop-a": Link("loop-b"),
        "apps/web/loop-b": Link("loop-a"),
    }
)

# (rule, path, base, resolved)
RESOLVES = [
    ("relative", "apps/web", "", "apps/web"),
    ("leading-slash-is-repo-root", "/apps/web", "apps/api", "apps/web"),
    ("root", "/", "", ""),
    ("dot", ".", "apps", "apps"),
    ("empty", "", "", ""),
    ("dotdot-inside", "apps/web/../api", "", "apps/api"),
    ("relative-to-base", "../api/deploy.yaml", "apps/web", "apps/api/deploy.yaml"),
    ("follows-directory-link", "apps/web/current/deploy.yaml", "", "apps/api/deploy.yaml"),
    ("follows-file-link", "apps/web/base.yaml", "", "shared/base.yaml"),
    ("link-up-then-down", "apps/web/up/api", "", "apps/api"),
    ("missing-is-not-an-error", "apps/nope", "", "apps/nope"),
]


@pytest.mark.parametrize(
    ("path", "base", "resolved"), [r[1:] for r in RESOLVES], ids=[r[0] for r in RESOLVES]
)
def test_resolves(path: str, base: str, resolved: str) -> None:
    assert resolve_path(TREE, path, field="source.path", base=base) == resolved


# (rule, path, base, problem)
ESCAPES = [
    ("dotdot-other", "../other", "", "leaves the repository"),
    ("absolute-dotdot", "/../etc", "", "leaves the repository"),
    ("leave-and-come-back", "../repo/apps", "", "leaves the repository"),
    ("from-base", "../../../x", "apps/web", "leaves the repository"),
    ("via-link-up", "apps/web/up/../..", "", "through the symlink 'apps/web/up'"),
    ("loop", "apps/web/loop-a", "", "more than 16 symlinks"),
]


@pytest.mark.parametrize(
    ("path", "base", "problem"), [r[1:] for r in ESCAPES], ids=[r[0] for r in ESCAPES]
)
def test_escapes_name_the_field(path: str, base: str, problem: str) -> None:
    with pytest.raises(PathError) as info:
        resolve_path(TREE, path, field="spec.source.path", base=base)
    assert str(info.value).startswith(f"spec.source.path: {path!r} ")
    assert problem in str(info.value)
    assert info.value.field == "spec.source.path"


def test_kind_after_resolution() -> None:
    assert TREE.kind(resolve_path(TREE, "apps/web/current", field="f")) is NodeKind.DIR
    assert TREE.kind(resolve_path(TREE, "apps/web/base.yaml", field="f")) is NodeKind.FILE


# (rule, links, offending link, problem)
SCAN = [
    ("absolute", {"a": Link("/etc/passwd")}, "a", "is absolute"),
    ("dotdot", {"dir/a": Link("../../secret")}, "dir/a", "leaves the repository"),
    ("leaves-and-comes-back", {"a": Link("../repo/x.yaml")}, "a", "leaves the repository"),
    (
        "chain-through-directory-link",
        {"sub/up": Link(".."), "sub/x": Link("up/../y")},
        "sub/x",
        "leaves the repository through the symlink 'sub/up'",
    ),
    ("dangling-outside", {"a": Link("../../nowhere/at/all")}, "a", "leaves the repository"),
    ("loop", {"a": Link("b"), "b": Link("a")}, "a", "more than 16 symlinks"),
]


@pytest.mark.parametrize(
    ("links", "link", "problem"), [r[1:] for r in SCAN], ids=[r[0] for r in SCAN]
)
def test_scan_refuses(links: dict[str, Link], link: str, problem: str) -> None:
    tree = make_tree({"x.yaml": "x", "y": "y", **links})
    with pytest.raises(SymlinkError) as info:
        check_symlinks(tree, max_hops=16, repo="https://h/r")
    assert info.value.link == link
    assert problem in str(info.value)
    assert "https://h/r at cccccccccccc" in str(info.value)


def test_scan_accepts_inside_links_and_dangling_inside() -> None:
    tree = make_tree(
        {
            "a/x.yaml": "x",
            "a/link.yaml": Link("x.yaml"),
            "b/dir": Link("../a"),
            "b/chain": Link("dir/link.yaml"),
            "b/dangling": Link("../a/missing.yaml"),
        }
    )
    check_symlinks(tree, max_hops=16, repo="r")


def test_chain_depth_is_bounded() -> None:
    chain = {f"l{i}": Link(f"l{i + 1}") for i in range(5)}
    tree = make_tree({"l5": "end", **chain})
    check_symlinks(tree, max_hops=5, repo="r")
    with pytest.raises(SymlinkError, match="more than 4 symlinks"):
        check_symlinks(tree, max_hops=4, repo="r")
