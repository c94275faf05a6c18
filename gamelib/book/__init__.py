"""Pages of the book that are computed from the repository's data when the book is built.

* :mod:`gamelib.book.claims` -- the landing figure: the verdict of each of the paper's claims
  under each committed configuration (``claims_by_configuration.csv``);
* :mod:`gamelib.book.artefacts` -- the index of artefacts: every figure, table and number file
  under ``data/``, the chapter that shows it and the command that regenerates it;
* :mod:`gamelib.book.timings` -- the wall times of the committed paper-profile runs.

They read the files, so the pages cannot drift from the data.
"""
