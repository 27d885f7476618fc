# flags: --require "dumps(" --require "json"
import json

print(json.dumps(1), json.dumps(2), json.dumps([3]))
# output
from json import dumps

print(dumps(1), dumps(2), dumps([3]))
