from django import forms

from .models import Product, Supplier


class ProductForm(forms.ModelForm):
    class Meta:
        model = Product
        fields = ["supplier", "sku", "name", "unit_price_cents", "quantity"]

    def clean_sku(self):
        sku = self.cleaned_data["sku"].strip().upper()
        if not sku:
            raise forms.ValidationError("A product needs a SKU.")
        return sku


class SupplierForm(forms.ModelForm):
    feed_url = forms.URLField(required=False, assume_scheme="https")

    class Meta:
        model = Supplier
        fields = ["name", "feed_url"]
