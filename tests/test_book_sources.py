"""The hand-written book sources parse: the bibliography (every cited key present, none twice)."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_bibliography_parses_and_every_cited_key_exists() -> None:
    import pybtex.database

    text = (ROOT / "book" / "references.bib").read_text()
    keys = re.findall(r"^@\w+\{([^,]+),", text, flags=re.M)
    assert len(keys) == len(set(keys)), "a bibliography key appears twice"
    bib = pybtex.database.parse_string(text, "bibtex")  # raises on a syntax error
    assert set(bib.entries) == set(keys)
    sources = [p.read_text() for p in (ROOT / "book").glob("*.md")]
    for nb in (ROOT / "notebooks").glob("*.ipynb"):
        cells = json.loads(nb.read_text())["cells"]
        sources += ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    cited = {k.strip() for s in sources for m in re.finditer(r"\{cite[tp]?\}`([^`]+)`", s)
             for k in m.group(1).split(",")}
    assert not cited - set(keys), f"cited but not in references.bib: {sorted(cited - set(keys))}"
