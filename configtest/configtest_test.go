package configtest

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// onprem is the onprem example's folder, absolute: test files copied to a
// temporary folder still name its configs.
func onprem(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../config/examples/onprem")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// writeTest writes a test file into a temporary folder, ONPREM standing
// for the onprem example's folder, and returns its path.
func writeTest(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(text, "ONPREM", onprem(t))), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func runTests(t *testing.T, o Options, paths ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	o.Out, o.Err = &out, &errOut
	code := Run(paths, o)
	return code, out.String(), errOut.String()
}

// A broken expectation fails (exit 1) with a readable diff naming the
// file:line of each expectation not met and the expected (-) and actual
// (+) values; --update rewrites those values only (comments and blank
// lines kept), and the next run passes.
func TestBrokenExpectationFailsWithDiffAndUpdateFixesIt(t *testing.T) {
	path := writeTest(t, "broken_test.yaml", fixture(t, "broken_test.yaml"))
	before, _ := os.ReadFile(path)

	code, out, errOut := runTests(t, Options{}, path)
	if code != ExitFail {
		t.Fatalf("exit %d, want %d\n%s%s", code, ExitFail, out, errOut)
	}
	for _, want := range []string{
		"  ok      create (1 step)",
		"  FAIL    recreation (3 steps)",
		"step 3 (" + path + ":37):",
		path + ":41: resources.validationJob.operation\n            - create\n            + recreate\n",
		path + ":41: resources.validationJob.reason\n            - Created\n            + Recreated\n",
		path + ":43: conditions.Applied.message_regexp\n            - matches /validationJob: create/done$/\n            + 'clusterSetup: unchanged/done, validationJob: recreate/done'\n",
		path + ":48: objects.validationJob.metadata.annotations[\"hyperfleet.io/generation\"]\n            - \"1\"\n            + \"2\"\n",
		"1 passed, 1 failed, 0 updated, 0 invalid",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "bundles.validationJob.state") {
		t.Errorf("a met expectation is reported:\n%s", out)
	}

	code, out, _ = runTests(t, Options{Update: true}, path)
	if code != ExitPass || !strings.Contains(out, "UPDATED recreation") {
		t.Fatalf("--update: exit %d\n%s", code, out)
	}
	after, _ := os.ReadFile(path)
	wantDiff := map[string]string{
		`            validationJob: {operation: create, state: done, reason: Created}   # keep this comment`: `            validationJob: {operation: recreate, state: done, reason: Recreated}   # keep this comment`,
		`            Applied: {status: "True", message_regexp: 'validationJob: create/done$'}`:               `            Applied: {status: "True", message_regexp: "^clusterSetup: unchanged/done, validationJob: recreate/done$"}`,
		`              metadata.annotations["hyperfleet.io/generation"]: "1"`:                                `              metadata.annotations["hyperfleet.io/generation"]: "2"`,
	}
	bl, al := strings.Split(string(before), "\n"), strings.Split(string(after), "\n")
	if len(bl) != len(al) {
		t.Fatalf("--update changed the number of lines (%d -> %d):\n%s", len(bl), len(al), after)
	}
	for i := range bl {
		if bl[i] == al[i] {
			continue
		}
		if wantDiff[bl[i]] != al[i] {
			t.Errorf("line %d: %q became %q", i+1, bl[i], al[i])
		}
		delete(wantDiff, bl[i])
	}
	for b := range wantDiff {
		t.Errorf("line %q was not rewritten", b)
	}

	code, out, errOut = runTests(t, Options{}, path)
	if code != ExitPass || !strings.Contains(out, "2 passed, 0 failed") {
		t.Errorf("after --update: exit %d\n%s%s", code, out, errOut)
	}
}

// An expectation --update cannot write on one line (a list where a value
// was expected) makes it encode the document again: comments and key
// order are kept, and the next run passes.
func TestUpdateReencodesWhatDoesNotFitOnALine(t *testing.T) {
	path := writeTest(t, "reencode_test.yaml", `adapter_config: ONPREM/adapter-config.yaml
task_config: ONPREM/task-config.yaml
defaults:
  event: ONPREM/dryrun/event.json
  api_responses: ONPREM/dryrun/api-responses.json
cases:
  - name: create
    expect:
      # the manifests of the setup bundle
      objects:
        clusterSetup:
          spec.workload.manifests[1].data: cluster-info
`)
	if code, out, _ := runTests(t, Options{Update: true}, path); code != ExitPass {
		t.Fatalf("--update: exit %d\n%s", code, out)
	}
	after, _ := os.ReadFile(path)
	for _, want := range []string{"# the manifests of the setup bundle", "cluster_id: c1", "cluster_name: demo-cluster"} {
		if !strings.Contains(string(after), want) {
			t.Errorf("rewritten file lacks %q:\n%s", want, after)
		}
	}
	if code, out, _ := runTests(t, Options{}, path); code != ExitPass {
		t.Errorf("after --update: exit %d\n%s", code, out)
	}
}

// The JUnit schema (the elements and attributes of Jenkins' junit-10.xsd
// that the report uses), for reading the report back.
type jSuites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Time     string   `xml:"time,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Time     string `xml:"time,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			ClassName string `xml:"classname,attr"`
			Time      string `xml:"time,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"error"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// junitSchema is, per element, the attributes and children junit-10.xsd
// allows (the subset the report may use).
var junitSchema = map[string]struct{ attrs, children []string }{
	"testsuites": {[]string{"name", "tests", "failures", "errors", "time", "disabled"}, []string{"testsuite"}},
	"testsuite":  {[]string{"name", "tests", "failures", "errors", "time", "skipped", "timestamp", "hostname", "id", "package", "disabled"}, []string{"testcase", "properties", "system-out", "system-err"}},
	"testcase":   {[]string{"name", "classname", "time", "assertions", "status"}, []string{"failure", "error", "skipped", "system-out", "system-err"}},
	"failure":    {[]string{"message", "type"}, nil},
	"error":      {[]string{"message", "type"}, nil},
}

// checkSchema walks the XML: every element and attribute is one the
// schema allows where it is, numbers are numbers.
func checkSchema(t *testing.T, data []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	var stack []string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			name := el.Name.Local
			if len(stack) == 0 && name != "testsuites" {
				t.Errorf("root element %q, want testsuites", name)
			}
			if len(stack) > 0 && !contains(junitSchema[stack[len(stack)-1]].children, name) {
				t.Errorf("<%s> inside <%s>: not in the schema", name, stack[len(stack)-1])
			}
			for _, a := range el.Attr {
				if !contains(junitSchema[name].attrs, a.Name.Local) {
					t.Errorf("<%s %s>: not in the schema", name, a.Name.Local)
				}
				switch a.Name.Local {
				case "tests", "failures", "errors":
					if _, err := strconv.Atoi(a.Value); err != nil {
						t.Errorf("<%s %s=%q>: not a whole number", name, a.Name.Local, a.Value)
					}
				case "time":
					if _, err := strconv.ParseFloat(a.Value, 64); err != nil {
						t.Errorf("<%s time=%q>: not a number of seconds", name, a.Value)
					}
				}
			}
			stack = append(stack, name)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// --junit writes a report a JUnit parser reads back: one suite per file,
// one case per case, failures and errors counted, the failure's text the
// diff; an invalid file is a suite whose case is in error.
func TestJUnitReportReadsBack(t *testing.T) {
	broken := writeTest(t, "broken_test.yaml", fixture(t, "broken_test.yaml"))
	invalid := writeTest(t, "invalid_test.yaml", "adapter_config: ONPREM/adapter-config.yaml\ntask_config: ONPREM/task-config.yaml\ncases: [{name: x, expect: {}, evnt: e.json}]\n")
	report := filepath.Join(t.TempDir(), "junit.xml")
	code, out, errOut := runTests(t, Options{JUnit: report}, "../config/examples/onprem", broken, invalid)
	if code != ExitInvalid {
		t.Fatalf("exit %d, want %d\n%s%s", code, ExitInvalid, out, errOut)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	checkSchema(t, data)
	var r jSuites
	if err := xml.Unmarshal(data, &r); err != nil {
		t.Fatalf("JUnit report does not parse: %v\n%s", err, data)
	}
	if r.Tests != 8 || r.Failures != 1 || r.Errors != 1 || len(r.Suites) != 3 {
		t.Fatalf("tests=%d failures=%d errors=%d suites=%d, want 8, 1, 1, 3\n%s", r.Tests, r.Failures, r.Errors, len(r.Suites), data)
	}
	for _, s := range r.Suites {
		var f, e int
		for _, c := range s.Cases {
			if c.Name == "" || c.ClassName != s.Name {
				t.Errorf("suite %s: case %q classname %q", s.Name, c.Name, c.ClassName)
			}
			if c.Failure != nil {
				f++
			}
			if c.Error != nil {
				e++
			}
		}
		if s.Tests != len(s.Cases) || s.Failures != f || s.Errors != e {
			t.Errorf("suite %s: tests=%d failures=%d errors=%d, but %d cases, %d failures, %d errors", s.Name, s.Tests, s.Failures, s.Errors, len(s.Cases), f, e)
		}
	}
	fail := r.Suites[1].Cases[1]
	if fail.Name != "recreation" || fail.Failure == nil || !strings.Contains(fail.Failure.Text, "- create\n            + recreate") {
		t.Errorf("failing case %q: %+v", fail.Name, fail.Failure)
	}
	if e := r.Suites[2].Cases[0].Error; e == nil || !strings.Contains(e.Text, `invalid_test.yaml:3: cases[0].evnt: unknown field "evnt"; did you mean "event"?`) {
		t.Errorf("invalid file's error: %+v", e)
	}
}

// A config that is not an example (a node pool ConfigMap on the
// kubernetes transport, an env param, a precondition), tested by a file
// written from docs/testing-configs.md alone.
func TestNewUserConfig(t *testing.T) {
	code, out, errOut := runTests(t, Options{}, "testdata/newuser")
	if code != ExitPass || !strings.Contains(out, "4 passed, 0 failed") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}

// Expectations written on one line (a flow mapping) are reported in the
// order they are written, every run.
func TestMismatchesInTheOrderWritten(t *testing.T) {
	path := writeTest(t, "order_test.yaml", `adapter_config: ONPREM/adapter-config.yaml
task_config: ONPREM/task-config.yaml
defaults: {event: ONPREM/dryrun/event.json, api_responses: ONPREM/dryrun/api-responses.json}
cases:
  - name: a
    expect:
      payload: {adapter: a, observed_generation: 9, observed_time: x, "conditions[0].type": y, "conditions[1].type": z}
`)
	var first string
	for i := 0; i < 20; i++ {
		_, out, _ := runTests(t, Options{}, path)
		if i == 0 {
			first = out
			if !(strings.Index(out, "payload.adapter") < strings.Index(out, "payload.observed_generation") &&
				strings.Index(out, "payload.observed_generation") < strings.Index(out, "payload.observed_time") &&
				strings.Index(out, "payload.observed_time") < strings.Index(out, "payload.conditions[0].type")) {
				t.Fatalf("not in the order written:\n%s", out)
			}
		} else if out != first {
			t.Fatalf("run %d differs:\n%s\nfirst:\n%s", i, out, first)
		}
	}
}

// bundle-adapter test prints, under each case, the warnings serve would
// log for its events: the optional param without a value (default used)
// and the payload leaf sent as null.
func TestTestPrintsTheEventsWarnings(t *testing.T) {
	code, out, errOut := runTests(t, Options{}, "testdata/warnings")
	if code != ExitPass {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"warning: step 1: optional param has no value, default used", "param=releaseVersion",
		"warning: step 1: payload leaf without a default failed; sent as null", "{{ .releaseVersion }} has no value"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
