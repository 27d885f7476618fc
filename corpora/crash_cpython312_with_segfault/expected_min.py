def g():
    with a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a:
        yield
