"""Interestingness test (C-Reduce's convention): exit 0 when the tree in argv[1] shows the bug.

The bug: an invoice in yen whose tax does not split evenly over its lines
fails its own consistency check, because the tax's remainder is handed out
in cents, not in yen. The guards make a reduction keep what the failure
depends on: invoices in euros whose tax does not split evenly (rounding
each line's exact share loses a cent, so the remainder must be handed out,
to the lines that lost most), and one in yen whose tax splits evenly, must
all come out right. Any other outcome (an import error, a guard that fails,
another exception) exits 1.
"""

import sys

sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else ".")

TARGET = ("InvoiceError", "INV-0003: line taxes add up to 999 JPY, not 1000 JPY")


def taxes(Invoice, number, currency, region, prices):
    invoice = Invoice(number, currency, region)
    for index, price in enumerate(prices):
        invoice.add_line(f"item {index + 1}", 1, price)
    invoice.finalize()
    return [str(line.tax) for line in invoice.lines], str(invoice.gross)


def guards(Invoice):
    if taxes(Invoice, "INV-0001", "EUR", "DE", ["1.75", "1.75", "1.75"]) != (["0.34 EUR", "0.33 EUR", "0.33 EUR"], "6.25 EUR"):
        raise RuntimeError("a euro tax remainder is no longer handed out")
    if taxes(Invoice, "INV-0001", "EUR", "DE", ["0.90", "1.00", "1.10"]) != (["0.17 EUR", "0.19 EUR", "0.21 EUR"], "3.57 EUR"):
        raise RuntimeError("a euro tax remainder no longer goes to the line that lost most")
    if taxes(Invoice, "INV-0002", "JPY", "JP", ["1000", "2000"]) != (["100 JPY", "200 JPY"], "3300 JPY"):
        raise RuntimeError("yen taxes are no longer split right")


def main():
    try:
        from invoicing import Invoice

        guards(Invoice)
        taxes(Invoice, "INV-0003", "JPY", "JP", ["3334", "3333", "3333"])
    except Exception as error:
        return 0 if (type(error).__name__, str(error)) == TARGET else 1
    return 1


if __name__ == "__main__":
    sys.exit(main())
