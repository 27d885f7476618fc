*parents, option = "", *""
