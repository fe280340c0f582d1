"""Figures of the book that need more than a few lines, one module per topic."""
