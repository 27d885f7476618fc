# flags: --require "call("
def f():
    while True:
        # comment before
        x = call(1,
                 2)  # after
        break
# output
while True:
    # comment before
    x = call(1,
             2)  # after
    break
