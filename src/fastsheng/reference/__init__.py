"""Plain-Python reference implementation of the rules (docs/rules.md): the oracle the Cython
core is tested against. Clarity over speed."""

from fastsheng.reference.play import TRUMP, Context, Shape, Unit

__all__ = ["TRUMP", "Context", "Shape", "Unit"]
