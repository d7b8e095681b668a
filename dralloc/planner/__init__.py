"""dralloc.planner"""
