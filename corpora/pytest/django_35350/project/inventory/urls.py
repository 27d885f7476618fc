from django.urls import path

from . import views

app_name = "inventory"

urlpatterns = [
    path("", views.product_list, name="product-list"),
    path("products/<int:product_id>/", views.edit_product, name="edit-product"),
    path("suppliers/<int:supplier_id>/value/", views.stock_value, name="stock-value"),
    path("suppliers/<int:supplier_id>/feed/", views.receive_feed, name="receive-feed"),
]
