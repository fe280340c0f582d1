"""Figures of the book, one module per topic."""
