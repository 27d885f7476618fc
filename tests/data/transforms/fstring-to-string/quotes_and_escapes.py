# flags: --require "print("
print(f'{a}"{b}"\n', rf"\d{c}")
# output
print('""\n', '\\d')
