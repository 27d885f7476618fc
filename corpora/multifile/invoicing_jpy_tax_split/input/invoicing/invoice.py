"""Invoices: lines, discounts, tax per rate, totals, and a final consistency check.

An invoice is edited (lines added, removed, discounted) and then finalised:
tax is computed per rate on the net total of that rate's lines
(:func:`~invoicing.tax.tax_lines`), spread back over the lines, and every
line gets its share rounded to the currency's minor unit. Finalising checks
that the lines' taxes add up to the tax charged: an invoice whose lines do
not add up must never be issued.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Iterable, Sequence

from .customers import Customer
from .discounts import Discount, apply_discounts
from .money import Money, total
from .tax import DEFAULT_TABLE, Rate, TaxLine, TaxTable, reverse_charged, spread, tax_lines


class InvoiceError(Exception):
    """An invoice that cannot be edited or issued as asked."""


def _quantity(value: Decimal | int | str) -> Decimal:
    quantity = Decimal(value) if not isinstance(value, Decimal) else value
    if quantity <= 0:
        raise InvoiceError(f"quantity must be positive, not {quantity}")
    return quantity


@dataclass
class InvoiceLine:
    """One line: what was sold, how many, at what price, with which tax rate."""

    description: str
    quantity: Decimal
    unit_price: Money
    category: str
    rate: Rate
    discount: Money | None = None
    tax: Money | None = None
    """This line's share of its rate's tax; set when the invoice is finalised."""

    @property
    def net(self) -> Money:
        amount = (self.unit_price * self.quantity).rounded()
        if self.discount is not None:
            amount = amount - self.discount
        return amount

    @property
    def gross(self) -> Money:
        if self.tax is None:
            raise InvoiceError(f"line {self.description!r} has no tax yet: finalise the invoice first")
        return self.net + self.tax

    def as_dict(self) -> dict[str, Any]:
        return {
            "description": self.description,
            "quantity": str(self.quantity),
            "unit_price": str(self.unit_price.amount),
            "category": self.category,
            "discount": None if self.discount is None else str(self.discount.amount),
            "tax": None if self.tax is None else str(self.tax.amount),
        }


@dataclass
class Invoice:
    """An invoice in one currency, taxed by the rules of the seller's region."""

    number: str
    currency: str
    region: str
    customer: Customer | None = None
    issued: datetime.date | None = None
    table: TaxTable = field(default=DEFAULT_TABLE, repr=False)
    due_days: int = 30
    lines: list[InvoiceLine] = field(default_factory=list)
    tax_lines: list[TaxLine] = field(default_factory=list)
    final: bool = False

    def __post_init__(self) -> None:
        region = self.table.region(self.region)
        if region.currency != self.currency:
            raise InvoiceError(f"{self.number}: region {self.region} invoices in {region.currency}, not {self.currency}")

    # --- editing -----------------------------------------------------------------

    def _editable(self) -> None:
        if self.final:
            raise InvoiceError(f"{self.number} is final; issue a credit note to change it")

    def add_line(
        self,
        description: str,
        quantity: Decimal | int | str,
        unit_price: Decimal | int | str,
        category: str = "goods",
        discounts: Sequence[Discount] = (),
    ) -> InvoiceLine:
        """Add a line; ``unit_price`` is in the invoice's currency."""
        self._editable()
        if not description.strip():
            raise InvoiceError(f"{self.number}: a line needs a description")
        price = Money.of(unit_price, self.currency)
        if price.is_negative:
            raise InvoiceError(f"{self.number}: negative price for {description!r}; use a discount")
        line = InvoiceLine(description, _quantity(quantity), price, category, self.table.rate(self.region, category))
        if discounts:
            reduced = apply_discounts((price * line.quantity).rounded(), line.quantity, discounts)
            line.discount = (price * line.quantity).rounded() - reduced
        self.lines.append(line)
        return line

    def remove_line(self, index: int) -> InvoiceLine:
        self._editable()
        try:
            return self.lines.pop(index)
        except IndexError:
            raise InvoiceError(f"{self.number} has no line {index + 1}") from None

    # --- totals ------------------------------------------------------------------

    @property
    def net(self) -> Money:
        return total((line.net for line in self.lines), self.currency)

    @property
    def tax(self) -> Money:
        return total((line.tax for line in self.tax_lines), self.currency)

    @property
    def gross(self) -> Money:
        return self.net + self.tax

    @property
    def reverse_charge(self) -> bool:
        customer = self.customer
        if customer is None:
            return False
        return reverse_charged(self.table, self.region, customer.region, customer.is_business)

    @property
    def due(self) -> datetime.date | None:
        if self.issued is None:
            return None
        return self.issued + datetime.timedelta(days=self.due_days)

    # --- issuing -----------------------------------------------------------------

    def finalize(self, issued: datetime.date | None = None) -> Invoice:
        """Compute the tax, give every line its share, check the sums, and freeze the invoice."""
        self._editable()
        if not self.lines:
            raise InvoiceError(f"{self.number} has no lines")
        if self.reverse_charge:
            for line in self.lines:
                line.tax = Money.zero(self.currency)
            self.tax_lines = []
        else:
            self.tax_lines = tax_lines(((line.rate, line.net) for line in self.lines), self.currency)
            for tax_line in self.tax_lines:
                lines = [line for line in self.lines if line.rate == tax_line.rate]
                for line, share in zip(lines, spread(tax_line.tax, [line.net for line in lines])):
                    line.tax = share.rounded()
                charged = total((line.tax for line in lines if line.tax is not None), self.currency)
                if charged != tax_line.tax:
                    raise InvoiceError(f"{self.number}: line taxes add up to {charged}, not {tax_line.tax}")
        self.issued = issued or self.issued or datetime.date.today()
        self.final = True
        return self

    def credit_note(self, number: str) -> Invoice:
        """A final invoice that cancels this one: the same lines, negated."""
        if not self.final:
            raise InvoiceError(f"{self.number} is not final: edit it instead")
        note = Invoice(number, self.currency, self.region, self.customer, table=self.table, due_days=0)
        for line in self.lines:
            copy = InvoiceLine(line.description, line.quantity, -line.unit_price, line.category, line.rate)
            copy.discount = None if line.discount is None else -line.discount
            copy.tax = None if line.tax is None else -line.tax
            note.lines.append(copy)
        note.tax_lines = [TaxLine(t.rate, -t.net, -t.tax) for t in self.tax_lines]
        note.final = True
        note.issued = datetime.date.today()
        return note

    def as_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "currency": self.currency,
            "region": self.region,
            "customer": None if self.customer is None else self.customer.as_dict(),
            "issued": None if self.issued is None else self.issued.isoformat(),
            "due_days": self.due_days,
            "final": self.final,
            "lines": [line.as_dict() for line in self.lines],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], table: TaxTable = DEFAULT_TABLE) -> Invoice:
        customer = Customer.from_dict(data["customer"]) if data.get("customer") else None
        issued = datetime.date.fromisoformat(data["issued"]) if data.get("issued") else None
        invoice = cls(data["number"], data["currency"], data["region"], customer, issued, table, data.get("due_days", 30))
        for item in data["lines"]:
            line = invoice.add_line(item["description"], item["quantity"], item["unit_price"], item["category"])
            if item.get("discount") is not None:
                line.discount = Money.of(item["discount"], invoice.currency)
        if data.get("final"):
            invoice.finalize(issued)
        return invoice


def next_number(existing: Iterable[str], prefix: str = "INV-", width: int = 4) -> str:
    """The number after the highest one among ``existing`` with the same prefix."""
    highest = 0
    for number in existing:
        if number.startswith(prefix) and number[len(prefix):].isdigit():
            highest = max(highest, int(number[len(prefix):]))
    return f"{prefix}{highest + 1:0{width}d}"
