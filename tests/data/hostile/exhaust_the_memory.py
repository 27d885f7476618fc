chunks = []
try:
    while True:
        chunks.append(bytearray(1 << 26))
except MemoryError:
    chunks.clear()
raise AssertionError("hostile")
