"""Jsonnet in directory sources through `manifests_for`, as the render worker runs it.

The directory's YAML and its `.jsonnet` files render together (include/exclude as for
YAML); the build environment reaches extVars and tlas, so two apps sharing one source
each get their own render, not one another's cached one.
"""

from app.runtime.manifests import manifests_for
from app.runtime.runtime import Runtime
from tests.integration.workers.render.conftest import config_map, register, source
from tests.support.gitrepo import GitRepo

MAIN = """
function(colour) [
  {apiVersion: 'v1', kind: 'ConfigMap', metadata: {name: std.extVar('app') + '-settings'},
   data: {colour: colour}},
]
"""


async def test_jsonnet_and_yaml_render_together_with_the_build_environment(
    runtime: Runtime, git_repo: GitRepo
) -> None:
    commit = git_repo.commit(
        {
            "apps/web/main.jsonnet": MAIN,
            "apps/web/draft.jsonnet": "error 'not ready'",
            "apps/web/plain.yaml": config_map("plain"),
        }
    )
    jsonnet = {
        "extVars": [{"name": "app", "value": "${ARGOCD_APP_NAME}"}],
        "tlas": [{"name": "colour", "value": "blue"}],
    }
    spec = source(
        git_repo.url, "apps/web", directory={"jsonnet": jsonnet, "exclude": "draft.jsonnet"}
    )
    web = await register(runtime, "web", spec)
    shop = await register(runtime, "shop", spec)

    for_web = await manifests_for(runtime, web)
    for_shop = await manifests_for(runtime, shop)

    assert for_web.revisions == (commit,)
    assert for_web.source_types == ("Directory",)
    assert sorted(o["metadata"]["name"] for o in for_web.manifests) == ["plain", "web-settings"]
    assert sorted(o["metadata"]["name"] for o in for_shop.manifests) == ["plain", "shop-settings"]
    assert for_shop.rendered == 1, "the second app's render is its own, not the first's"
    assert (await manifests_for(runtime, web)).rendered == 0, "and each is cached"
