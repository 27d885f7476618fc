# flags: --require "print("
import re

PATTERN = re.compile("a+")
print(PATTERN.match("aaa"))
# output
import re

print(re.compile("a+").match("aaa"))
