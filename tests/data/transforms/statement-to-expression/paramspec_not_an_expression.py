# flags: --require "needle" --python 3.12
def f[**needle]():
    pass
# output
def f[**needle]():
    pass
