"""gamelib: game engines and evaluation learners for the book."""

__version__ = "0.1.0"
