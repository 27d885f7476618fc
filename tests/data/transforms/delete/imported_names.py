# flags: --require "sep"
import os, sys
from os import path, sep, getcwd
from . import (
    alpha,
    beta,
)
# output
from os import sep
