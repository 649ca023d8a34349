package main_test

// A twenty-third pass of attacks of issue 33's classes, on a server run
// with no step limit (--max-steps none): only the clock bounds the work,
// and the clock is seen only between two Go calls. Big-integer and
// decimal arithmetic, conversion and primality tests each run as one
// call that cannot be stopped; one that counts more than any single
// operation may is refused before it starts, so that the request still
// ends within its timeout plus 250 ms, with the same outcome each time.

import (
	"testing"
	"time"
)

// oneCallAttack is a program sent with a 1 s timeout to a server with
// no step limit.
func oneCallAttack(name, src string) inputAttack {
	a := inputAttack{attack{name: name, method: "EvalTurn", expect: "step_limit", kind: kindPrograms, req: program(src)},
		2 * (evalTimeoutMs*time.Millisecond + 250*time.Millisecond)}
	a.serverFlags = []string{"--max-steps", "none"}
	return a
}

// twentyThirdPassAttacks are the attacks of the twenty-third pass. What
// each did before, with a 1 s timeout and no step limit, is in the name's
// comment.
func twentyThirdPassAttacks() []inputAttack {
	return []inputAttack{
		// Ran for hours: 21 Miller-Rabin rounds over 158,000 bits.
		oneCallAttack("a primality test of 3^100000+2", `(.isProbablePrime (.add (.pow (biginteger 3) 100000) (biginteger 2)) 50)`),
		// 9 s of one gcd.
		oneCallAttack("gcd of 3^4000000 and 7^1000000", `(.bitLength (.gcd (.pow (biginteger 3) 4000000) (.pow (biginteger 7) 1000000)))`),
		// 1.4 s of one power.
		oneCallAttack("3^20000000", `(.bitLength (.pow (biginteger 3) 20000000))`),
		// 0.5 s for the last squaring, started just before the clock.
		oneCallAttack("a decimal squared 40 times", `(loop [x 1.5M i 0] (if (< i 40) (recur (* x x) (inc i)) 1))`),
		oneCallAttack("an integer squared 40 times with *'", `(loop [x 3N i 0] (if (< i 40) (recur (*' x x) (inc i)) 1))`),
		oneCallAttack("the decimal text of a 1.9 million-digit integer", `(count (str (.pow (biginteger 3) 4000000)))`),
	}
}

// TestAttacksTwentyThirdPass sends every attack of the twenty-third pass
// three times over both listeners, each to a server of its own.
func TestAttacksTwentyThirdPass(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, twentyThirdPassAttacks())
}
