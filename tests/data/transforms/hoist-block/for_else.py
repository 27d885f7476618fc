# flags: --require "print"
for i in range(3):
    total += i
else:
    print(total)
# output
print(total)
