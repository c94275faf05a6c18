"""Bit counts of integer board masks as single LLVM intrinsics (one POPCNT/TZCNT/LZCNT
instruction where the CPU has it), for numba code: the Othello bitboards and the shogi
evaluation's mobility counts. Integer results: the same on every CPU.
"""

from __future__ import annotations

from numba import types
from numba.extending import intrinsic

__all__ = ["ctpop", "cttz", "ctlz"]


@intrinsic
def ctpop(typingctx, x):
    """LLVM ``ctpop`` of an integer cast to uint64 (one POPCNT instruction where the CPU has it)."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.uint64(x)

    def codegen(context, builder, signature, args):
        v = context.cast(builder, args[0], x, types.uint64)
        return builder.ctpop(v)

    return sig, codegen


@intrinsic
def cttz(typingctx, x):
    """LLVM ``cttz`` of an integer cast to uint64 (index of the lowest set bit; 64 for zero)."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.uint64(x)

    def codegen(context, builder, signature, args):
        v = context.cast(builder, args[0], x, types.uint64)
        return builder.cttz(v, context.get_constant(types.boolean, False))

    return sig, codegen


@intrinsic
def ctlz(typingctx, x):
    """LLVM ``ctlz`` of an integer cast to uint64 (number of leading zero bits; 64 for zero)."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.uint64(x)

    def codegen(context, builder, signature, args):
        v = context.cast(builder, args[0], x, types.uint64)
        return builder.ctlz(v, context.get_constant(types.boolean, False))

    return sig, codegen
