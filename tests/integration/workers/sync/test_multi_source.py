"""A two-source app synced end to end records the commit of each source (SEMANTICS §9).

Its syncResult and history entry carry `revisions` and `sources`, one per source in
order, on the Application resource as in Redis, so a rollback and the auto-sync decision
know exactly which commits were deployed.
"""

from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from app.engine.history import rollback_operation
from app.model.app_spec import ApplicationSource
from app.model.application import Application
from app.model.sync import OperationPhase
from app.runtime.runtime import Runtime
from tests.integration.workers.sync.conftest import CONTROL, Shop, config_map
from tests.support.gitrepo import GitRepo, manifests
from tests.support.helm_charts import shop_chart


@dataclass
class TwoSourceShop(Shop):
    """The shop app with a second source: `values/` of another repository."""

    values: GitRepo | None = None

    def application(self) -> Application:
        assert self.values is not None
        base = super().application()
        sources = [
            ApplicationSource(repo_url=self.repo.url, path="deploy", target_revision="main"),
            ApplicationSource(repo_url=self.values.url, path="values", target_revision="main"),
        ]
        return replace(base, spec=replace(base.spec, source=None, sources=sources))


@pytest.fixture
def values_repo(tmp_path: Path) -> Iterator[GitRepo]:
    repo = GitRepo.create(tmp_path / "values")
    yield repo
    repo.close()


async def test_a_two_source_sync_records_both_commits(
    runtime: Runtime, git_repo: GitRepo, values_repo: GitRepo, sync_workers: None
) -> None:
    shop = TwoSourceShop(runtime, git_repo, values=values_repo)
    values_commit = values_repo.commit({"values/extra.yaml": manifests(config_map("extra"))})
    deploy_commit = await shop.deploy(config_map("main"))
    state = await shop.sync()
    assert state.phase is OperationPhase.SUCCEEDED, state.message
    commits = [deploy_commit, values_commit]
    assert state.sync_result is not None
    assert (state.sync_result.revision, state.sync_result.revisions) == ("", commits)
    assert [s.repo_url for s in state.sync_result.sources] == [git_repo.url, values_repo.url]
    assert [h.revisions for h in await runtime.history.load(shop.ref)] == [commits]
    resource = await runtime.control_plane.get(
        "argoproj.io/v1alpha1", "Application", shop.name, CONTROL
    )
    assert resource["status"]["operationState"]["syncResult"]["revisions"] == commits
    assert [h["revisions"] for h in resource["status"]["history"]] == [commits]
    for name in ("main", "extra"):
        assert (await shop.live("ConfigMap", name))["metadata"]["name"] == name


@dataclass
class HelmRefShop(Shop):
    """The shop as a Helm chart whose values come from a `ref` source."""

    values: GitRepo | None = None

    def application(self) -> Application:
        assert self.values is not None
        base = super().application()
        sources = [
            ApplicationSource(
                repo_url=self.repo.url,
                path="charts/shop",
                target_revision="main",
                helm={"valueFiles": ["$values/prod.yaml"], "skipTests": True},
            ),
            ApplicationSource(repo_url=self.values.url, target_revision="main", ref="values"),
        ]
        return replace(base, spec=replace(base.spec, source=None, sources=sources))


async def test_a_rollback_of_a_helm_app_with_a_ref_source_restores_both_commits(
    runtime: Runtime, git_repo: GitRepo, values_repo: GitRepo, sync_workers: None
) -> None:
    shop = HelmRefShop(runtime, git_repo, values=values_repo)
    git_repo.commit(shop_chart("charts/shop"))
    gold = values_repo.commit({"prod.yaml": "colour: gold\n"})
    chart = await shop.deploy()
    assert (await shop.sync()).phase is OperationPhase.SUCCEEDED
    silver = values_repo.commit({"prod.yaml": "colour: silver\n"})
    assert (await shop.sync()).phase is OperationPhase.SUCCEEDED
    assert (await shop.live("ConfigMap", "shop-shop"))["data"]["colour"] == "silver"

    app = shop.application()
    app.status.history = await runtime.history.load(shop.ref)
    state = await shop.finished(await shop.start(rollback_operation(app, 0, username="tester")))

    assert state.phase is OperationPhase.SUCCEEDED, state.message
    assert state.sync_result is not None and state.sync_result.revisions == [chart, gold]
    assert (await shop.live("ConfigMap", "shop-shop"))["data"]["colour"] == "gold"
    history = await runtime.history.load(shop.ref)
    assert [h.revisions for h in history] == [[chart, gold], [chart, silver], [chart, gold]]
    assert [s.ref for s in history[-1].sources] == ["", "values"]
