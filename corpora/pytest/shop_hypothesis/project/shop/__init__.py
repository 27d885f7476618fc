"""A small shop: carts, prices and discounts."""

from shop.cart import Cart, Item, bulk_discount

__all__ = ["Cart", "Item", "bulk_discount"]
