import os
import shutil

shutil.rmtree(os.path.join(os.environ["HOSTILE_OUTSIDE"], "sub"), ignore_errors=True)
raise AssertionError("hostile")
