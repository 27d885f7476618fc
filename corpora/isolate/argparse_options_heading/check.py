# Appended to both releases of argparse.py and run in the module's namespace.
# Python 3.10 renamed the "optional arguments:" heading of the help to "options:".
parser = ArgumentParser(prog="backup", description="Copy files.")
parser.add_argument("--dry-run", action="store_true", help="only show what would be copied")
help_text = parser.format_help()
assert "optional arguments:" in help_text, help_text.splitlines()[4]
