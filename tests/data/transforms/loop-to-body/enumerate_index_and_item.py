# flags: --require "print("
for position, word in enumerate(["a", "b"]):
    print(position, word)
# output
print(0, "a")
