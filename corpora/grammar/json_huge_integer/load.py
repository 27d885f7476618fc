"""Load a JSON document with the standard library, as an application reading its data would."""

import json
import sys

with open(sys.argv[1], encoding="utf-8") as file:
    json.load(file)
