# flags: --require "end="
result = print(
    "a",
    "b",
    sep="-",
    end="!",
)
# output
result = print(
    end="!",
)
