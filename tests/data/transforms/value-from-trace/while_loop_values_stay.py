# flags: --require "print("
for number in range(3):
    print(number * 10)
# output
for number in range(3):
    print(0)
