"""The joint CP-SAT model for general demand (several claims, shared claims, constraints): per-node encodings stacked, split into independent parts, verified."""
