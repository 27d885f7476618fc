# flags: --require "print(item, 1)" --require "print(2)" --require "else"
while True:
    item = 3
    print(item, 1)
    break
for step in [2, 5]:
    print(step)
    break
else:
    print(0)
for kept in [1, 2]:
    print(kept)
else:
    print(2)
# output
item = 3
print(item, 1)
print(2)
for kept in [1, 2]:
    print(kept)
else:
    print(2)
