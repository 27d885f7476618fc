# flags: --require "sys.exit" --require "import"
import os, sys, json

print(json.dumps(1))
if json.loads("1"):
    sys.exit(0)
# output
import sys, json

print(json.dumps(1))
if json.loads("1"):
    sys.exit(0)
