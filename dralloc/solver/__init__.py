"""dralloc.solver"""
