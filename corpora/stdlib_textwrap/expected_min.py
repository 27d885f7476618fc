assert False, "My Test"
