# flags: --require "class Config(Base, metaclass=Meta)"
class Config(Base, metaclass=Meta):
    name = "config"  # the name
    debug = verbose = False
# output
class Config(Base, metaclass=Meta):
    pass  # the name
    pass
