package gitrepo

import (
	"bytes"
	"math/rand"
	"testing"
)

// TestObjCacheLRU holds objCache to a plain model of a least-recently-used
// cache bounded in bytes (a list, most recent first) with spent entries
// (getSpent: moved to the end, dropped from the end past their share of
// the bound while the end is spent; live again when a get asks for one):
// the same hits and misses, the same bytes, the same totals, over random
// gets, getSpents and puts of random sizes, both bounds crossed often,
// and slots freed and reused.
func TestObjCacheLRU(t *testing.T) {
	type ent struct {
		key   cacheKey
		typ   int
		data  []byte
		spent bool
	}
	for seed := int64(1); seed <= 20; seed++ {
		rnd := rand.New(rand.NewSource(seed))
		limit := 64 + rnd.Intn(512)
		c := newObjCache(limit)
		var model []ent // most recent first
		used, spentUsed := 0, 0
		check := func(op int) {
			t.Helper()
			if c.used != used || c.spentUsed != spentUsed || len(c.m) != len(model) {
				t.Fatalf("seed %d op %d: %d bytes (%d spent) in %d entries, model %d (%d) in %d",
					seed, op, c.used, c.spentUsed, len(c.m), used, spentUsed, len(model))
			}
		}
		find := func(k cacheKey) int {
			for i, e := range model {
				if e.key == k {
					return i
				}
			}
			return -1
		}
		for op := 0; op < 4000; op++ {
			k := cacheKey{pack: rnd.Intn(2), off: int64(rnd.Intn(40))}
			if r := rnd.Intn(3); r < 2 {
				get := c.get
				if r == 1 {
					get = c.getSpent
				}
				typ, data, ok := get(k)
				i := find(k)
				if ok != (i >= 0) {
					t.Fatalf("seed %d op %d: get %v: hit %v, model %v", seed, op, k, ok, i >= 0)
				}
				if i >= 0 {
					e := model[i]
					if typ != e.typ || !bytes.Equal(data, e.data) {
						t.Fatalf("seed %d op %d: get %v: %d %q, model %d %q", seed, op, k, typ, data, e.typ, e.data)
					}
					rest := append(model[:i:i], model[i+1:]...)
					if r == 0 {
						if e.spent {
							e.spent = false
							spentUsed -= len(e.data)
						}
						model = append([]ent{e}, rest...)
					} else {
						if !e.spent {
							e.spent = true
							spentUsed += len(e.data)
						}
						model = append(rest, e)
						for spentUsed > limit/spentShare && len(model) > 0 && model[len(model)-1].spent {
							last := model[len(model)-1]
							used -= len(last.data)
							spentUsed -= len(last.data)
							model = model[:len(model)-1]
						}
					}
				}
				check(op)
				continue
			}
			data := bytes.Repeat([]byte{byte(op)}, rnd.Intn(limit/3+1))
			typ := 1 + rnd.Intn(4)
			c.put(k, typ, data)
			if len(data) > limit/4 || find(k) >= 0 {
				continue
			}
			model = append([]ent{{k, typ, data, false}}, model...)
			used += len(data)
			for used > limit {
				last := model[len(model)-1]
				used -= len(last.data)
				if last.spent {
					spentUsed -= len(last.data)
				}
				model = model[:len(model)-1]
			}
			check(op)
		}
		// The links, walked from the head, give the model's order.
		i := c.head
		for n, e := range model {
			if i < 0 || c.slots[i].key != e.key || c.slots[i].spent != e.spent {
				t.Fatalf("seed %d: position %d: slot %d, model %v", seed, n, i, e.key)
			}
			i = c.slots[i].next
		}
		if i != -1 {
			t.Fatalf("seed %d: more entries linked than the model has", seed)
		}
	}
}
