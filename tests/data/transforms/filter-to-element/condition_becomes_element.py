# flags: --require "super"
class Calendar:
    names = [name.upper() for name in "ab" if super]
# output
class Calendar:
    names = [super for name in "ab" ]
