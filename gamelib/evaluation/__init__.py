"""Evaluation functions.

Submodules
----------
:mod:`gamelib.evaluation.shogi`
    The linear evaluation of 5×5 shogi positions over the PGLeaf paper's features (material,
    piece squares, relative positions of two pieces, sliding-line blockers, mobility, king
    mobility), with separate weights for the side to move's and the other side's features and a
    side-to-move (tempo) weight; Table-1 initial weights (the antisymmetric evaluation) and
    ``.npz`` parameter files.
"""
