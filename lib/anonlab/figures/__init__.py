"""The book's figures, one module per topic (matplotlib is imported inside the functions)."""
