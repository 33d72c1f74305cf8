"""The values of the command line that more than one command module parses (a count such as
``-n 1e6``), and the error a mistake in them raises: kept out of the typer app so that a
command's own module (ladder) uses them without importing the CLI that imports it."""

from __future__ import annotations

import re

from fastsheng.errors import FastshengError
from fastsheng.sim.limits import short_number

__all__ = ["MAX_PARSED", "UserError", "parse_count"]


class UserError(FastshengError):
    """A mistake in the command line."""


_COUNT = re.compile(r"^[+]?(\d[\d_]*)(?:\.(\d*))?(?:[eE]([+]?\d+))?$")


#: Largest number parse_count builds when the caller gives no maximum (a seed): it never
#: computes a huge power of ten to find out that a number is too large.
MAX_PARSED = 2**128 - 1


def parse_count(text: str, what: str = "-n", *, minimum: int = 1, maximum: int = MAX_PARSED) -> int:
    """``"1e6"``, ``"1_000_000"``, ``"1000000"``, ``"2.5e3"`` -> int, in integer arithmetic;
    UserError naming ``what`` for anything that is not a whole number in minimum..maximum."""
    raw = str(text).strip()
    m = _COUNT.match(raw)
    if not m or m.group(1).endswith("_") or "__" in m.group(1):
        if re.match(r"^-\s*\d", raw):
            raise UserError(f"{what} must be at least {minimum}, not {raw}")
        raise UserError(
            f"{what} must be a whole number like 1000000, 1_000_000 or 1e6, not {raw!r}"
        )
    digits, frac, exp = m.group(1).replace("_", ""), m.group(2) or "", int(m.group(3) or 0)
    # exact decimal arithmetic: mantissa digits shifted by the exponent
    frac = frac.rstrip("0")
    if len(frac) > exp:
        raise UserError(f"{what} must be a whole number, not {raw}")
    mantissa = (digits + frac).lstrip("0")
    # digits of the value, known before building it: 1e400 is refused without computing 10**400
    if mantissa and len(mantissa) + exp - len(frac) > len(str(maximum)):
        raise UserError(f"{what} must be at most {short_number(maximum)}, not {raw}")
    value = int(mantissa or "0") * 10 ** (exp - len(frac))
    if value < minimum:
        raise UserError(f"{what} must be at least {minimum}, not {raw}")
    if value > maximum:
        raise UserError(f"{what} must be at most {short_number(maximum)}, not {raw}")
    return value
