# flags: --require "def keep"
class Report:
    def keep(self):
        return 1

    def other(self):
        return 2
# output
class Report:
    def keep(self):
        return 1
