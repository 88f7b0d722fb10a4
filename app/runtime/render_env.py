"""The build environment of one render: Argo CD's `ARGOCD_APP_*` for an app's source.

Jsonnet variables and plugins see the same values, built here from the Application:
the app's instance name (`<namespace>_<name>` outside the control-plane namespace, as
Argo CD names it), its destination namespace, the commit and the source's own fields.
A plugin also gets the destination cluster's version and API versions (`plugin_build`).
"""

from dataclasses import replace

from app.engine.build_env import BuildTarget, build_environment
from app.model.app_spec import ApplicationSource
from app.model.application import Application
from app.repo.plugins.environment import kube_version
from app.runtime.capabilities import capabilities_for
from app.runtime.runtime import Runtime


def build_target(
    rt: Runtime, app: Application, source: ApplicationSource, commit: str
) -> BuildTarget:
    """What Argo CD's build environment says about this render (no cluster facts)."""
    return BuildTarget(
        app_name=rt.instance_name(app),
        app_namespace=app.spec.destination.namespace,
        revision=commit,
        source_path=source.path,
        source_repo_url=source.repo_url,
        source_target_revision=source.target_revision,
    )


async def plugin_build(
    rt: Runtime, app: Application, source: ApplicationSource, commit: str
) -> dict[str, str]:
    """The build environment with `KUBE_VERSION` and `KUBE_API_VERSIONS` of the destination."""
    capabilities = await capabilities_for(rt, app)
    target = replace(
        build_target(rt, app, source, commit),
        kube_version=kube_version(capabilities.kube_version),
        api_versions=capabilities.api_versions,
    )
    return build_environment(target)
