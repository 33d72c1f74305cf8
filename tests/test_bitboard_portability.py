"""The core's bit counts on every compiler: the plain-C branch of ``_bitboard.pxd`` (for compilers
with neither GCC's builtins nor MSVC's intrinsics) agrees with the builtins the Linux build uses.

The C text is read from the header itself, compiled twice with the compiler that built Python
(once as is, once with ``FS_PORTABLE_BITS``) and run over the same words. The MSVC branch is
compiled only by the release workflow's Windows job; no MSVC is reachable here.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

HEADER = Path(__file__).resolve().parents[1] / "src" / "fastsheng" / "_bitboard.pxd"

# words with one bit, the top and bottom bits, runs, and a few scattered patterns
WORDS = [1 << k for k in range(64)] + [
    (1 << 64) - 1,
    0x8000000000000001,
    0x00FF00FF00FF00FF,
    0x4802401200900,
    0x40020010008,
    0x123456789ABCDEF,
    0xFFFFFFFF00000000,
    3,
]

MAIN = r"""
#include <stdio.h>
int main(void) {
    unsigned long long x;
    while (scanf("%llx", &x) == 1)
        printf("%d %d %d\n", fs_popcount(x), fs_lsb(x), fs_msb(x));
    return 0;
}
"""


def _header_c() -> str:
    text = HEADER.read_text(encoding="utf-8")
    block = re.search(r'cdef extern from \*:\n    """\n(.*?)\n    """', text, re.S).group(1)
    return "\n".join(line.removeprefix("    ") for line in block.splitlines())


def _compiler() -> list[str]:
    cc = shlex.split(sysconfig.get_config_var("CC") or "cc")
    if not shutil.which(cc[0]):
        pytest.skip(f"no C compiler ({cc[0]}) to build the check with")
    return cc


def _run(tmp_path: Path, cc: list[str], defines: list[str]) -> list[tuple[int, int, int]]:
    src = tmp_path / "bits.c"
    exe = tmp_path / ("bits" + "".join(d.replace("-D", "_") for d in defines))
    src.write_text(_header_c() + MAIN, encoding="utf-8")
    subprocess.run([*cc, "-O1", *defines, str(src), "-o", str(exe)], check=True)
    out = subprocess.run(
        [str(exe)], input="\n".join(f"{w:x}" for w in WORDS), capture_output=True, text=True
    ).stdout
    return [tuple(map(int, line.split())) for line in out.splitlines()]


def test_the_portable_bit_counts_agree_with_the_builtins(tmp_path):
    cc = _compiler()
    builtin = _run(tmp_path, cc, [])
    portable = _run(tmp_path, cc, ["-DFS_PORTABLE_BITS"])
    expected = [(bin(w).count("1"), (w & -w).bit_length() - 1, w.bit_length() - 1) for w in WORDS]
    assert builtin == expected
    assert portable == expected
