// Command report gathers the load harness's runs (one results.json per
// Maestro setup and size, written by bench/load) into bench/results.json,
// bench/results.md and bench/results.svg, prints the summary, and exits 1
// naming every floor a run missed (hack/bench.sh runs it last; see
// bench/README.md).
//
//	go run ./bench/report --out bench RUN/results.json...
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	fs := flag.NewFlagSet("report", flag.ExitOnError)
	out := fs.String("out", "bench", "folder of results.json, results.md and results.svg")
	_ = fs.Parse(os.Args[1:])
	os.Exit(run(*out, fs.Args(), os.Stdout, os.Stderr))
}

// run writes the report of the run files into out: 0 when every floor is
// met (or not applicable), 1 when one is missed, 2 when the report fails.
func run(out string, files []string, stdout, stderr io.Writer) int {
	if len(files) == 0 {
		fmt.Fprintln(stderr, "report: no run results given")
		return 2
	}
	runs, err := loadRuns(files)
	if err != nil {
		fmt.Fprintln(stderr, "report:", err)
		return 2
	}
	rep := newReport(runs)
	if err := rep.write(out); err != nil {
		fmt.Fprintln(stderr, "report:", err)
		return 2
	}
	fmt.Fprint(stdout, rep.summary())
	if len(rep.Missed) == 0 {
		fmt.Fprintf(stdout, "every floor met; wrote %s/results.{json,md,svg}\n", out)
		return 0
	}
	fmt.Fprintf(stderr, "bench: %d floor(s) missed:\n", len(rep.Missed))
	for _, m := range rep.Missed {
		fmt.Fprintln(stderr, "  MISS", m)
	}
	return 1
}
