package health

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// TestInspectReportsLock (issue 11 item 2): inspect/status report a held or
// stale lock with its age (health.lock, after the reference's keys), never
// take, wait for or remove it, and say nothing when there is none.
func TestInspectReportsLock(t *testing.T) {
	e := initVault(t)
	if h := Inspect(e).Health; h.Lock != nil {
		t.Fatalf("lock reported with none present: %+v", h.Lock)
	}
	if _, ok := Inspect(e).JSON().Obj.Get("lock"); ok {
		t.Fatal("top-level lock key")
	}
	for _, c := range []struct {
		content string
		age     time.Duration
		state   string
		pid     int64
		card    string
	}{
		{"12345-0123456789abcdef\n", 5 * time.Second, "held", 12345, "Lock: held by process 12345 for "},
		{"12345-0123456789abcdef\n", 120 * time.Second, "stale", 12345, "Lock: stale ("},
		{"", 0, "held", 0, "Lock: held for "}, // killed between create and token write
	} {
		if err := os.WriteFile(e.WS.Lock, []byte(c.content), 0o600); err != nil {
			t.Fatal(err)
		}
		mt := time.Now().Add(-c.age)
		if err := os.Chtimes(e.WS.Lock, mt, mt); err != nil {
			t.Fatal(err)
		}
		in := Inspect(e)
		l := in.Health.Lock
		if l == nil || l.State != c.state || l.PID != c.pid || l.AgeSeconds < int64(c.age/time.Second) ||
			l.AgeSeconds > int64((c.age+time.Hour)/time.Second) || l.Problem != "" {
			t.Errorf("%q aged %s: lock = %+v", c.content, c.age, l)
			continue
		}
		if !in.Health.Healthy {
			t.Errorf("%q: a %s lock made the vault unhealthy", c.content, c.state)
		}
		if card := in.Card(); !strings.Contains(card, c.card) {
			t.Errorf("card lacks %q:\n%s", c.card, card)
		}
		h, _ := in.JSON().Obj.Get("health")
		keys := h.Obj.Keys()
		if keys[len(keys)-1] != "lock" || keys[len(keys)-2] != "storage" {
			t.Errorf("health keys end %q", keys[len(keys)-2:])
		}
		lj, _ := h.Obj.Get("lock")
		if got, want := pyjson.Compact(lj), pyjson.Compact(l.JSON()); got != want || !strings.Contains(got, `"state": "`+c.state+`"`) {
			t.Errorf("health.lock = %s", got)
		}
		if b, err := os.ReadFile(e.WS.Lock); err != nil || string(b) != c.content {
			t.Errorf("inspect changed the lock: %q, %v", b, err)
		}
	}
}
