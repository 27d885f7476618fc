# flags: --require "print("
for item in [1, 2]:
    if item:
        break
    print(item)
# output
for item in [1, 2]:
    if item:
        break
    print(item)
