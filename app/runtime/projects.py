"""The project check every stage makes before it touches anything of an app's.

An Application reaches the workers from the cluster, not only through the API, so each
stage that would fetch, render, compare, apply or delete on an app's behalf asks its
AppProject first (`app.engine.appstatus.spec_problems`): may an app in that namespace
use the project (`sourceNamespaces`), these repositories, this destination, the cluster
it resolves to (a cluster Secret's `project` scopes a cluster to one project). A refused app
is fetched from no repository and touches no cluster; compare shows the refusal as an
InvalidSpecError condition, the other stages log it and stop.
"""

from dataclasses import dataclass

from app.engine.appstatus import spec_problems
from app.model.application import Application
from app.model.project import AppProject
from app.runtime.runtime import Runtime


@dataclass(frozen=True, slots=True)
class ProjectVerdict:
    """The app's project as stored (None: it does not exist) and why it refuses the app."""

    project: AppProject | None
    problems: tuple[str, ...]

    @property
    def refused(self) -> bool:
        return bool(self.problems) or self.project is None

    @property
    def message(self) -> str:
        return "; ".join(self.problems)


async def project_verdict(rt: Runtime, app: Application) -> ProjectVerdict:
    """Read the app's project and judge the app's namespace, sources and destination."""
    control = rt.settings.control_plane.namespace
    project = await rt.apps.get_project(control, app.spec.project)
    cluster = rt.clusters.destination_cluster(app.spec.destination)
    problems = spec_problems(app, project, control_namespace=control, cluster=cluster)
    return ProjectVerdict(project, tuple(problems))
