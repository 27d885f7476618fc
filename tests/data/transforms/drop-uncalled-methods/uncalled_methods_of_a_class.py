# flags: --require "class Report"
class Report:
    def __init__(self):
        self.lines = []

    def unused_one(self):
        return 1

    def unused_two(self):
        return 2

    def used(self):
        return 3


print(Report().used())
# output
class Report:
    def __init__(self):
        self.lines = []

    def used(self):
        return 3


print(Report().used())
