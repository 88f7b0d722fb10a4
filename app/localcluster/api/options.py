"""Options of one write, as parsed from the query string and DeleteOptions body."""

from dataclasses import dataclass

from app.localcluster.fieldvalidation import FieldValidation

ORPHAN = "Orphan"
BACKGROUND = "Background"
FOREGROUND = "Foreground"
PROPAGATION_POLICIES = (ORPHAN, BACKGROUND, FOREGROUND)


@dataclass(frozen=True, slots=True)
class WriteOptions:
    field_manager: str = ""
    """Who makes the write, recorded in managedFields (required for server-side apply)."""
    dry_run: bool = False
    """dryRun=All: compute and answer, store nothing, emit nothing."""
    subresource: str = ""
    """"" for the main resource, "status" for the status subresource."""
    force: bool = False
    """Server-side apply only: take ownership of conflicting fields instead of 409."""
    validation: FieldValidation | None = None
    """What unknown fields do (fieldValidation); None for internal writes: not checked."""


@dataclass(frozen=True, slots=True)
class DeleteOptions:
    propagation: str = ""
    """Orphan, Background or Foreground; "" means the type's default (Background)."""
    dry_run: bool = False
    uid: str = ""
    """Precondition: delete only if the object still has this uid."""
    resource_version: str = ""
    """Precondition: delete only if the object is still at this resourceVersion."""
