# flags: --require "needle" --python 3.12
type Alias[T] = list[needle]
# output
list[needle]
