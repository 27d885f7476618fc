# flags: --require "print("
scale = 10
for number in range(3):
    print(number * scale)
index = 0
while index < 3:
    index += 1
    print(index * scale)
# output
scale = 10
for number in range(3):
    None
index = 0
while index < 3:
    index += 1
    print(index * 10)
