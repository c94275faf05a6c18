"""nbval on the chapters (``--nbval-lax``: the cells tagged ``nbval-check-output``).

Every cell is marked ``notebooks``, like the regression test's executions of the chapters
(``tests/test_notebooks.py``): ``scripts/test.sh`` runs them one after the other, apart from the
unit tests it runs on two workers, since the chapters' experiments share run folders in
``data/results/quick/``.

With ``GAMELIB_BOOK_BUILD`` (CI: see :mod:`gamelib.book_build`) each cell's outputs are taken from
the book build's execution of the notebook, of the same inputs, instead of a new execution in a
kernel; they are compared with the stored outputs by nbval's own comparison
(``IPyNbCell.compare_outputs`` after ``coalesce_streams``), and a cell whose execution raised
fails as in nbval.
"""

import nbformat
import pytest
from nbval.plugin import IPyNbCell, IPyNbFile, coalesce_streams

from gamelib import book_build


class Notebook(IPyNbFile):
    """nbval's notebook collector; its cells marked ``notebooks``, and read from the book
    build's executed notebook (no kernel) when there is a ``build``."""

    def __init__(self, *args, build=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.build = build

    def collect(self):
        for cell in super().collect():
            if self.build is not None:
                cell = BookCell.from_parent(self, name=cell.name, cell_num=cell.cell_num,
                                            cell=cell.cell, options=cell.options)
            cell.add_marker(pytest.mark.notebooks)
            yield cell

    def setup(self):
        if self.build is None:
            return super().setup()
        executed = nbformat.read(self.build.executed_notebook(self.path.stem), as_version=4)
        self.executed = [cell for cell in executed.cells if cell.cell_type == "code"]
        mine = [cell.source for cell in self.nb.cells if cell.cell_type == "code"]
        if [cell.source for cell in self.executed] != mine:
            raise ValueError(f"the book build executed another version of {self.path.name}")


class BookCell(IPyNbCell):
    """A cell checked on the book build's outputs; the rest of ``IPyNbCell.runtest`` as nbval."""

    def runtest(self):
        if self.options["skip"]:
            pytest.skip()
        outs = coalesce_streams([nbformat.from_dict(output) for output
                                 in self.parent.executed[self.cell_num].outputs])
        errors = [out for out in outs if out.output_type == "error"]
        if errors and not self.options["check_exception"]:
            self.raise_cell_error("Cell execution caused an exception",
                                  "\n" + "\n".join(errors[0].traceback))
        unrun = self.cell.execution_count is None
        if unrun and self.cell.outputs:
            self.raise_cell_error("Unrun reference cell has outputs")
        if self.options["check"] and not unrun \
                and not self.compare_outputs(outs, coalesce_streams(self.cell.outputs)):
            self.raise_cell_error("Cell outputs differ", "\n".join(self.comparison_traceback))


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path, parent):
    collectors = yield
    if any(isinstance(c, IPyNbFile) for c in collectors):
        build = book_build.find()
        collectors = [Notebook.from_parent(parent, path=file_path, build=build)
                      if isinstance(c, IPyNbFile) else c for c in collectors]
    return collectors
