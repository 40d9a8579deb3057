package gitrepo

import (
	"bytes"
	"math/rand"
	"testing"
)

// TestObjCacheLRU holds objCache to a plain model of a least-recently-used
// cache bounded in bytes (a list, most recent first): the same hits and
// misses, the same bytes, the same total, over random gets and puts of
// random sizes, a bound crossed often, and slots freed and reused.
func TestObjCacheLRU(t *testing.T) {
	type ent struct {
		key  cacheKey
		typ  int
		data []byte
	}
	for seed := int64(1); seed <= 20; seed++ {
		rnd := rand.New(rand.NewSource(seed))
		limit := 64 + rnd.Intn(512)
		c := newObjCache(limit)
		var model []ent // most recent first
		used := 0
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
			if rnd.Intn(2) == 0 {
				typ, data, ok := c.get(k)
				i := find(k)
				if ok != (i >= 0) {
					t.Fatalf("seed %d op %d: get %v: hit %v, model %v", seed, op, k, ok, i >= 0)
				}
				if i >= 0 {
					e := model[i]
					if typ != e.typ || !bytes.Equal(data, e.data) {
						t.Fatalf("seed %d op %d: get %v: %d %q, model %d %q", seed, op, k, typ, data, e.typ, e.data)
					}
					model = append([]ent{e}, append(model[:i:i], model[i+1:]...)...)
				}
				continue
			}
			data := bytes.Repeat([]byte{byte(op)}, rnd.Intn(limit/3+1))
			typ := 1 + rnd.Intn(4)
			c.put(k, typ, data)
			if len(data) > limit/4 || find(k) >= 0 {
				continue
			}
			model = append([]ent{{k, typ, data}}, model...)
			used += len(data)
			for used > limit {
				used -= len(model[len(model)-1].data)
				model = model[:len(model)-1]
			}
			if c.used != used || len(c.m) != len(model) {
				t.Fatalf("seed %d op %d: %d bytes in %d entries, model %d in %d", seed, op, c.used, len(c.m), used, len(model))
			}
		}
		// The links, walked from the head, give the model's order.
		i := c.head
		for n, e := range model {
			if i < 0 || c.slots[i].key != e.key {
				t.Fatalf("seed %d: position %d: slot %d, model %v", seed, n, i, e.key)
			}
			i = c.slots[i].next
		}
		if i != -1 {
			t.Fatalf("seed %d: more entries linked than the model has", seed)
		}
	}
}
