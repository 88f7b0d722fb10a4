"""Application (`argoproj.io/v1alpha1`): metadata, spec, status and operation, parsed
exactly as Argo CD writes them (the spec's types are in `app_spec`)."""

from dataclasses import dataclass, field
from typing import Any

from app.model import document
from app.model.app_spec import ApplicationSpec
from app.model.document import Document
from app.model.identity import AppRef
from app.model.meta import ObjectMeta
from app.model.operation import Operation
from app.model.status import ApplicationStatus

API_VERSION = document.API_VERSION
KIND = "Application"


@dataclass
class Application(Document):
    KIND = KIND
    metadata: ObjectMeta
    spec: ApplicationSpec
    api_version: str = API_VERSION
    kind: str = KIND
    status: ApplicationStatus = field(default_factory=ApplicationStatus)
    operation: Operation | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def namespace(self) -> str:
        return self.metadata.namespace

    @property
    def ref(self) -> AppRef:
        """This app's identity (ValueError if its namespace or name is no Kubernetes name)."""
        return AppRef(self.metadata.namespace, self.name)

    @classmethod
    def error_source(cls, data: Any) -> str:
        """`Application <name>` when the document names itself."""
        meta = data.get("metadata") if isinstance(data, dict) else None
        name = meta.get("name") if isinstance(meta, dict) else None
        return f"Application {name}" if name else "Application"
