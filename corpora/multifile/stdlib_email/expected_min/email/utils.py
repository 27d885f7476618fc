import datetime


def parsedate_to_datetime(data):
    tzoffset = int(data.split()[-1])
    sign = -1 if tzoffset < 0 else 1
    tzoffset = sign * ((abs(tzoffset) // 100) * 3600 + (abs(tzoffset) % 60) * 60)
    return datetime.datetime(2026, 11, 3, tzinfo=datetime.timezone(datetime.timedelta(seconds=tzoffset)))


def parseaddr(addr):
    name, _, rest = addr.partition(" <")
    return name, rest.rstrip(">")
