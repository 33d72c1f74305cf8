"""Kitty odds in SQL, with DuckDB (optional dependency: pip install 'fastsheng[duckdb]').

Question: the capture probability by the kind of the last trick's lead, and the mean bonus,
computed straight from the Parquet files in SQL, with Wilson 95% intervals written in SQL too.

Method: DuckDB reads RUN/hands/*.parquet directly (no pandas in between); the Wilson interval for
k successes in n trials is (k + z²/2 ± z sqrt(k (n - k) / n + z²/4)) / (n + z²), z = 1.959964.

Run: python analysis/kitty_sql_duckdb.py RUN
"""

from __future__ import annotations

import sys
from pathlib import Path

QUERY = """
WITH h AS (
    SELECT CAST({lead} AS VARCHAR) AS lead_kind,
           CAST({captured} AS INTEGER) AS captured,
           {bonus} AS bonus
    FROM read_parquet('{parts}')
),
g AS (
    SELECT lead_kind, COUNT(*) AS n, CAST(SUM(captured) AS BIGINT) AS k,
           AVG(CASE WHEN captured = 1 THEN bonus END) AS bonus_if_captured
    FROM h GROUP BY lead_kind
)
SELECT lead_kind, n, k, k / n AS p,
       (k + {z2} / 2 - {z} * sqrt(k * (n - k) / n + {z2} / 4)) / (n + {z2}) AS lo95,
       (k + {z2} / 2 + {z} * sqrt(k * (n - k) / n + {z2} / 4)) / (n + {z2}) AS hi95,
       bonus_if_captured
FROM g ORDER BY n DESC
"""

# the simulator's column names (see docs/sim.md)
COLUMNS = {"lead": "last_lead_kind", "captured": "kitty_captured", "bonus": "kitty_bonus"}


def main(argv: list[str] | None = None):
    import duckdb

    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        sys.exit("usage: python analysis/kitty_sql_duckdb.py RUN")
    run = Path(argv[0])
    z = 1.959963984540054
    sql = QUERY.format(
        parts=(run / "hands" / "part-*.parquet").as_posix(), z=z, z2=z * z, **COLUMNS
    )
    con = duckdb.connect()
    table = con.execute(sql).df()
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    return table


if __name__ == "__main__":
    main()
