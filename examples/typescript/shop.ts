// The agent's tools: a small in-memory shop, written in plain TypeScript.
//
// The sidecar never runs tools itself. A program's (tool/search-products ...)
// comes back to the agent as a tool call; the package calls the function of
// that name with the program's argument map and answers with what it
// returned, or with the error it threw.
import type { Native, Tools } from "ptc-sidecar";

interface Product {
  id: string;
  name: string;
  price: number;
}

const PRODUCTS: Product[] = [
  { id: "p1", name: "Aria noise-cancelling headphones", price: 89.0 },
  { id: "p2", name: "Bolt wireless earbuds", price: 49.5 },
  { id: "p3", name: "Cirrus studio headphones", price: 129.0 },
  { id: "p4", name: "Dune over-ear headphones", price: 59.0 },
  { id: "p5", name: "Echo kids headphones", price: 25.0 },
];

const REVIEWS: Record<string, { rating: number; text: string }[]> = {
  p1: [
    { rating: 5, text: "Silent train rides." },
    { rating: 4, text: "Tight fit." },
    { rating: 5, text: "Great battery." },
    { rating: 4, text: "Pricey, worth it." },
  ],
  p2: [{ rating: 4, text: "Small and light." }],
  p3: [{ rating: 5, text: "Flat, honest sound." }],
  p4: [
    { rating: 4, text: "Comfortable." },
    { rating: 3, text: "Bass is muddy." },
  ],
  p5: [
    { rating: 3, text: "Survived a toddler." },
    { rating: 3, text: "Quiet at full volume." },
  ],
};

type Args = { [key: string]: Native };

/** The tools' state: the cart (the one side effect) and how many times each
 * tool really ran, so the agent can check that replay never runs a tool
 * twice. */
export class Shop {
  readonly cart: [string, number][] = [];
  readonly runs: Record<string, number> = {};
  /** The tools evalTurn and toMessages take, with the signatures the LLM is shown. */
  readonly tools: Tools = {
    "search-products": {
      fn: this.counted("search-products", (args) => {
        const query = String(required(args, "query", "search-products")).toLowerCase();
        const maxPrice = typeof args["max-price"] === "number" ? args["max-price"] : Infinity;
        return PRODUCTS.filter((p) => p.name.toLowerCase().includes(query) && p.price <= maxPrice);
      }),
      signature: "(query :string, max-price :float) -> [{id :string, name :string, price :float}]",
      description: "Products whose name contains the query, at most max-price",
    },
    "get-reviews": {
      // Async, as a tool that calls a service would be.
      fn: this.counted("get-reviews", async (args) => {
        const id = String(required(args, "product-id", "get-reviews"));
        if (!(id in REVIEWS)) throw new Error(`get-reviews: no product with id "${id}"`);
        return REVIEWS[id];
      }),
      signature: "(product-id :string) -> [{rating :int, text :string}]",
      description: "Customer reviews of a product, rating 1 to 5",
    },
    "add-to-cart": {
      fn: this.counted("add-to-cart", (args) => {
        const id = String(required(args, "product-id", "add-to-cart"));
        if (!PRODUCTS.some((p) => p.id === id)) throw new Error(`add-to-cart: no product with id "${id}"`);
        this.cart.push([id, Number(args.quantity ?? 1)]);
        return { "cart-size": this.cart.length };
      }),
      signature: "(product-id :string, quantity :int) -> {cart-size :int}",
      description: "Adds a product to the shopping cart",
    },
  };

  private counted(name: string, fn: (args: Args) => unknown): (args: Args) => unknown {
    return (args) => {
      this.runs[name] = (this.runs[name] ?? 0) + 1;
      return fn(args);
    };
  }
}

function required(args: Args, key: string, tool: string): Native {
  if (!(key in args)) {
    const given = Object.keys(args).map((k) => ":" + k).join(", ") || "nothing";
    throw new Error(`${tool} needs :${key} (got ${given})`);
  }
  return args[key];
}
