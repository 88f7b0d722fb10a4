"""Files changed between two commits, for webhooks and the poller (manifest-generate-paths)."""

import pytest

from app.repo.errors import RevisionError
from app.repo.generate_paths import files_changed, refresh_paths
from app.repo.service import ZERO_SHA, Repositories
from tests.integration.repo.origin import Origin, manifest


async def test_added_modified_deleted_and_renamed(repos: Repositories, origin: Origin) -> None:
    before = origin.commit(
        "base",
        {
            "apps/web/deploy.yaml": manifest("web"),
            "apps/api/deploy.yaml": manifest("api"),
            "apps/old/cm.yaml": manifest("old"),
            "docs/readme.md": "docs",
        },
    )
    origin.write({"apps/web/deploy.yaml": manifest("web-v2"), "apps/new/cm.yaml": manifest("new")})
    origin.remove("docs/readme.md")
    origin.git("mv", "apps/old/cm.yaml", "apps/api/moved.yaml")
    after = origin.commit("change")
    changed = await repos.changed_files(origin.url, before, after)
    assert changed == {
        "apps/web/deploy.yaml",
        "apps/new/cm.yaml",
        "docs/readme.md",
        "apps/old/cm.yaml",
        "apps/api/moved.yaml",
    }


async def test_push_that_touches_another_app_does_not_refresh(
    repos: Repositories, origin: Origin
) -> None:
    before = origin.commit(
        "base", {"apps/web/a.yaml": manifest("a"), "apps/api/b.yaml": manifest("b")}
    )
    after = origin.commit("api only", {"apps/api/b.yaml": manifest("b2")})
    changed = await repos.changed_files(origin.url, before, after)
    assert changed is not None
    web = refresh_paths(".", ["apps/web"])
    api = refresh_paths(".;/shared", ["apps/api"])
    assert not files_changed(web, changed)
    assert files_changed(api, changed)


async def test_new_branch_means_unknown(repos: Repositories, origin: Origin) -> None:
    after = origin.commit("first", {"a.yaml": manifest("a")})
    assert await repos.changed_files(origin.url, ZERO_SHA, after) is None
    assert await repos.changed_files(origin.url, "", after) is None


async def test_same_commit_changed_nothing(repos: Repositories, origin: Origin) -> None:
    commit = origin.commit("first", {"a.yaml": manifest("a")})
    assert await repos.changed_files(origin.url, commit, commit.upper()) == frozenset()
    assert repos.stats.fetch == 0


async def test_revisions_must_be_full_shas(repos: Repositories, origin: Origin) -> None:
    commit = origin.commit("first", {"a.yaml": manifest("a")})
    with pytest.raises(RevisionError, match="'main' is not a full commit SHA"):
        await repos.changed_files(origin.url, "main", commit)
