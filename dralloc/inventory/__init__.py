"""dralloc.inventory"""
