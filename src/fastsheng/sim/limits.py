"""The limits of a run (n, batch size, number of batches), checked before any work, in integer
arithmetic.

* n <= 1e12 hands (matches): sums of points over a run stay exact in float64, hand ids fit in
  uint64 (a matches-mode hand id is match_id * 65536 + hand number).
* batch size <= 1,000,000 hands or 20,000 matches: what one worker holds in memory (80 bytes a
  hand, about 700 with --tricks; a matches batch reserves room for 48 hands a match).
* batches <= 1,000,000: run.json records each one.
"""

from __future__ import annotations

__all__ = ["MAX_N", "MAX_BATCH_SIZE", "MAX_BATCHES", "check_size", "n_batches", "short_number"]

MAX_N = 10**12
MAX_BATCH_SIZE = {"hands": 1_000_000, "matches": 20_000}
MAX_BATCHES = 1_000_000


def short_number(n: int) -> str:
    """10**12 -> "1e12"; other numbers with _ separators (both parse back with -n)."""
    exp = len(str(n)) - 1
    return f"1e{exp}" if exp >= 4 and n == 10**exp else f"{n:_}"


def n_batches(n: int, batch_size: int) -> int:
    """ceil(n / batch_size) in integers (a float ceil is wrong past 2**53)."""
    return -(-n // batch_size)


def check_size(n: int, batch_size: int, mode: str) -> None:
    """ValueError unless n, the batch size and the number of batches are within the limits."""
    if n > MAX_N:
        raise ValueError(f"-n {n:_} is more than the maximum {short_number(MAX_N)}")
    cap = MAX_BATCH_SIZE.get(mode, MAX_BATCH_SIZE["hands"])
    if batch_size > cap:
        raise ValueError(
            f"--batch-size {batch_size:_} is more than the maximum {short_number(cap)} ({mode})"
        )
    batches = n_batches(n, batch_size)
    if batches > MAX_BATCHES:
        raise ValueError(
            f"-n {n:_} in batches of {batch_size:_} makes {batches:_} batches, more than the "
            f"maximum {short_number(MAX_BATCHES)}; use a larger --batch-size"
        )
