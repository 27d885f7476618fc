# tzwin has moved to dateutil.tz.win
from .tz.win import *
