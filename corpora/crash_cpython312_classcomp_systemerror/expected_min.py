class C:
    [super() for name in ()]
