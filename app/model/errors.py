"""The error every model and manifest parser raises for bad input."""


class SpecError(ValueError):
    """Invalid user input, naming where it is and what is wrong with it.

    `source` says which document (an Application name, a file and document index),
    `field` is a dotted path into it (`spec.syncPolicy.retry.limit`), `problem` is what
    to fix. The message reads `<source>: <field>: <problem>`.
    """

    def __init__(self, field: str, problem: str, *, source: str = "") -> None:
        self.field = field
        self.problem = problem
        self.source = source
        super().__init__(self._text())

    def _text(self) -> str:
        where = ": ".join(part for part in (self.source, self.field) if part)
        return f"{where}: {self.problem}" if where else self.problem

    def within(self, source: str) -> "SpecError":
        """The same error attributed to a document (kept if one is already named)."""
        return self if self.source else SpecError(self.field, self.problem, source=source)
