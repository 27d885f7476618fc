# flags: --require "print("
def build(size, fill=0):
    cells = [fill] * size
    return cells


grid = build(3)
print(grid)
# output
size = 3
fill = 0
cells = [fill] * size
grid = cells
print(grid)
