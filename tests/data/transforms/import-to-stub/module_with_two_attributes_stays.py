# flags: --require "print("
import json

print(json.dumps(1), json.loads("2"))
# output
import json

print(json.dumps(1), json.loads("2"))
