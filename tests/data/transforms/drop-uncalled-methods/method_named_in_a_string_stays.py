# flags: --require "class Report"
class Report:
    def hook(self):
        return 1


print(getattr(Report(), "hook")())
# output
class Report:
    def hook(self):
        return 1


print(getattr(Report(), "hook")())
