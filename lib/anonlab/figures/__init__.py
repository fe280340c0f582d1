"""The book's figures that are not specific to one chapter's claims, one module per topic."""
