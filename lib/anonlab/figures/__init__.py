"""Figures shared by several chapters, one module per topic (:mod:`.diffix`)."""
