"""Figures of the chapters, one module per topic; nothing in the library depends on them."""
