"""Cross-check the heights two instruments measured at the same survey points.

The laser level reports metres and the tape reports centimetres; a reading
agrees when the two are within a tolerance given as a length.
"""

import io

import numpy as np
import pandas as pd
import pint

ureg = pint.UnitRegistry()

READINGS = """point,laser_m,tape_cm
A,1.2500,125.02
B,0.8730,87.31
C,2.0415,204.12
D,1.5500,155.04
E,0.3120,31.18
"""


def load_readings(text=READINGS):
    """The readings as a frame indexed by survey point."""
    return pd.read_csv(io.StringIO(text), index_col="point")


def column(frame, name, unit):
    """One column of the frame as a quantity array."""
    return ureg.Quantity(frame[name].to_numpy(dtype=float), unit)


def differences(frame):
    """Laser minus tape at each point, in millimetres."""
    laser = column(frame, "laser_m", "m")
    tape = column(frame, "tape_cm", "cm")
    return pd.Series((laser - tape).to("mm").magnitude, index=frame.index)


def instruments_agree(frame, tolerance="5 mm"):
    """Whether the two instruments agree at every point within the tolerance."""
    laser = column(frame, "laser_m", "m")
    tape = column(frame, "tape_cm", "cm")
    return bool(np.allclose(laser, tape, atol=ureg.Quantity(tolerance)))
