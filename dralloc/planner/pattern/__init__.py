"""The pattern (cutting-stock) model for one-device demand: per-unit layouts enumerated from the real devices, a CP-SAT model over layout counts, split into independent parts."""
