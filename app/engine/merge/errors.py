"""The errors a patch or an apply raises, each naming where in the object it went wrong.

`PatchError` is bad input: the request changes nothing and the user sees which field and
why. `ApplyConflict` is a server-side apply that would overwrite fields another manager
owns; its `conflicts` are spelled like the API server's 409 causes so that a client
(kubectl, Argo CD) can show them unchanged.

Inside the recursive walkers a `Fault` carries the problem up the stack and collects the
path one segment per frame (a `try` costs nothing until it raises), so the happy path
never builds path strings.
"""

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

_SHOWN_VALUE_CHARS = 40


def shown(value: object) -> str:
    """A value for an error message, cut short: messages must not echo whole documents."""
    text = repr(value)
    if len(text) > _SHOWN_VALUE_CHARS:
        text = text[: _SHOWN_VALUE_CHARS - 3] + "..."
    return text


class PatchError(ValueError):
    """A patch (or applied configuration) that cannot be applied as written.

    `field` is where, spelled `spec.template.spec.containers[0].name` (empty for the
    whole document); `problem` says what is wrong and what to do. The message reads
    `<kind of patch>: <field>: <problem>`.
    """

    def __init__(self, field: str, problem: str, *, patch_type: str = "patch") -> None:
        self.field = field
        self.problem = problem
        self.patch_type = patch_type
        where = f"{patch_type}: {field}" if field else patch_type
        super().__init__(f"{where}: {problem}")


class ManagedFieldsError(PatchError):
    """`metadata.managedFields` that cannot be read (bad entry, bad FieldsV1)."""


@dataclass(frozen=True, slots=True)
class Conflict:
    """One field another manager owns with a different value than the one applied.

    `field` is spelled like the API server's cause (`.spec.replicas`,
    `.spec.template.spec.containers[name="web"].image`).
    """

    manager: str
    field: str
    operation: str = "Apply"
    api_version: str = ""
    subresource: str = ""

    @property
    def owner(self) -> str:
        """The manager as the API server prints it: `"kubectl" using apps/v1`."""
        text = f'"{self.manager}"'
        if self.subresource:
            text += f' with subresource "{self.subresource}"'
        if self.operation == "Update":
            text += f" using {self.api_version}"
        return text

    @property
    def message(self) -> str:
        """The cause message of a FieldManagerConflict: `conflict with "kubectl" ...`."""
        return f"conflict with {self.owner}"


class ApplyConflict(Exception):
    """A server-side apply that would change fields other managers own.

    Re-apply with force to take ownership, remove the fields from the applied
    configuration, or apply the owner's values. The message is the API server's.
    """

    def __init__(self, conflicts: list[Conflict]) -> None:
        self.conflicts = conflicts
        super().__init__(_conflict_message(conflicts))


def _conflict_message(conflicts: list[Conflict]) -> str:
    if len(conflicts) == 1:
        only = conflicts[0]
        return f"Apply failed with 1 conflict: {only.message}: {only.field}"
    by_owner: dict[str, list[str]] = {}
    for conflict in conflicts:
        by_owner.setdefault(conflict.owner, []).append(conflict.field)
    lines: list[str] = []
    for owner in sorted(by_owner):
        lines.append(f"conflicts with {owner}:")
        lines.extend(f"- {path}" for path in by_owner[owner])
    return f"Apply failed with {len(conflicts)} conflicts: " + "\n".join(lines)


@dataclass(slots=True)
class Fault(Exception):
    """Internal: a problem found deep in a walk; frames add their segment on the way up."""

    problem: str
    segments: list[str] = field(default_factory=list)

    def at(self, segment: str | int) -> "Fault":
        """Record that the fault happened under `segment` (a key or a list index)."""
        self.segments.append(f"[{segment}]" if isinstance(segment, int) else str(segment))
        return self

    def where(self) -> str:
        """The path from the document root, `spec.containers[0].name`."""
        text = ""
        for segment in reversed(self.segments):
            text += segment if segment.startswith("[") or not text else "." + segment
        return text

    def error(self, patch_type: str) -> PatchError:
        return PatchError(self.where(), self.problem, patch_type=patch_type)


def depth_guarded(patch_type: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Turn a document nested past Python's recursion limit into a PatchError.

    The walkers build new objects and never mutate their inputs, so unwinding from any
    depth leaves everything as it was.
    """

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(function)
        def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return function(*args, **kwargs)
            except RecursionError:
                raise PatchError(
                    "", "the document nests too deeply", patch_type=patch_type
                ) from None

        return guarded

    return decorate
