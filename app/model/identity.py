"""An Application's identity: its namespace and name, validated as Kubernetes names.

Every layer names an app by `AppRef`: subjects and Redis keys are built from it, the
workers and the API pass it around, `Application.ref` gives it for a parsed resource.
"""

import re
from dataclasses import dataclass

_NAMESPACE = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
_PART = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_NAME = re.compile(rf"{_PART}(\.{_PART})*")
_NAME_MAX = 253


@dataclass(frozen=True, slots=True, order=True)
class AppRef:
    """An Application by namespace and name, both validated as Kubernetes names."""

    namespace: str
    name: str

    def __post_init__(self) -> None:
        if not _NAMESPACE.fullmatch(self.namespace):
            raise ValueError(
                f"invalid Application namespace {self.namespace!r}: a namespace is at most "
                "63 lowercase letters, digits and '-', starting and ending alphanumeric"
            )
        if len(self.name) > _NAME_MAX or not _NAME.fullmatch(self.name):
            raise ValueError(
                f"invalid Application name {self.name!r} in namespace {self.namespace}: a name "
                "is at most 253 lowercase letters, digits, '-' and '.', each dot-separated "
                "part starting and ending alphanumeric"
            )

    @classmethod
    def parse(cls, text: str) -> "AppRef":
        """`namespace/name` -> AppRef (ValueError says what is wrong)."""
        namespace, sep, name = text.partition("/")
        if not sep:
            raise ValueError(f"invalid Application reference {text!r}: write it namespace/name")
        return cls(namespace, name)

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"
