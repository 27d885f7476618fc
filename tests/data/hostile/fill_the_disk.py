try:
    with open("filler", "wb") as file:
        while True:
            file.write(b"x" * (1 << 20))
except OSError:
    pass
raise AssertionError("hostile")
