import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from inventory.feeds import FeedError, sync_feed
from inventory.models import Supplier


class Command(BaseCommand):
    help = "Save the products of a supplier's feed, read from a JSON file."

    def add_arguments(self, parser):
        parser.add_argument("supplier", help="the supplier's name")
        parser.add_argument("path", type=Path, help="a JSON file: {\"products\": [...]}")

    def handle(self, *args, supplier, path, **options):
        try:
            found = Supplier.objects.get(name=supplier)
        except Supplier.DoesNotExist:
            raise CommandError(f"no supplier named {supplier!r}")
        try:
            rows = json.loads(path.read_text())["products"]
            saved = sync_feed(found, rows)
        except (OSError, ValueError, KeyError, FeedError) as error:
            raise CommandError(str(error))
        self.stdout.write(self.style.SUCCESS(f"{saved} products saved for {found}"))
