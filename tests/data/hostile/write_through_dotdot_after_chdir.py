import os

try:
    os.chdir("..")
    with open("escaped-by-chdir.txt", "w") as file:
        file.write("escaped\n")
except OSError:
    pass
raise AssertionError("hostile")
