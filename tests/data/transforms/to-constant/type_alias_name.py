# flags: --require "tuple" --python 3.12
type Pair = tuple[int, int]
# output
type Pair = tuple[0]
