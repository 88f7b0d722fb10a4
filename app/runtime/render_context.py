"""What a renderer may know beyond its own source: the app and its `ref` sources."""

from collections.abc import Mapping
from dataclasses import dataclass

from app.model.application import Application
from app.repo.helm.render import RefCommit


@dataclass(frozen=True, slots=True)
class RenderContext:
    app: Application
    refs: Mapping[str, RefCommit]
    """A multi-source app's `ref` sources by name, at the commits they resolved to."""

    @property
    def project(self) -> str:
        """The app's project (which repository credentials a render may use)."""
        return self.app.spec.project
