"""dralloc.verify"""
