"""The worker runtime connects to real NATS, Redis and the local cluster, and closes cleanly."""

from app.bus import subjects
from app.runtime.runtime import Runtime
from tests.support.gitrepo import GitRepo, manifests


async def test_runtime_opens_streams_and_reaches_the_cluster(runtime: Runtime) -> None:
    streams = {info.config.name for info in await runtime.bus.js.streams_info()}
    assert {subjects.WORK_STREAM, subjects.EVENTS_STREAM} <= streams
    assert await runtime.redis.ping()
    namespace = await runtime.control_plane.get("v1", "Namespace", "default")
    assert namespace["metadata"]["name"] == "default"


async def test_git_repo_commits_are_resolvable_over_file_urls(
    runtime: Runtime, git_repo: GitRepo
) -> None:
    sha = git_repo.commit(
        {
            "app/cm.yaml": manifests(
                {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
            )
        }
    )
    resolved = await runtime.repos.resolve(git_repo.url, "main")
    assert resolved.commit == sha
