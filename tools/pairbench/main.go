// Command pairbench times two whole commands in turn (A B A B ...) and
// prints, for each, the minimum, median and maximum of its CPU (user +
// system, the kernel's accounting of the finished child) and wall seconds,
// then the ratio A/B taken pair by pair. Pairing keeps a ratio meaningful
// when a shared machine's speed drifts during the run (issue 19: every
// ratio against a yardstick is measured in the same run). scripts/bench.sh
// uses it; nothing here is a pass/fail test.
//
//	pairbench [-n RUNS] [-warmup N] -vs 'B COMMAND' -- A COMMAND [ARG...]
//
// B is one string split at spaces (no shell: use sh -c '...' for pipes);
// both commands' output is discarded.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"
)

type sample struct{ cpu, wall float64 }

func main() {
	n := flag.Int("n", 11, "counted runs of each command")
	warmup := flag.Int("warmup", 1, "uncounted runs of each command first")
	vs := flag.String("vs", "", "the yardstick command B, split at spaces")
	flag.Parse()
	a := flag.Args()
	if len(a) == 0 || *vs == "" || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: pairbench [-n RUNS] [-warmup N] -vs 'B COMMAND' -- A COMMAND [ARG...]")
		os.Exit(2)
	}
	b := strings.Fields(*vs)
	for i := 0; i < *warmup; i++ {
		run(a)
		run(b)
	}
	var sa, sb []sample
	var rcpu, rwall []float64
	for i := 0; i < *n; i++ {
		x, y := run(a), run(b)
		sa, sb = append(sa, x), append(sb, y)
		rcpu = append(rcpu, x.cpu/nonzero(y.cpu))
		rwall = append(rwall, x.wall/nonzero(y.wall))
	}
	fmt.Printf("A: %s\nB: %s\n%d pairs           min      median         max\n", strings.Join(a, " "), *vs, *n)
	row := func(name string, v []float64) {
		sort.Float64s(v)
		fmt.Printf("%-12s %11.4f %11.4f %11.4f\n", name, v[0], v[len(v)/2], v[len(v)-1])
	}
	pick := func(s []sample, cpu bool) []float64 {
		out := make([]float64, len(s))
		for i, x := range s {
			out[i] = x.wall
			if cpu {
				out[i] = x.cpu
			}
		}
		return out
	}
	row("A cpu s", pick(sa, true))
	row("A wall s", pick(sa, false))
	row("B cpu s", pick(sb, true))
	row("B wall s", pick(sb, false))
	row("A/B cpu", rcpu)
	row("A/B wall", rwall)
}

func nonzero(v float64) float64 {
	if v <= 0 {
		return 1e-9
	}
	return v
}

// run starts argv once and returns its CPU and wall seconds; a command
// that cannot start ends the program (exit 2), its own exit status does not.
func run(argv []string) sample {
	cmd := exec.Command(argv[0], argv[1:]...)
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start).Seconds()
	if cmd.ProcessState == nil {
		fmt.Fprintf(os.Stderr, "pairbench: %s: %v\n", argv[0], err)
		os.Exit(2)
	}
	cpu := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	return sample{cpu: cpu, wall: wall}
}
