"""A catalog with aliases; one alias points nowhere."""

CATALOG = {
    "item_1": "lamp",
    "item_2": "desk",
    "item_5": "chair",
}
ALIASES = {"light": "item_1", "table": "item_2", "seat": "item_5", "couch": "item_42"}


def lookup(table, key):
    return table[key]


def describe(alias):
    key = lookup(ALIASES, alias)
    name = lookup(CATALOG, key)
    return f"{alias} -> {key} ({name})"


def main():
    lines = []
    for alias in sorted(ALIASES):
        lines.append(describe(alias))
    return "\n".join(lines)


print(main())
