def f():
    lambda: k
    k = 0
    [locals() for k in [0]]
f()
