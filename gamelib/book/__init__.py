"""Pages of the book that are computed from the repository's data when the book is built.

* :mod:`gamelib.book.claims` -- the landing figure: the verdict of each of the paper's claims
  under each committed configuration (``claims_by_configuration.csv``), and the same verdicts
  as a table for *Results at a glance*;
* :mod:`gamelib.book.results` -- *Results at a glance*: the sources' tables beside ours;
* :mod:`gamelib.book.profiles` -- *Using this book*: every chapter's and experiment's profile
  sizes side by side, read from the code;
* :mod:`gamelib.book.artefacts` -- the index of artefacts: every figure, table and number file
  under ``data/``, the chapter that shows it, the command that regenerates it and a link that
  downloads it;
* :mod:`gamelib.book.timings` -- the wall times of the committed paper-profile runs;
* :mod:`gamelib.book.pgleaf_pages` -- the PGLeaf part's configurations, read once, and the
  verdict sentences, dependence table and readable labels its pages compute from them.

They read the files, so the pages cannot drift from the data.
"""
