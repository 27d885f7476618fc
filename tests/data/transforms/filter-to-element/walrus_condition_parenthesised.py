# flags: --require ":="
found = [x for x in range(3) if (y := x)]
# output
found = [(y := x) for x in range(3) ]
