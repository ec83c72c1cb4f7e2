def describe(shapes):
    parts = [s.describe() for s in shapes]
    return ", ".join(parts)
