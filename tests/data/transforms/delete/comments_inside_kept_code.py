# flags: --require "keep  # the value" --require "keep," --require "def f"
#!/usr/bin/env python
# -*- coding: utf-8 -*-
"""Module docstring."""
import os  # unused


def f(
    a,  # first
    # the one that matters
    keep,
):
    # explains the body
    x = 1  # set up
    return (
        keep  # the value
        + 1
    )
# output
#!/usr/bin/env python
# -*- coding: utf-8 -*-
def f(
    keep,
):
    # explains the body
    return (
        keep  # the value
        + 1
    )
