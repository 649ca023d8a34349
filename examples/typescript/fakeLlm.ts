// A scripted stand-in for the LLM, so the example runs offline.
//
// Each turn has a canned reply, written the way a model answers a PTC-Lisp
// system prompt: a sentence, then the program in a clojure code block.
// Before replying, the script checks that the prompt holds what a real model
// would need to write that reply (the memory it reads, the error it fixes):
// a prompt that lacks it stops the run, so the example doubles as a test of
// what toMessages sends.
import type { OpenAIMessage } from "ptc-sidecar";

export class UnexpectedPrompt extends Error {}

interface Step {
  reply: string;
  /** Text the USER message must contain for the reply to make sense. */
  expect: string[];
  /** Text it must no longer contain. */
  absent?: string[];
}

const fence = "```";

const SCRIPT: Step[] = [
  // Turn 1: look at the data, call a tool, keep the result in memory.
  {
    expect: ["Find the best-rated headphones", "tool/search-products(query string, max-price float)", "data/budget"],
    reply: `I'll start by finding the headphones within the budget.

${fence}clojure
(def candidates (tool/search-products {:query data/category :max-price data/budget}))
(println "found" (count candidates) "candidates")
(mapv :id candidates)
${fence}`,
  },
  // Turn 2: a mistake. get-reviews takes :product-id, not :id; the tool
  // throws, the program fails and the turn comes back with success false.
  {
    expect: ["candidates", "search-products(", "found 3 candidates"],
    reply: `Now the reviews of each candidate, to rank them.

${fence}clojure
(def ratings
  (for [p candidates]
    (let [reviews (tool/get-reviews {:id (:id p)})]
      {:id (:id p) :avg (/ (reduce + (map :rating reviews)) (count reviews))})))
${fence}`,
  },
  // Turn 3: the prompt shows the failed program and its error; the reply
  // fixes the argument, reads turn 1's result through *1, and leaves a
  // function and a value in memory.
  {
    expect: ["Your previous attempt", "get-reviews needs :product-id (got :id)"],
    reply: `The tool wants :product-id. Fixed, and ranked by mean rating:

${fence}clojure
(defn avg-rating "Mean star rating of a product." [id]
  (let [stars (map :rating (tool/get-reviews {:product-id id}))]
    (/ (reduce + stars) (count stars))))
(def best (first (sort-by :avg > (mapv (fn [id] {:id id :avg (avg-rating id)}) *1))))
(println "best:" (:id best) "rated" (:avg best))
best
${fence}`,
  },
  // Turn 4: the error is gone from the prompt now that a turn succeeded;
  // memory holds best. Buy it (the side effect) and finish.
  {
    expect: ["(avg-rating [id])", "best", "best: p1 rated 4.5"],
    absent: ["Your previous attempt", "needs :product-id"],
    reply: `p1 is the best rated. Adding it to the cart and returning.

${fence}clojure
(let [order (tool/add-to-cart {:product-id (:id best) :quantity 1})]
  (return {:product-id (:id best) :rating (:avg best) :cart-size (:cart-size order)}))
${fence}`,
  },
];

/** Replies to turn n with SCRIPT[n-1] after checking the prompt. */
export class ScriptedLLM {
  private turn = 0;

  complete(messages: OpenAIMessage[]): string {
    this.turn++;
    const step = SCRIPT[this.turn - 1];
    if (!step) throw new UnexpectedPrompt(`turn ${this.turn}: the script has only ${SCRIPT.length} replies`);
    const roles = messages.map((m) => m.role).join(",");
    if (roles !== "system,user") throw new UnexpectedPrompt(`turn ${this.turn}: messages are ${roles}, want system,user`);
    const user = String(messages[1].content);
    for (const text of step.expect) {
      if (!user.includes(text)) throw new UnexpectedPrompt(`turn ${this.turn}: the USER message lacks ${JSON.stringify(text)}:\n${user}`);
    }
    for (const text of step.absent ?? []) {
      if (user.includes(text)) throw new UnexpectedPrompt(`turn ${this.turn}: the USER message still holds ${JSON.stringify(text)}:\n${user}`);
    }
    return step.reply;
  }
}
