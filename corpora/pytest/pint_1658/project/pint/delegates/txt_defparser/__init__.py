"""
    pint.delegates.txt_defparser
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~

    Parser for the original textual Pint Definition file.

    :copyright: 2022 by Pint Authors, see AUTHORS for more details.
    :license: BSD, see LICENSE for more details.
"""


from .defparser import DefParser

__all__ = [DefParser]
