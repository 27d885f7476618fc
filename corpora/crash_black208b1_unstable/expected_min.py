assert split("""
""") == [[0, ], 0]
