package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/boundedfile"
)

// anchorAnswer is hack/anchor/normalize's answer file (anchor.json): what
// hyperfleet-adapter's dry-run answered for one situation of a fixture.
type anchorAnswer struct {
	Anchor    string `json:"anchor"`
	Status    string `json:"status"`
	Resources []struct {
		Name      string         `json:"name"`
		Kind      string         `json:"kind"`
		Operation string         `json:"operation"`
		Object    map[string]any `json:"object"`
	} `json:"resources"`
	Requests []struct {
		Method string `json:"method"`
		URL    string `json:"url"`
		Body   any    `json:"body"`
	} `json:"requests"`
}

// absent stands for a field one side does not have.
const absent = "<absent>"

// fields flattens an answer into comparable fields: execution.status; for
// each request that is not a GET, in order, requests[i].method, .path and
// every leaf of .body; for each resource, resources.<name>.operation and
// every leaf of the object the run left (resources.<name>.object.…).
type fields map[string]string

func (a *anchorAnswer) fields() fields {
	f := fields{"execution.status": a.Status}
	for i, r := range a.Requests {
		p := fmt.Sprintf("requests[%d]", i)
		f[p+".method"] = r.Method
		f[p+".path"] = urlPath(r.URL)
		flatten(f, p+".body", r.Body)
	}
	for _, r := range a.Resources {
		p := "resources." + r.Name
		f[p+".operation"] = r.Operation
		if r.Object != nil {
			flatten(f, p+".object", r.Object)
		}
	}
	return f
}

// urlPath is the path of a request URL, absolute or not.
func urlPath(s string) string {
	if u, err := url.Parse(s); err == nil && u.Path != "" {
		return u.Path
	}
	return s
}

// flatten adds every leaf of v under prefix. An element of a list of objects
// with a string "type" (conditions) is named by its type, any other by its
// index; a leaf is its JSON encoding, so 0, "0" and null differ.
func flatten(f fields, prefix string, v any) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			f[prefix] = "{}"
		}
		for k, e := range x {
			flatten(f, prefix+"."+k, e)
		}
	case []any:
		if len(x) == 0 {
			f[prefix] = "[]"
		}
		for i, e := range x {
			key := strconv.Itoa(i)
			if m, ok := e.(map[string]any); ok {
				if t, ok := m["type"].(string); ok && typedOnce(x, t) {
					key = t
				}
			}
			flatten(f, prefix+"["+key+"]", e)
		}
	default:
		b, _ := json.Marshal(x)
		f[prefix] = string(b)
	}
}

func typedOnce(list []any, t string) bool {
	n := 0
	for _, e := range list {
		if m, ok := e.(map[string]any); ok && m["type"] == t {
			n++
		}
	}
	return n == 1
}

// fieldDiff is one field where the two answers differ.
type fieldDiff struct {
	Key          string // <fixture>/<situation>/<field>
	Anchor, Ours string
}

func (d fieldDiff) String() string {
	return fmt.Sprintf("%s:\n    anchor: %s\n    ours:   %s", d.Key, d.Anchor, d.Ours)
}

// compareFields returns the fields of want (the anchor's) that got differs
// in, and the count of those it has the same. A field only got has is
// compared only under requests (a body field the anchor did not send);
// objects are compared on the anchor's fields (the server adds its own).
func compareFields(key string, want, got fields) (diffs []fieldDiff, same int) {
	names := make([]string, 0, len(want))
	for k := range want {
		names = append(names, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok && !strings.Contains(k, ".object.") {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		w, ok := want[k]
		if !ok {
			w = absent
		}
		g, ok := got[k]
		if !ok {
			g = absent
		}
		if w == g || bothTimes(w, g) {
			same++
			continue
		}
		diffs = append(diffs, fieldDiff{Key: key + "/" + k, Anchor: w, Ours: g})
	}
	return diffs, same
}

// bothTimes says whether two leaves are both RFC 3339 timestamps: the time
// of a run (observed_time, a deletionTimestamp set by the run) differs from
// run to run, so any two timestamps are the same field; a timestamp against
// anything else, or absent, still differs.
func bothTimes(a, b string) bool {
	var x, y string
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	_, errX := time.Parse(time.RFC3339, x)
	_, errY := time.Parse(time.RFC3339, y)
	return errX == nil && errY == nil
}

// readAnchor reads a recorded answer.
func readAnchor(path string) (*anchorAnswer, error) {
	b, err := boundedfile.Read(path, 16<<20)
	if err != nil {
		return nil, err
	}
	var a anchorAnswer
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if a.Status == "" {
		return nil, fmt.Errorf("%s: no status: not an anchor answer (hack/anchor/record.sh)", path)
	}
	return &a, nil
}

// anchorSituation is one recorded situation of a fixture.
type anchorSituation struct {
	fixture, name, dir, fixtureDir string
}

// anchorSituations lists every recorded situation under root: the folders
// root/<fixture>/situations/<situation> with an anchor.json.
func anchorSituations(t *testing.T, root string) []anchorSituation {
	t.Helper()
	answers, err := filepath.Glob(filepath.Join(root, "*", "situations", "*", "anchor.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []anchorSituation
	for _, a := range answers {
		dir := filepath.Dir(a)
		fx := filepath.Dir(filepath.Dir(dir))
		out = append(out, anchorSituation{fixture: filepath.Base(fx), name: filepath.Base(dir), dir: dir, fixtureDir: fx})
	}
	return out
}

func fileIfExists(path string) string {
	if _, err := os.Stat(path); err == nil {
		return path
	}
	return ""
}
