# flags: --require "run()"
class C:
    def m(self):
        if (self.ready and
                self.enabled):
            run()
# output
class C:
    def m(self):
        run()
