"""dralloc.encoders"""
