# Appended to both releases of configparser.py and run in the module's namespace.
# readfp() was deprecated since Python 3.2 and removed in 3.12.
import io

parser = ConfigParser()
parser.readfp(io.StringIO("[server]\nport = 8080\n"))
assert parser.getint("server", "port") == 8080
