package lisp

import (
	"math/rand"
	"testing"
)

// TestMapLineages builds many versions of maps, each from a random earlier
// version, and checks every version against a plain copy: in-place growth
// must never let one version see another's keys.
func TestMapLineages(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	type version struct {
		m    *Map
		want map[Int]Int
	}
	versions := []version{{emptyMap, map[Int]Int{}}}
	for step := 0; step < 3000; step++ {
		base := versions[rng.Intn(len(versions))]
		if rng.Intn(4) == 0 { // extend the newest version most of the time
			base = versions[len(versions)-1]
		}
		k, v := Int(rng.Intn(200)), Int(step)
		var next *Map
		want := make(map[Int]Int, len(base.want)+1)
		for kk, vv := range base.want {
			want[kk] = vv
		}
		if rng.Intn(10) == 0 {
			next = base.m.dissoc(k)
			delete(want, k)
		} else {
			next = base.m.assoc(k, v)
			want[k] = v
		}
		versions = append(versions, version{next, want})
	}
	for i, ver := range versions {
		if ver.m.Len() != len(ver.want) {
			t.Fatalf("version %d: Len = %d, want %d", i, ver.m.Len(), len(ver.want))
		}
		for k := Int(0); k < 200; k++ {
			got, ok := ver.m.Get(k)
			wv, wok := ver.want[k]
			if ok != wok || (ok && got != wv) {
				t.Fatalf("version %d: Get(%d) = %v %v, want %v %v", i, k, got, ok, wv, wok)
			}
		}
	}
}

func TestSetLineages(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	type version struct {
		s    *Set
		want map[Int]bool
	}
	versions := []version{{emptySet, map[Int]bool{}}}
	for step := 0; step < 3000; step++ {
		base := versions[rng.Intn(len(versions))]
		if rng.Intn(4) == 0 {
			base = versions[len(versions)-1]
		}
		e := Int(rng.Intn(300))
		want := make(map[Int]bool, len(base.want)+1)
		for k := range base.want {
			want[k] = true
		}
		want[e] = true
		versions = append(versions, version{base.s.conj(e), want})
	}
	for i, ver := range versions {
		if ver.s.Len() != len(ver.want) {
			t.Fatalf("version %d: Len = %d, want %d", i, ver.s.Len(), len(ver.want))
		}
		for e := Int(0); e < 300; e++ {
			if ver.s.contains(e) != ver.want[e] {
				t.Fatalf("version %d: Contains(%d) = %v", i, e, !ver.want[e])
			}
		}
	}
}

// TestBuildingLargeMapsByAssoc is the program shape LLMs write to index
// records by id; it must fit the default budgets well past a few thousand keys.
func TestBuildingLargeMapsByAssoc(t *testing.T) {
	res := run(t, `(count (reduce (fn [m i] (assoc m (str "k" i) i)) {} (range 20000)))`, Env{})
	if res.Err != nil || Repr(res.Value) != "20000" {
		t.Fatalf("result %v, error %v", Repr(res.Value), res.Err)
	}
	res = run(t, `(count (reduce conj #{} (range 20000)))`, Env{})
	if res.Err != nil || Repr(res.Value) != "20000" {
		t.Fatalf("set: result %v, error %v", Repr(res.Value), res.Err)
	}
}
