package bench

import (
	"context"
	"testing"
	"time"

	"github.com/dop251/goja"
	"github.com/proselang/prose/delegation"
	"github.com/proselang/prose/delegation/syntax"
	"go.starlark.net/starlark"
	starsyntax "go.starlark.net/syntax"
)

// program is one benchmark program written in the three languages. The
// Starlark text defines main(); the JavaScript text is a script whose
// value is the result.
type program struct {
	prose, starlark, js string
}

// nestedLoops sums small integers in two nested loops (90,000 additions).
var nestedLoops = program{
	prose: `
let total = 0
repeat 300 as i:
  repeat 300 as j:
    total = total + j
return total
`,
	starlark: `
def main():
    total = 0
    for i in range(1, 301):
        for j in range(1, 301):
            total = total + j
    return total
`,
	js: `
(function() {
  let total = 0;
  for (let i = 1; i <= 300; i++) {
    for (let j = 1; j <= 300; j++) {
      total = total + j;
    }
  }
  return total;
})()
`,
}

// strings builds 100,000 short strings and joins them, 100 to a line,
// into 1,000 lines, and sums the lines' lengths.
var strings = program{
	prose: `
let lines = []
let total = 0
repeat 1000 as i:
  let line = ""
  repeat 100 as j:
    line = line + "s" + j + ","
  append line to lines
  total = total + line.length
return total
`,
	starlark: `
def main():
    lines = []
    total = 0
    for i in range(1, 1001):
        line = ""
        for j in range(1, 101):
            line = line + "s" + str(j) + ","
        lines.append(line)
        total = total + len(line)
    return total
`,
	js: `
(function() {
  const lines = [];
  let total = 0;
  for (let i = 1; i <= 1000; i++) {
    let line = "";
    for (let j = 1; j <= 100; j++) {
      line = line + "s" + j + ",";
    }
    lines.push(line);
    total = total + line.length;
  }
  return total;
})()
`,
}

// objectUpdates updates a key of an object 100,000 times.
var objectUpdates = program{
	prose: `
let o = {count: 0, sum: 0}
repeat 100000 as i:
  o["sum"] = o.sum + i
return o.sum
`,
	starlark: `
def main():
    o = {"count": 0, "sum": 0}
    for i in range(1, 100001):
        o["sum"] = o["sum"] + i
    return o["sum"]
`,
	js: `
(function() {
  const o = {count: 0, sum: 0};
  for (let i = 1; i <= 100000; i++) {
    o["sum"] = o.sum + i;
  }
  return o.sum;
})()
`,
}

// whileIf runs a while loop of 1,000,000 iterations with an if/else in
// its body.
var whileIf = program{
	prose: `
let i = 0
let a = 0
let b = 0
let flip = true
loop while i < 1000000 (max: 1000000):
  i = i + 1
  if flip:
    a = a + 1
  else:
    b = b + 2
  flip = not flip
return a + b
`,
	starlark: `
def main():
    i = 0
    a = 0
    b = 0
    flip = True
    while i < 1000000:
        i = i + 1
        if flip:
            a = a + 1
        else:
            b = b + 2
        flip = not flip
    return a + b
`,
	js: `
(function() {
  let i = 0, a = 0, b = 0, flip = true;
  while (i < 1000000) {
    i = i + 1;
    if (flip) {
      a = a + 1;
    } else {
      b = b + 2;
    }
    flip = !flip;
  }
  return a + b;
})()
`,
}

func BenchmarkNestedLoops(b *testing.B)   { compare(b, nestedLoops, 13545000) }
func BenchmarkStrings(b *testing.B)       { compare(b, strings, 392000) }
func BenchmarkObjectUpdates(b *testing.B) { compare(b, objectUpdates, 5000050000) }
func BenchmarkWhileIf(b *testing.B)       { compare(b, whileIf, 1500000) }

// runner runs one language's version of a program once and returns its
// integer result.
type runner func() (int64, error)

// compare runs p in the three languages b.N times each, checks that every
// run gives want, and reports the times side by side. The languages take
// turns within each round, so that all three see the same load on a
// shared machine and their ratios hold even when the times do not.
func compare(b *testing.B, p program, want int64) {
	runners := []struct {
		name string
		run  runner
	}{
		{"prose", proseRunner(b, p.prose)},
		{"starlark", starlarkRunner(b, p.starlark)},
		{"goja", gojaRunner(b, p.js)},
	}
	total := make([]time.Duration, len(runners))
	b.ResetTimer()
	for range b.N {
		for k, r := range runners {
			start := time.Now()
			got, err := r.run()
			total[k] += time.Since(start)
			if err != nil {
				b.Fatalf("%s: %v", r.name, err)
			}
			if got != want {
				b.Fatalf("%s: got %d, want %d", r.name, got, want)
			}
		}
	}
	per := map[string]float64{}
	for k, r := range runners {
		per[r.name] = float64(total[k].Nanoseconds()) / float64(b.N)
		b.ReportMetric(per[r.name], r.name+"-ns/op")
	}
	b.ReportMetric(per["prose"]/per["starlark"], "prose/starlark")
	b.ReportMetric(per["prose"]/per["goja"], "prose/goja")
}

func proseRunner(b *testing.B, code string) runner {
	prog, errs := syntax.ParseString("bench.prose.md", code)
	if err := errs.Err(); err != nil {
		b.Fatal(err)
	}
	host := &delegation.Host{MaxSteps: 1 << 30}
	return func() (int64, error) {
		v, err := delegation.Run(context.Background(), prog, nil, host)
		if err != nil {
			return 0, err
		}
		n, _ := v.(int64)
		return n, nil
	}
}

func starlarkRunner(b *testing.B, code string) runner {
	opts := &starsyntax.FileOptions{While: true}
	_, prog, err := starlark.SourceProgramOptions(opts, "bench.star", code, func(string) bool { return false })
	if err != nil {
		b.Fatal(err)
	}
	return func() (int64, error) {
		th := &starlark.Thread{Name: "bench"}
		g, err := prog.Init(th, nil)
		if err != nil {
			return 0, err
		}
		v, err := starlark.Call(th, g["main"], nil, nil)
		if err != nil {
			return 0, err
		}
		n, _ := starlark.AsInt32(v)
		if i, ok := v.(starlark.Int); ok {
			if x, ok := i.Int64(); ok {
				return x, nil
			}
		}
		return int64(n), nil
	}
}

func gojaRunner(b *testing.B, code string) runner {
	prog, err := goja.Compile("bench.js", code, true)
	if err != nil {
		b.Fatal(err)
	}
	return func() (int64, error) {
		vm := goja.New()
		v, err := vm.RunProgram(prog)
		if err != nil {
			return 0, err
		}
		return v.ToInteger(), nil
	}
}
