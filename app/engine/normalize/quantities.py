"""Kubernetes resource quantities in their canonical spelling, so equal amounts compare equal.

The API server stores a quantity in canonical form: `1000m` comes back as `1`, `1024Mi`
as `1Gi`, `0.5` as `500m`, `1.5Gi` as `1536Mi`. A target written one way and the live
object read back the other way are the same amount, so both sides are canonicalized
before diffing (as Argo CD does by re-marshalling known types).

The rules follow apimachinery's `Quantity.String()`: the suffix family the user chose
(binary `Ki..Ei`, decimal `n..E`, or an exponent `e3`) is kept; a binary amount that is
not a whole multiple of 1024 (or is below 1024) is written in decimal; the largest suffix
that keeps the number whole is used; precision stops at nano (smaller fractions round up).
"""

import re
from fractions import Fraction
from functools import lru_cache

_QUANTITY = re.compile(
    r"^(?P<sign>[+-]?)(?P<number>\d+(?:\.\d*)?|\.\d+)"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$"
)
_BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL = {"n": -3, "u": -2, "m": -1, "": 0, "k": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6}
_DECIMAL_SUFFIX = {power: suffix for suffix, power in _DECIMAL.items()}
_NANO = Fraction(1, 10**9)
_MAX_EXPONENT = 30


@lru_cache(maxsize=4096)
def canonical_quantity(text: str) -> str | None:
    """The canonical spelling of a quantity, or None if `text` is not a quantity."""
    match = _QUANTITY.match(text.strip())
    if match is None:
        return None
    suffix = match.group("suffix") or ""
    number = Fraction(match.group("number"))
    if suffix[:1] in ("e", "E"):
        exponent = int(suffix[1:])
        if abs(exponent) > _MAX_EXPONENT:
            return None
        amount = number * Fraction(10) ** exponent
    elif suffix in _BINARY:
        amount = number * Fraction(1024) ** _BINARY[suffix]
    else:
        amount = number * Fraction(1000) ** _DECIMAL[suffix]
    negative = match.group("sign") == "-" and amount != 0
    amount = _round_up_to_nano(amount)
    if suffix in _BINARY:
        text_out = _binary(amount)
    elif suffix[:1] in ("e", "E"):
        text_out = _exponent(amount)
    else:
        text_out = _decimal(amount)
    return ("-" if negative else "") + text_out


def _round_up_to_nano(amount: Fraction) -> Fraction:
    scaled = amount / _NANO
    whole = -(-scaled.numerator // scaled.denominator)
    return whole * _NANO


def _binary(amount: Fraction) -> str:
    if amount.denominator != 1 or amount < 1024:
        return _decimal(amount)
    value = amount.numerator
    power = 0
    while power < 6 and value % 1024 == 0:
        value //= 1024
        power += 1
    suffix = next(s for s, p in _BINARY.items() if p == power) if power else ""
    return f"{value}{suffix}"


def _whole_at(amount: Fraction, power: int, base: int) -> int | None:
    scaled = amount / Fraction(base) ** power
    return scaled.numerator if scaled.denominator == 1 else None


def _decimal(amount: Fraction) -> str:
    if amount == 0:
        return "0"
    for power in range(6, -4, -1):
        whole = _whole_at(amount, power, 1000)
        if whole is not None:
            return f"{whole}{_DECIMAL_SUFFIX[power]}"
    raise AssertionError("amounts are rounded to nano, so power -3 is always whole")


def _exponent(amount: Fraction) -> str:
    if amount == 0:
        return "0"
    for power in range(18, -10, -3):
        whole = _whole_at(amount, power, 10)
        if whole is not None:
            return f"{whole}e{power}" if power else str(whole)
    raise AssertionError("amounts are rounded to nano, so 1e-9 is always whole")
