# flags: --require "import os"
import os
from collections import OrderedDict as OD

__all__ = ["helper"]


def helper(path, list_of_items):
    return os.path.join(path, str(len(list_of_items)), OD.__name__)
# output
import os
from collections import OrderedDict as OD

__all__ = ["helper"]


def a(b, c):
    return os.path.join(b, str(len(c)), OD.__name__)
