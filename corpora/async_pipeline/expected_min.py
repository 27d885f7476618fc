import csv
import io

REGION_MANAGERS = {"north": "Astrid"}

FAILING_CSV = """\
region,currency,amount,units
North,EUR,100.0,4
North East,EUR,30.0,1
"""


def normalise_region(name):
    return name.lower().replace(" ", "-")


def parse_sales(text):
    sales = []
    with io.StringIO(text) as handle:
        for row in csv.DictReader(handle):
            sale = normalise_region(row["region"])
            sales.append(sale)
    return sales


def summarise(sales):
    for sale in sales:
        REGION_MANAGERS[sale]


summarise(parse_sales(FAILING_CSV))
