"""Pure transformations: dump parsers, validation, scores to ballots, rank tables, pairwise counts."""
