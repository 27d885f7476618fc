"""Shared pytest configuration.

``tests/data`` holds inputs, not tests: a transform case such as
``compare-to-bool/if_test.py`` matches pytest's ``*_test.py`` pattern and
would be imported (and run) as a test module.
"""

collect_ignore_glob = ["data/*"]
