# flags: --require "def user" --require "keep"
def helper():
    return 1


def user():
    total = helper() + 1
    keep = 2
    return keep


print(helper())
user()
# output
def user():
    keep = 2
    return keep


user()
