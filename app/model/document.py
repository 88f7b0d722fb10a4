"""What Application and AppProject share as top-level Argo CD documents.

Both are `argoproj.io/v1alpha1` custom resources with an ObjectMeta: a document of
another apiVersion or kind is refused, errors name the document they are about
(`Application guestbook: spec.source: is required`), and both are read and written
through the model codec, unknown fields kept.
"""

from typing import Any, ClassVar, Self

from app.model import codec
from app.model.errors import SpecError
from app.model.meta import ObjectMeta

API_VERSION = "argoproj.io/v1alpha1"


class Document:
    """Mixin of a top-level model dataclass with `api_version`, `kind` and `metadata`."""

    KIND: ClassVar[str]
    api_version: str
    kind: str
    metadata: ObjectMeta

    def validate(self, path: str) -> None:
        if self.api_version != API_VERSION:
            raise SpecError("apiVersion", f"expected {API_VERSION}, got {self.api_version!r}")
        if self.kind != self.KIND:
            raise SpecError("kind", f"expected {self.KIND}, got {self.kind!r}")

    @property
    def name(self) -> str:
        return self.metadata.name

    @classmethod
    def error_source(cls, data: Any) -> str:
        """How an error names a document that was not given a name by the caller."""
        return cls.KIND

    @classmethod
    def from_dict(cls, data: Any, *, source: str = "") -> Self:
        """Parse the document; SpecError names it (`source`, else `error_source`), the
        field path and the problem."""
        try:
            return codec.decode(cls, data)
        except SpecError as e:
            raise e.within(source or cls.error_source(data)) from None

    def to_dict(self) -> dict[str, Any]:
        return codec.encode(self)
