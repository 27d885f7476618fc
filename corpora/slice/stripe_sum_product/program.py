a = int(input())
b = int(input())
total = 0
product = 1
while a <= b:
    total += a
    product *= a
    a += 1
print("sum:", total)
print("product:", product)
