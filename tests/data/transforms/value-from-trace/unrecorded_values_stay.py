# flags: --require "print("
import os

print(os.getcwd is not None, object())
# output
import os

print(True, object())
