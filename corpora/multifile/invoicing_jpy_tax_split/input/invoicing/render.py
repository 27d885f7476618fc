"""Invoices as text: a plain-text document, CSV rows, and a Markdown table."""

from __future__ import annotations

import csv
import io
from typing import Iterable

from .invoice import Invoice
from .money import Money
from .tax import summary

WIDTH = 72


def _columns(left: str, right: str, width: int = WIDTH) -> str:
    space = max(1, width - len(left) - len(right))
    return f"{left}{' ' * space}{right}"


def _money(amount: Money | None, symbol: bool) -> str:
    return "" if amount is None else amount.format(symbol=symbol)


def render_text(invoice: Invoice, seller: Iterable[str] = (), symbol: bool = False) -> str:
    """The invoice as a plain-text document (finalise it first to show taxes)."""
    out: list[str] = list(seller)
    if out:
        out.append("")
    if invoice.customer is not None:
        out.extend(invoice.customer.label())
        out.append("")
    title = f"Invoice {invoice.number}" if invoice.final else f"Draft invoice {invoice.number}"
    out.append(_columns(title, invoice.issued.isoformat() if invoice.issued else ""))
    out.append("=" * WIDTH)
    for number, line in enumerate(invoice.lines, start=1):
        left = f"{number:>3}. {line.description} x {line.quantity.normalize()}"
        out.append(_columns(left, _money(line.net, symbol)))
        if line.discount:
            out.append(_columns("       discount", "-" + _money(line.discount, symbol)))
    out.append("-" * WIDTH)
    out.append(_columns("Net", _money(invoice.net, symbol)))
    if invoice.final:
        if invoice.reverse_charge:
            out.append("Tax: reverse charge, the customer accounts for the VAT")
        for rate, text in summary(invoice.tax_lines).items():
            out.append(_columns(f"Tax {rate}", text))
        out.append(_columns("Total", _money(invoice.gross, symbol)))
        if invoice.due is not None:
            out.append(f"Due by {invoice.due.isoformat()}")
    return "\n".join(out) + "\n"


def render_csv(invoices: Iterable[Invoice]) -> str:
    """One row per invoice line: number, date, description, quantity, net, tax, currency."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["invoice", "issued", "description", "quantity", "net", "tax", "currency"])
    for invoice in invoices:
        for line in invoice.lines:
            writer.writerow(
                [
                    invoice.number,
                    invoice.issued.isoformat() if invoice.issued else "",
                    line.description,
                    str(line.quantity.normalize()),
                    str(line.net.amount),
                    "" if line.tax is None else str(line.tax.amount),
                    invoice.currency,
                ]
            )
    return buffer.getvalue()


def render_markdown(invoice: Invoice) -> str:
    """The lines of an invoice as a Markdown table, with the totals below."""
    rows = ["| # | description | quantity | net | tax |", "| ---: | --- | ---: | ---: | ---: |"]
    for number, line in enumerate(invoice.lines, start=1):
        description = line.description.replace("|", "\\|")
        rows.append(
            f"| {number} | {description} | {line.quantity.normalize()} | {line.net.format()} | {_money(line.tax, False)} |"
        )
    rows.append("")
    rows.append(f"**Net** {invoice.net.format()}")
    if invoice.final:
        rows.append(f"**Tax** {invoice.tax.format()}")
        rows.append(f"**Total** {invoice.gross.format()}")
    return "\n".join(rows) + "\n"
