# flags: --require "class Outer"
class Outer():
    class Inner(Outer, **options):
        pass
# output
class Outer:
    class Inner:
        pass
