# flags: --require "print("
for row in [compute(1, 2, 3), compute(4, 5, 6)]:
    print(row, row.name, row.code, row)
# output
row = compute(1, 2, 3)
print(row, row.name, row.code, row)
