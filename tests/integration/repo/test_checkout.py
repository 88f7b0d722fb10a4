"""Work dirs: private, random, removed after; paths resolved and confined inside them."""

import asyncio
import os
import stat
from pathlib import Path

import pytest

from app.repo.errors import LimitExceeded, PathError, SymlinkError
from app.repo.service import Repositories
from app.repo.settings import RepoSettings
from tests.integration.repo.origin import Origin, manifest


@pytest.fixture
def commit(origin: Origin) -> str:
    origin.write({"apps/web/deploy.yaml": manifest("web"), "apps/web/values.yaml": "x: 1\n"})
    origin.link("apps/web/current", "../api")
    origin.write({"apps/api/deploy.yaml": manifest("api")})
    return origin.commit("checkout")


async def test_checkout_is_private_complete_and_removed(
    repos: Repositories, origin: Origin, commit: str
) -> None:
    async with repos.checkout(origin.url, commit) as work:
        container = work.root.parent
        assert stat.S_IMODE(container.stat().st_mode) == 0o700
        assert (work.root / "apps/web/deploy.yaml").read_text() == manifest("web")
        assert os.readlink(work.root / "apps/web/current") == "../api"
        assert not (work.root / ".git").exists()
    assert not container.exists()


async def test_concurrent_checkouts_do_not_share_directories(
    repos: Repositories, origin: Origin, commit: str
) -> None:
    inside = asyncio.Event()
    roots: list[Path] = []

    async def render(marker: str) -> None:
        async with repos.checkout(origin.url, commit) as work:
            roots.append(work.root)
            (work.root / "apps/web/generated.yaml").write_text(marker)
            if len(roots) == 2:
                inside.set()
            await asyncio.wait_for(inside.wait(), timeout=10)
            assert (work.root / "apps/web/generated.yaml").read_text() == marker

    await asyncio.gather(render("first"), render("second"))
    first, second = roots
    assert first != second
    assert first.parent.name != second.parent.name
    assert not first.exists()
    assert not second.exists()


async def test_work_dir_is_removed_on_error_even_if_read_only(
    repos: Repositories, origin: Origin, commit: str
) -> None:
    with pytest.raises(RuntimeError, match="tool failed"):
        async with repos.checkout(origin.url, commit) as work:
            container = work.root.parent
            (work.root / "apps/web").chmod(0o500)
            raise RuntimeError("tool failed")
    assert not container.exists()


async def test_resolve_inside_a_work_dir(repos: Repositories, origin: Origin, commit: str) -> None:
    async with repos.checkout(origin.url, commit) as work:
        values = work.resolve(
            "values.yaml", field="spec.source.helm.valueFiles[0]", base="apps/web"
        )
        assert values == work.root / "apps/web/values.yaml"
        assert work.resolve("/apps/api", field="f") == work.root / "apps/api"
        assert (
            work.resolve("apps/web/current/deploy.yaml", field="f")
            == work.root / "apps/api/deploy.yaml"
        )
        with pytest.raises(
            PathError, match=r"^spec.source.helm.valueFiles\[0\]: '../../../etc/passwd' leaves"
        ):
            work.resolve(
                "../../../etc/passwd", field="spec.source.helm.valueFiles[0]", base="apps/web"
            )


async def test_commit_with_escaping_link_is_never_checked_out(
    repos: Repositories, origin: Origin, settings: RepoSettings, commit: str
) -> None:
    origin.link("evil.yaml", "/etc/passwd")
    bad = origin.commit("evil")
    with pytest.raises(SymlinkError):
        async with repos.checkout(origin.url, bad):
            pytest.fail("checked out a commit with an absolute symlink")
    assert list((settings.cache_dir / "work").iterdir()) == []


async def test_oversized_commit_is_not_checked_out(
    tmp_path: Path, origin: Origin, commit: str
) -> None:
    small = Repositories(
        RepoSettings(cache_dir=tmp_path / "c", allow_local=True, max_tree_bytes=10)
    )
    with pytest.raises(LimitExceeded, match="max_tree_bytes"):
        async with small.checkout(origin.url, commit):
            pytest.fail("checked out an oversized commit")
