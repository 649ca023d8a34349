"""A scripted stand-in for the LLM, so the example runs offline.

Each turn has a canned reply, written the way a model answers a PTC-Lisp
system prompt: a sentence, then the program in a clojure code block. Before
replying, the script checks that the prompt holds what a real model would
need to write that reply (the memory it reads, the error it fixes, ...):
a reply is only plausible if the prompt explains it. A prompt that lacks
it stops the run, so the example doubles as a test of what ToMessages
sends.
"""

from dataclasses import dataclass, field


class UnexpectedPrompt(AssertionError):
    """The prompt does not hold what the scripted reply relies on."""


@dataclass
class Step:
    reply: str
    # Text the USER message must contain for the reply to make sense.
    expect: list = field(default_factory=list)
    # Text it must no longer contain.
    absent: list = field(default_factory=list)


SCRIPT = [
    # Turn 1: look at the data, call a tool, keep the result in memory.
    Step(
        expect=[
            "Find the best-rated headphones",
            "tool/search-products(query string, max-price float)",
            "data/budget",
        ],
        reply="""I'll start by finding the headphones within the budget.

```clojure
(def candidates (tool/search-products {:query data/category :max-price data/budget}))
(println "found" (count candidates) "candidates")
(mapv :id candidates)
```""",
    ),
    # Turn 2: a mistake. get-reviews takes :product-id, not :id; the tool
    # raises, the program fails and the turn comes back with success=false.
    Step(
        expect=["candidates", "search-products(", "found 3 candidates"],
        reply="""Now the reviews of each candidate, to rank them.

```clojure
(def ratings
  (for [p candidates]
    (let [reviews (tool/get-reviews {:id (:id p)})]
      {:id (:id p) :avg (/ (reduce + (map :rating reviews)) (count reviews))})))
```""",
    ),
    # Turn 3: the prompt shows the failed program and its error; the reply
    # fixes the argument. It reads turn 1's result through *1 and leaves a
    # function and a value in memory.
    Step(
        expect=["Your previous attempt", "get-reviews needs :product-id (got :id)"],
        reply="""The tool wants :product-id. Fixed, and ranked by mean rating:

```clojure
(defn avg-rating "Mean star rating of a product." [id]
  (let [stars (map :rating (tool/get-reviews {:product-id id}))]
    (/ (reduce + stars) (count stars))))
(def best (first (sort-by :avg > (mapv (fn [id] {:id id :avg (avg-rating id)}) *1))))
(println "best:" (:id best) "rated" (:avg best))
best
```""",
    ),
    # Turn 4: the error is gone from the prompt now that a turn succeeded;
    # memory holds best. Buy it (the side effect) and finish.
    Step(
        expect=["(avg-rating [id])", "best", "best: p1 rated 4.5"],
        absent=["Your previous attempt", "needs :product-id"],
        reply="""p1 is the best rated. Adding it to the cart and returning.

```clojure
(let [order (tool/add-to-cart {:product-id (:id best) :quantity 1})]
  (return {:product-id (:id best) :rating (:avg best) :cart-size (:cart-size order)}))
```""",
    ),
]


class ScriptedLLM:
    """Replies to turn n with SCRIPT[n-1] after checking the prompt."""

    def __init__(self, script=SCRIPT):
        self.script = script
        self.turn = 0

    def complete(self, messages):
        """Takes the messages to_messages returned; returns the reply text."""
        self.turn += 1
        if self.turn > len(self.script):
            raise UnexpectedPrompt(f"turn {self.turn}: the script has only {len(self.script)} replies")
        roles = [m["role"] for m in messages]
        if roles != ["system", "user"]:
            raise UnexpectedPrompt(f"turn {self.turn}: messages are {roles}, want [system, user]")
        user = messages[1]["content"]
        step = self.script[self.turn - 1]
        for text in step.expect:
            if text not in user:
                raise UnexpectedPrompt(f"turn {self.turn}: the USER message lacks {text!r}:\n{user}")
        for text in step.absent:
            if text in user:
                raise UnexpectedPrompt(f"turn {self.turn}: the USER message still holds {text!r}:\n{user}")
        return step.reply
