# flags: --require "return result"
def compute(values):
    scale = 3
    shifted = [v * scale for v in values]
    result = sum(values)
    print(shifted)
    return result
# output
def compute(values):
    result = sum(values)
    return result
