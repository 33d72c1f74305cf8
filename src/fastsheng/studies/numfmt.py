"""Numbers as people read them: an estimate with its interval in as many decimals as keep the
interval visible, p-values that do not underflow to 0, and no negative zero.

Fixed decimals collapse intervals (``0.2% [0.2%, 0.2%]``) or hide that an interval excludes 0
(``-0.0% [-0.0%, -0.0%]``); here the number of decimals follows the interval's width, and an
interval that excludes 0 keeps enough decimals that neither end prints as 0.
"""

from __future__ import annotations

import math

__all__ = ["decimals_for", "fmt_fixed", "fmt_interval", "fmt_p", "P_FLOOR"]

P_FLOOR = 1e-15  # below this a p-value is printed as "< 1e-15" (double precision's honest limit)
_MAX_DECIMALS = 12


def decimals_for(est: float, lo: float, hi: float) -> int:
    """Decimals that show the interval ``[lo, hi]``'s width with two significant digits (so
    neither end collapses onto the estimate; three significant digits of the estimate when the
    width is 0 or unknown), and keep both ends of an interval that excludes 0 away from 0."""
    width = hi - lo if math.isfinite(lo) and math.isfinite(hi) else float("nan")
    if width > 0:
        d = max(0, 1 - math.floor(math.log10(width)))
    elif math.isfinite(est) and est != 0:
        d = max(0, 2 - math.floor(math.log10(abs(est))))
    else:
        d = 0
    if math.isfinite(lo) and math.isfinite(hi) and (lo > 0 or hi < 0):
        while d < _MAX_DECIMALS and (round(lo, d) == 0 or round(hi, d) == 0):
            d += 1
    return min(d, _MAX_DECIMALS)


def fmt_fixed(v: float, decimals: int, pct: bool = False) -> str:
    """``v`` with ``decimals`` decimals and thousands separators; never "-0"; ``pct`` appends
    "%" (``v`` is already in percent)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    if math.isinf(v):
        return "∞" if v > 0 else "-∞"
    text = f"{float(v):,.{decimals}f}"
    if text.startswith("-") and float(text[1:].replace(",", "")) == 0:
        text = text[1:]
    return text + ("%" if pct else "")


def fmt_interval(
    est: float, lo: float, hi: float, digits: int | None = None, pct: bool = False
) -> str:
    """``est [lo, hi]``: ``pct`` shows shares as percentages; ``digits`` fixes the decimals,
    ``None`` picks them from the interval (:func:`decimals_for`)."""
    if est is None or not math.isfinite(est):
        return "n/a"
    scale = 100.0 if pct else 1.0
    e, a, b = est * scale, lo * scale, hi * scale
    d = decimals_for(e, a, b) if digits is None else digits
    return f"{fmt_fixed(e, d, pct)} [{fmt_fixed(a, d, pct)}, {fmt_fixed(b, d, pct)}]"


def fmt_p(p: float) -> str:
    """A p-value: "< 1e-15" below :data:`P_FLOOR`, scientific below 0.001, else 3 decimals."""
    if p is None or not math.isfinite(p):
        return "n/a"
    if p < P_FLOOR:
        return f"< {P_FLOOR:.0e}"
    if p < 0.001:
        return f"{p:.1e}"
    return f"{p:.3f}"
