"""Write input.json: an inventory of 60 items, one of which has a 4,400-digit quantity.

Python 3.11 limits int() of a decimal string to 4,300 digits (CVE-2020-10735), and
json.load raises ValueError ("Exceeds the limit (4300 digits) for integer string
conversion") on the whole document because of that one value.
"""

import json
import random
import sys
from pathlib import Path

rng = random.Random(17)
items = []
for number in range(60):
    items.append({
        "id": number,
        "name": f"part-{number:03d}",
        "tags": rng.sample(["steel", "brass", "spare", "boxed", "fragile", "heavy"], 2),
        "price": round(rng.uniform(1, 500), 2),
        "quantity": rng.randint(0, 900),
        "active": rng.random() < 0.8,
        "supplier": None if rng.random() < 0.2 else {"name": f"supplier {rng.randint(1, 9)}", "country": "DE"},
    })
text = json.dumps({"inventory": items, "version": 3}, indent=2)
huge = "7" * 4400
text = text.replace('"quantity": %d,' % items[37]["quantity"], '"quantity": ' + huge + ",", 1)
Path(sys.argv[1] if len(sys.argv) > 1 else ".", "input.json").write_text(text + "\n", encoding="utf-8")
