# flags: --require "split"
SEPARATOR = ","
print("a,b".split(SEPARATOR), SEPARATOR.join("ab"))
# output
print("a,b".split(","), ",".join("ab"))
