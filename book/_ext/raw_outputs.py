"""The executed notebooks in ``_build/jupyter_execute/`` keep the outputs the kernel gave.

myst-nb merges a cell's stream outputs for display (``nb_merge_streams``) with a function that
changes the outputs it is given: the notebook it then saves holds the first stream already merged
(stripped, the later pieces appended) next to the later pieces themselves. The tests check the
book's execution with nbval's comparison on that saved notebook (``gamelib.book_build``), which
needs the kernel's outputs; so the merge is made to work on a copy. The pages look the same.
"""

import copy

from myst_nb.core import render, utils


def coalesce_copies(outputs):
    """myst-nb's merge of the streams (:func:`myst_nb.core.utils.coalesce_streams`) on a copy."""
    return utils.coalesce_streams(copy.deepcopy(outputs))


def setup(app):
    render.coalesce_streams = coalesce_copies
    return {"parallel_read_safe": True, "parallel_write_safe": True}
