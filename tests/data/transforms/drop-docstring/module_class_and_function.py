# flags: --require "class"
"""Module docstring."""


class A:
    """Class docstring."""

    def m(self):
        """Method docstring."""
        return 1
# output
class A:
    def m(self):
        return 1
