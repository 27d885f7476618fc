from django.db import models
from django.db.models import F


class Supplier(models.Model):
    name = models.CharField(max_length=100, unique=True)
    feed_url = models.URLField(blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class Product(models.Model):
    """A product in stock; its id is the id its supplier's feed gives it."""

    supplier = models.ForeignKey(
        Supplier, on_delete=models.CASCADE, related_name="products"
    )
    sku = models.CharField(max_length=32, unique=True)
    name = models.CharField(max_length=200)
    unit_price_cents = models.PositiveIntegerField()
    quantity = models.PositiveIntegerField(default=0)
    stock_value_cents = models.GeneratedField(
        expression=F("unit_price_cents") * F("quantity"),
        output_field=models.BigIntegerField(),
        db_persist=True,
    )

    class Meta:
        ordering = ["sku"]

    def __str__(self):
        return f"{self.sku} {self.name}"
