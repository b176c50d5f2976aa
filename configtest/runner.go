package configtest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// Exit codes of Run.
const (
	ExitPass    = 0 // every case passed (or, with Update, was rewritten)
	ExitFail    = 1 // a case failed
	ExitInvalid = 2 // a test file (or the config it names) is invalid
)

// Options configure Run.
type Options struct {
	// Out receives the report a person reads; Err the invalid-file errors.
	Out, Err io.Writer
	// JUnit, when set, is where a JUnit XML report is written.
	JUnit string
	// Update rewrites the expectations of failing cases with what the
	// cases produced, in the test files themselves.
	Update bool
	// Trace, when set, runs every pipeline with adapter.Options.Trace and
	// is called after each step with the step's result (its Trace set)
	// and warnings: `bundle-adapter test --trace` prints them. Nil: no
	// trace is recorded.
	Trace func(s TracedStep)
}

// TracedStep is one step run under Options.Trace: where it is (the test
// file, the case, the step's index from 1 and its name) and how its event
// ended.
type TracedStep struct {
	File, Case string
	Step       int
	StepName   string
	Result     *adapter.Result
	Warnings   []string
}

// caseReport is how one case ended.
type caseReport struct {
	name    string
	line    int
	steps   []stepOutcome
	elapsed time.Duration
	updated bool
}

func (c *caseReport) failed() bool {
	for _, s := range c.steps {
		if len(s.mismatches) > 0 {
			return true
		}
	}
	return false
}

func (c *caseReport) invalid() error {
	for _, s := range c.steps {
		if s.invalid != nil {
			return s.invalid
		}
	}
	return nil
}

// fileReport is how one test file ended: invalid (err), or its cases.
type fileReport struct {
	path    string
	err     error
	cases   []*caseReport
	elapsed time.Duration
	// inputs are the files the run read for it: the test file, its configs
	// and documents; --junit never writes over one.
	inputs []string
}

// Run runs the test files named by paths (a folder: every *_test.yaml and
// *_test.yml under it) and returns the exit code.
func Run(paths []string, o Options) int {
	files, err := collect(paths)
	if err != nil {
		fmt.Fprintln(o.Err, "error:", err)
		return ExitInvalid
	}
	var reports []*fileReport
	for _, f := range files {
		reports = append(reports, runFile(f, o))
	}
	code := summarize(o, reports)
	if o.JUnit != "" {
		var inputs []string
		for _, fr := range reports {
			inputs = append(inputs, fr.inputs...)
		}
		if err := writeJUnit(o.JUnit, reports, inputs); err != nil {
			fmt.Fprintln(o.Err, "error: --junit:", err)
			return ExitInvalid
		}
	}
	return code
}

// collect expands folders into their test files, sorted; a file named
// explicitly is taken whatever its name.
func collect(paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, errNoFiles
	}
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, configfileUnwrap(err))
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && isTestFile(d.Name()) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no *_test.yaml files under it", p)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

func isTestFile(name string) bool {
	return strings.HasSuffix(name, "_test.yaml") || strings.HasSuffix(name, "_test.yml")
}

func configfileUnwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// runFile loads one file and runs its cases; with Update it rewrites the
// file when a case failed.
func runFile(path string, o Options) *fileReport {
	start := time.Now()
	fr := &fileReport{path: path, inputs: append([]string{path}, declaredInputs(path)...)}
	t, err := load(path)
	if err != nil {
		fr.err = err
		return fr
	}
	fr.inputs = append(fr.inputs, t.docFiles()...)
	if o.Trace != nil {
		t.wrap = func(opts *adapter.Options) { opts.Trace = true }
		t.traced = o.Trace
	}
	var edits []edit
	for _, c := range t.cases {
		cstart := time.Now()
		cr := &caseReport{name: c.name, line: c.line, steps: t.runCase(c)}
		cr.elapsed = time.Since(cstart)
		if o.Update && cr.failed() && cr.invalid() == nil {
			var e []edit
			e, cr.updated = caseEdits(cr)
			edits = append(edits, e...)
		}
		fr.cases = append(fr.cases, cr)
	}
	if len(edits) > 0 {
		if err := writeFile(t, edits); err != nil {
			fr.err = err
		}
	}
	fr.elapsed = time.Since(start)
	return fr
}
