"""Invoices on disk: one JSON file per invoice in a folder, written atomically."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Iterator

from .invoice import Invoice, next_number
from .tax import DEFAULT_TABLE, TaxTable


class StorageError(OSError):
    """A folder that cannot be used, or a file that is not an invoice."""


class InvoiceStore:
    """A folder of ``NUMBER.json`` files."""

    def __init__(self, folder: str | Path, table: TaxTable = DEFAULT_TABLE) -> None:
        self.folder = Path(folder)
        self.table = table
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StorageError(f"cannot use {self.folder}: {error.strerror}") from None

    def _path(self, number: str) -> Path:
        if not number or "/" in number or number.startswith("."):
            raise StorageError(f"not an invoice number: {number!r}")
        return self.folder / f"{number}.json"

    def numbers(self) -> list[str]:
        return sorted(p.stem for p in self.folder.glob("*.json"))

    def next_number(self, prefix: str = "INV-") -> str:
        return next_number(self.numbers(), prefix)

    def save(self, invoice: Invoice) -> Path:
        """Write the invoice; a reader never sees half a file."""
        path = self._path(invoice.number)
        data = json.dumps(invoice.as_dict(), indent=2, sort_keys=True) + "\n"
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=self.folder)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(data)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        return path

    def load(self, number: str) -> Invoice:
        path = self._path(number)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise StorageError(f"no invoice {number}") from None
        except json.JSONDecodeError as error:
            raise StorageError(f"{path.name}: not JSON ({error.msg} at line {error.lineno})") from None
        if data.get("number") != number:
            raise StorageError(f"{path.name} holds invoice {data.get('number')!r}")
        return Invoice.from_dict(data, self.table)

    def delete(self, number: str) -> None:
        invoice = self.load(number)
        if invoice.final:
            raise StorageError(f"{number} is final and cannot be deleted; issue a credit note")
        self._path(number).unlink()

    def __iter__(self) -> Iterator[Invoice]:
        for number in self.numbers():
            yield self.load(number)

    def unpaid_total(self, currency: str) -> str:
        """The gross total of final invoices in ``currency``, as text."""
        gross = [invoice.gross for invoice in self if invoice.final and invoice.currency == currency]
        if not gross:
            return f"0 {currency}"
        result = gross[0]
        for amount in gross[1:]:
            result = result + amount
        return str(result)
