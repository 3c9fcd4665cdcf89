"""scorehouse: a warehouse of benchmark scores and the rankings computed from them.

The repository's stage folders are this package's subpackages: ``scorehouse.warehouse``
(storage and the DuckDB catalog), ``scorehouse.transforms`` (parsers, ballots),
``scorehouse.aggregators`` (the methods), ``scorehouse.reports`` and ``scorehouse.flows``.
Importing ``scorehouse`` loads none of them: each is imported when first used.
"""
