"""Interestingness test (C-Reduce's convention): exit 0 when the tree in argv[1] shows the bug.

The bug: ``minidom`` writes a double quote in an attribute value as it is,
so ``<q say='"hi"'/>`` comes out as ``<q say=""hi""/>``. The check parses
documents with the package in the tree and writes their root again. The
guards keep the rest honest: an ampersand, a less-than and a greater-than
sign, in an attribute and in text, must come out escaped, and an element's
children in order. Any other outcome (an import error, a guard that fails,
another exception) exits 1.
"""

import sys

sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else ".")

GUARDED = '<note by="Ann &amp; Bob" tag="&lt;b&gt;">x &amp; y<to>Cy</to></note>'


def main():
    try:
        from xml.dom import minidom

        if minidom.parseString(GUARDED).documentElement.toxml() != GUARDED:
            return 1
        written = minidom.parseString("<q say='&quot;hi&quot;'/>").documentElement.toxml()
    except Exception:
        return 1
    return 0 if written == '<q say=""hi""/>' else 1


if __name__ == "__main__":
    sys.exit(main())
