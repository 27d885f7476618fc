from django.contrib import admin

from .models import Product, Supplier


class ProductInline(admin.TabularInline):
    model = Product
    extra = 0
    readonly_fields = ["stock_value_cents"]


@admin.register(Supplier)
class SupplierAdmin(admin.ModelAdmin):
    list_display = ["name", "feed_url"]
    search_fields = ["name"]
    inlines = [ProductInline]


@admin.register(Product)
class ProductAdmin(admin.ModelAdmin):
    list_display = ["sku", "name", "supplier", "quantity", "stock_value_cents"]
    list_filter = ["supplier"]
    search_fields = ["sku", "name"]
    readonly_fields = ["stock_value_cents"]
