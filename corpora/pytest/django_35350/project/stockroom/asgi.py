"""ASGI config for the stockroom project."""
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stockroom.settings")

application = get_asgi_application()
