# flags: --require "for"
for item in items:
    if item:
        break
else:  # no break
    print("none")
# output
for item in items:
    if item:
        break
