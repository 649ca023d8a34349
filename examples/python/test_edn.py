"""Unit tests of the EDN reader: python3 -m unittest test_edn (in this folder)."""

import math
import unittest

from edn import Keyword, Symbol, loads


class LoadsTest(unittest.TestCase):
    def test_scalars(self):
        cases = {
            "nil": None,
            "true": True,
            "false": False,
            "42": 42,
            "-7": -7,
            "3.5": 3.5,
            "1.0E7": 1.0e7,
            "1.5E-4": 1.5e-4,
            "##Inf": math.inf,
            "##-Inf": -math.inf,
            '"a \\"quoted\\" \\\\ line\\n\\ttab"': 'a "quoted" \\ line\n\ttab',
            '"naïve ☃"': "naïve ☃",
        }
        for text, want in cases.items():
            with self.subTest(text=text):
                self.assertEqual(loads(text), want)
        self.assertTrue(math.isnan(loads("##NaN")))

    def test_keywords_index_like_strings(self):
        args = loads('{:product-id "p1", :quantity 1}')
        self.assertEqual(args["product-id"], "p1")
        self.assertEqual(args, {"product-id": "p1", "quantity": 1})
        key = next(iter(args))
        self.assertIsInstance(key, Keyword)
        self.assertEqual(repr(key), ":product-id")

    def test_collections(self):
        self.assertEqual(loads("[1 [2 3] {:a [4]}]"), [1, [2, 3], {"a": [4]}])
        self.assertEqual(loads("#{1 2 3}"), frozenset({1, 2, 3}))
        self.assertEqual(loads("{[1 2] :pair}"), {(1, 2): Keyword("pair")})
        self.assertEqual(loads("[]"), [])
        self.assertEqual(loads("{}"), {})

    def test_function_source(self):
        # Functions in memory travel as their source.
        got = loads("(fn [x] (* x 2))")
        self.assertEqual(got, [Symbol("fn"), [Symbol("x")], [Symbol("*"), Symbol("x"), 2]])
        self.assertIsInstance(got[0], Symbol)

    def test_bad_text(self):
        for text in ["", "[1 2", '"open', "{:a}", "1 2", '"\\q"', ")"]:
            with self.subTest(text=text):
                with self.assertRaises(ValueError):
                    loads(text)


if __name__ == "__main__":
    unittest.main()
