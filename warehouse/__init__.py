"""Storage of scores and rankings: Parquet partitions, the DuckDB catalog, manifests and exports.

The only package that touches disk or DuckDB.  ``warehouse.schema`` is pure and
may be imported by ``transforms``.
"""
