"""Evaluation functions.

Submodules
----------
:mod:`gamelib.evaluation.shogi`
    The linear evaluation of 5×5 shogi positions over the PGLeaf paper's features (material,
    piece squares, relative positions of two pieces, sliding-line blockers, mobility, king
    mobility) and a side-to-move (tempo) term, antisymmetric in every other block, with Table-1
    initial weights and ``.npz`` parameter files.
"""
