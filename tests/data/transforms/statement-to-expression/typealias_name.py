# flags: --require "needle" --python 3.12
type needle = int
# output
needle
