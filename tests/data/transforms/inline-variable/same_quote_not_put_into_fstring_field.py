# flags: --require "INDENT"
INDENT = "  "
print(f"{INDENT * 2}x")
# output
INDENT = "  "
print(f"{INDENT * 2}x")
