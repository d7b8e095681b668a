"""Generated clusters and demand (``dralloc generate``): GPU nodes with MIG counter sets from the profile tables, NICs, multi-host TPU blocks."""
