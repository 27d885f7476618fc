# flags: --require "def compute" --require "print("
def compute(first_value, second_value):
    total_sum = first_value + second_value
    return total_sum


print(compute(1, 2))
# output
def compute(b, c):
    d = b + c
    return d


print(compute(1, 2))
