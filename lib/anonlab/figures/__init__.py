"""Figures of the chapters that need more than a few lines, one module per topic."""
