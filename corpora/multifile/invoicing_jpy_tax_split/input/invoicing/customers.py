"""Customers and their addresses, with the checks an invoice needs (VAT numbers, regions)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

#: VAT identification number formats by country prefix (the shape only, not the check digits).
VAT_FORMATS = {
    "DE": re.compile(r"^DE\d{9}$"),
    "FR": re.compile(r"^FR[0-9A-Z]{2}\d{9}$"),
    "NL": re.compile(r"^NL\d{9}B\d{2}$"),
    "IE": re.compile(r"^IE\d{7}[A-W][A-I]?$"),
    "GB": re.compile(r"^GB(\d{9}|\d{12})$"),
    "CH": re.compile(r"^CHE\d{9}(MWST|TVA|IVA)$"),
}


class CustomerError(ValueError):
    """A customer record that is incomplete or malformed."""


def normalise_vat_id(text: str) -> str:
    """Upper case, without spaces, dots and dashes: ``de 123.456.789`` → ``DE123456789``."""
    return re.sub(r"[\s.\-]", "", text).upper()


def valid_vat_id(text: str) -> bool:
    """Whether ``text`` has the shape of a VAT number of a known country."""
    vat_id = normalise_vat_id(text)
    pattern = VAT_FORMATS.get(vat_id[:2])
    return pattern is not None and pattern.match(vat_id) is not None


@dataclass(frozen=True)
class Address:
    """A postal address; ``country`` is a region code of the tax table (``DE``, ``JP``, ``US-OR``)."""

    street: str
    city: str
    postcode: str
    country: str

    def lines(self) -> list[str]:
        return [self.street, f"{self.postcode} {self.city}", self.country]

    def as_dict(self) -> dict[str, str]:
        return {"street": self.street, "city": self.city, "postcode": self.postcode, "country": self.country}


@dataclass
class Customer:
    """Someone who buys: a person, or a business with a VAT number."""

    name: str
    address: Address
    email: str = ""
    vat_id: str = ""
    tags: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        if not self.name.strip():
            raise CustomerError("a customer needs a name")
        if self.email and not re.match(r"^[^@\s]+@[^@\s]+\.[^@\s]+$", self.email):
            raise CustomerError(f"not an e-mail address: {self.email!r}")
        if self.vat_id:
            self.vat_id = normalise_vat_id(self.vat_id)
            if not valid_vat_id(self.vat_id):
                raise CustomerError(f"not a VAT number: {self.vat_id!r}")

    @property
    def is_business(self) -> bool:
        return bool(self.vat_id)

    @property
    def region(self) -> str:
        return self.address.country

    def label(self) -> list[str]:
        """The address block of an invoice."""
        lines = [self.name, *self.address.lines()]
        if self.vat_id:
            lines.append(f"VAT {self.vat_id}")
        return lines

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "address": self.address.as_dict(),
            "email": self.email,
            "vat_id": self.vat_id,
            "tags": sorted(self.tags),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Customer:
        try:
            address = Address(**data["address"])
            return cls(data["name"], address, data.get("email", ""), data.get("vat_id", ""), set(data.get("tags", [])))
        except (KeyError, TypeError) as error:
            raise CustomerError(f"incomplete customer record: {error}") from None


class Directory:
    """Customers by a short key, with a simple search."""

    def __init__(self) -> None:
        self.customers: dict[str, Customer] = {}

    def add(self, key: str, customer: Customer) -> None:
        if key in self.customers:
            raise CustomerError(f"customer {key!r} exists")
        self.customers[key] = customer

    def get(self, key: str) -> Customer:
        try:
            return self.customers[key]
        except KeyError:
            raise CustomerError(f"no customer {key!r}") from None

    def search(self, text: str) -> list[str]:
        """Keys of customers whose name, e-mail or city contains ``text`` (ignoring case)."""
        needle = text.casefold()
        return sorted(
            key
            for key, customer in self.customers.items()
            if needle in customer.name.casefold()
            or needle in customer.email.casefold()
            or needle in customer.address.city.casefold()
        )

    def tagged(self, tag: str) -> list[str]:
        return sorted(key for key, customer in self.customers.items() if tag in customer.tags)
