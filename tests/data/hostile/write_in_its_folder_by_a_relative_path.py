# not hostile: its own folder is its own, by a relative path too (issue 43, problem 6); reduces as unconfined
with open("scratch.txt", "w") as file:
    file.write("its own\n")
with open("scratch.txt") as file:
    kept = file.read()
raise AssertionError("hostile" if kept == "its own\n" else "no scratch file")
