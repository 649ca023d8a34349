"""The agent's tools: a small in-memory shop, written in plain Python.

The sidecar never runs tools itself. A program's (tool/search-products ...)
comes back to the agent as a tool call; the agent runs the Python function
of that name and answers with what it returned, or with the error it raised.

Each tool takes the call's arguments as keyword arguments (the program's
keywords arrive as strings; names such as max-price, which Python cannot
spell as a parameter, through **args) and returns something JSON can carry.
"""

from collections import Counter

import ptc_sidecar

PRODUCTS = [
    {"id": "p1", "name": "Aria noise-cancelling headphones", "price": 89.0},
    {"id": "p2", "name": "Bolt wireless earbuds", "price": 49.5},
    {"id": "p3", "name": "Cirrus studio headphones", "price": 129.0},
    {"id": "p4", "name": "Dune over-ear headphones", "price": 59.0},
    {"id": "p5", "name": "Echo kids headphones", "price": 25.0},
]

REVIEWS = {
    "p1": [{"rating": 5, "text": "Silent train rides."}, {"rating": 4, "text": "Tight fit."}, {"rating": 5, "text": "Great battery."}, {"rating": 4, "text": "Pricey, worth it."}],
    "p2": [{"rating": 4, "text": "Small and light."}],
    "p3": [{"rating": 5, "text": "Flat, honest sound."}],
    "p4": [{"rating": 4, "text": "Comfortable."}, {"rating": 3, "text": "Bass is muddy."}],
    "p5": [{"rating": 3, "text": "Survived a toddler."}, {"rating": 3, "text": "Quiet at full volume."}],
}

# What the LLM is told about the tools (rendered in the tool/ section of the
# prompt). The signatures use ptc-sidecar's signature syntax.
SIGNATURES = {
    "search-products": ("(query :string, max-price :float) -> [{id :string, name :string, price :float}]",
                        "Products whose name contains the query, at most max-price"),
    "get-reviews": ("(product-id :string) -> [{rating :int, text :string}]",
                    "Customer reviews of a product, rating 1 to 5"),
    "add-to-cart": ("(product-id :string, quantity :int) -> {cart-size :int}",
                    "Adds a product to the shopping cart"),
}


class Shop:
    """The tools' state: the cart (the one side effect) and a count of how
    many times each tool really ran, so the agent can check that replay
    never runs a tool twice."""

    def __init__(self):
        self.cart = []
        self.runs = Counter()
        functions = {
            "search-products": self.search_products,
            "get-reviews": self.get_reviews,
            "add-to-cart": self.add_to_cart,
        }
        # The tools dict that eval_turn and to_messages take.
        self.tools = {name: ptc_sidecar.Tool(self._counted(name, fn), *SIGNATURES[name])
                      for name, fn in functions.items()}

    def _counted(self, name, fn):
        def run(**args):
            self.runs[name] += 1
            return fn(args)
        return run

    def search_products(self, args):
        query = _required(args, "query", "search-products").lower()
        max_price = args.get("max-price", float("inf"))
        return [p for p in PRODUCTS if query in p["name"].lower() and p["price"] <= max_price]

    def get_reviews(self, args):
        product_id = _required(args, "product-id", "get-reviews")
        if product_id not in REVIEWS:
            raise LookupError(f"get-reviews: no product with id {product_id!r}")
        return REVIEWS[product_id]

    def add_to_cart(self, args):
        product_id = _required(args, "product-id", "add-to-cart")
        quantity = args.get("quantity", 1)
        if not any(p["id"] == product_id for p in PRODUCTS):
            raise LookupError(f"add-to-cart: no product with id {product_id!r}")
        self.cart.append((product_id, quantity))
        return {"cart-size": len(self.cart)}


def _required(args, key, tool):
    if key not in args:
        given = ", ".join(":" + k for k in args) or "nothing"
        raise ValueError(f"{tool} needs :{key} (got {given})")
    return args[key]
