import json

from django.http import HttpResponseBadRequest, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from .feeds import FeedError, sync_feed
from .forms import ProductForm
from .models import Product, Supplier


@require_GET
def product_list(request):
    products = Product.objects.select_related("supplier")
    return render(request, "inventory/product_list.html", {"products": products})


@require_GET
def stock_value(request, supplier_id):
    supplier = get_object_or_404(Supplier, pk=supplier_id)
    products = supplier.products.all()
    return JsonResponse(
        {
            "supplier": supplier.name,
            "products": {p.sku: p.stock_value_cents for p in products},
            "total_cents": sum(p.stock_value_cents for p in products),
        }
    )


def edit_product(request, product_id):
    product = get_object_or_404(Product, pk=product_id)
    form = ProductForm(request.POST or None, instance=product)
    if request.method == "POST" and form.is_valid():
        form.save()
        return redirect("inventory:product-list")
    return render(request, "inventory/product_form.html", {"form": form, "product": product})


@require_POST
def receive_feed(request, supplier_id):
    supplier = get_object_or_404(Supplier, pk=supplier_id)
    try:
        rows = json.loads(request.body)["products"]
        saved = sync_feed(supplier, rows)
    except (FeedError, ValueError, KeyError, TypeError) as error:
        return HttpResponseBadRequest(str(error))
    return JsonResponse({"saved": saved})
