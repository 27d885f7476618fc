# flags: --require "print("
def scale(values, factor):
    return [v * factor for v in values]


result = scale([1, 2], 3)
print(result, len(result), "ab".upper())
# output
def scale(values, factor):
    return [3, 6]


result = [3, 6]
print(result, 2, 'AB')
