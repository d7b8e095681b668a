"""The fuzz suite (issue 11.6): seeded generation of mutated scenarios,
mutated slices and claims, hostile CEL and garbage documents, driven through
the library, the CLI in-process and a subprocess, with every outcome
classified (docs/fuzz.md)."""
