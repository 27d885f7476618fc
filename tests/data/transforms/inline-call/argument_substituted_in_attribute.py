# flags: --require "print("
def name_of(item):
    return item.name.upper()


class Item:
    name = "a"


print(name_of(Item()))
# output
class Item:
    name = "a"


print(Item().name.upper())
