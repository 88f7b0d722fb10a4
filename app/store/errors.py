"""What can go wrong with the store."""


class StoreError(RuntimeError):
    """Redis is unreachable, or a value is too large or invalid; the text says which and why."""


class LeaseLost(StoreError):
    """A lease expired or was taken over while its holder still worked; the work is handed back."""
