package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/bundle-adapter/bundle-adapter/internal/boundedfile"
)

// The differential test: hyperfleet-adapter's dry-run answers, recorded by
// hack/anchor/record.sh on our own fixtures under testdata/anchor (hack/README.md,
// "Anchor fixtures"), against bundle-adapter's dry-run on the same inputs,
// field by field. Every difference must be listed in
// testdata/anchor/differences.yaml with its kind and reason.

const anchorRoot = "testdata/anchor"

// anchorFixtures is the root the differential test compares: testdata/anchor,
// or $ANCHOR_FIXTURES (another folder in the same layout, with its own
// differences.yaml, e.g. a recording of deployed adapters).
func anchorFixtures() string {
	if v := os.Getenv("ANCHOR_FIXTURES"); v != "" {
		return v
	}
	return anchorRoot
}

// difference is one entry of differences.yaml.
type difference struct {
	// Field is a pattern over <fixture>/<situation>/<field>; * matches any
	// run of characters.
	Field string `yaml:"field"`
	// Kind: deliberate (docs/migration.md says why), anchor-bug (the
	// anchor's dry-run model differs from its real clients), or pending (a
	// bug of ours being fixed; Pending names the issue item).
	Kind    string `yaml:"kind"`
	Pending string `yaml:"pending"`
	Reason  string `yaml:"reason"`
	re      *regexp.Regexp
}

var differenceKinds = map[string]bool{"deliberate": true, "anchor-bug": true, "pending": true}

func readDifferences(t *testing.T, path string) []*difference {
	t.Helper()
	b, err := boundedfile.Read(path, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Differences []*difference `yaml:"differences"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for i, d := range doc.Differences {
		switch {
		case d.Field == "" || strings.TrimSpace(d.Reason) == "":
			t.Fatalf("%s: differences[%d]: field and reason are required", path, i)
		case !differenceKinds[d.Kind]:
			t.Fatalf("%s: differences[%d] (%s): kind %q: want deliberate, anchor-bug or pending", path, i, d.Field, d.Kind)
		case (d.Kind == "pending") != (d.Pending != ""):
			t.Fatalf("%s: differences[%d] (%s): pending names the issue item exactly when kind is pending", path, i, d.Field)
		case strings.Contains(d.Reason, "\n"):
			t.Fatalf("%s: differences[%d] (%s): the reason is one line", path, i, d.Field)
		}
		d.re = regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(d.Field), `\*`, ".*") + "$")
	}
	return doc.Differences
}

// listed returns the first entry whose pattern matches key, or nil.
func listed(list []*difference, key string) *difference {
	for _, d := range list {
		if d.re.MatchString(key) {
			return d
		}
	}
	return nil
}

// compareSituation compares the recorded answer of one situation with ours.
func compareSituation(t *testing.T, s anchorSituation) ([]fieldDiff, int) {
	t.Helper()
	a, err := readAnchor(filepath.Join(s.dir, "anchor.json"))
	if err != nil {
		t.Fatal(err)
	}
	key := s.fixture + "/" + s.name
	ours := ourFields(t, s)
	if e, ok := ours["run.error"]; ok {
		// Nothing else of ours to compare: one difference, not one per
		// field of the anchor's answer.
		return []fieldDiff{{Key: key + "/run.error", Anchor: absent, Ours: e}}, 0
	}
	return compareFields(key, a.fields(), ours)
}

func TestAnchorDifferential(t *testing.T) {
	root := anchorFixtures()
	list := readDifferences(t, filepath.Join(root, "differences.yaml"))
	sits := anchorSituations(t, root)
	if len(sits) == 0 {
		t.Fatalf("no recorded situation under %s", root)
	}
	perFixture := map[string]int{}
	used := map[*difference]int{}
	counts := map[string]int{}
	for _, s := range sits {
		perFixture[s.fixture]++
		t.Run(s.fixture+"/"+s.name, func(t *testing.T) {
			diffs, same := compareSituation(t, s)
			counts["same"] += same
			var unlisted []string
			for _, d := range diffs {
				if e := listed(list, d.Key); e != nil {
					used[e]++
					counts[e.Kind]++
					continue
				}
				unlisted = append(unlisted, d.String())
			}
			if len(unlisted) > 0 {
				t.Errorf("%d unlisted difference(s) (anchor = hyperfleet-adapter's recorded answer; list a deliberate one in %s/differences.yaml):\n  %s",
					len(unlisted), root, strings.Join(unlisted, "\n  "))
			}
		})
	}
	for fx, n := range perFixture {
		if n < 4 {
			t.Errorf("fixture %s: %d recorded situations, want at least 4", fx, n)
		}
	}
	for _, d := range list {
		switch {
		case used[d] > 0:
		case d.Kind == "pending":
			// A pending fix may have landed, or (issue 29 item 1) the
			// difference depends on the build: say so, the lead removes it.
			t.Logf("pending difference %q (%s) did not occur: remove it once %s is merged", d.Field, d.Pending, d.Pending)
		default:
			t.Errorf("listed difference %q (%s) no longer differs anywhere: remove it from differences.yaml", d.Field, d.Kind)
		}
	}
	t.Logf("%d situations of %d fixtures: %d fields the same, %d deliberate, %d anchor-bug, %d pending",
		len(sits), len(perFixture), counts["same"], counts["deliberate"], counts["anchor-bug"], counts["pending"])
}

// Every reason listed as deliberate or as an anchor bug is in
// docs/migration.md's "Different on purpose" section, word for word.
func TestAnchorDifferencesDocumented(t *testing.T) {
	list := readDifferences(t, filepath.Join(anchorRoot, "differences.yaml"))
	b, err := boundedfile.Read("../../docs/migration.md", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "\n## Different on purpose\n")
	if start < 0 {
		t.Fatal(`docs/migration.md has no "## Different on purpose" section`)
	}
	section := doc[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	section = strings.Join(strings.Fields(section), " ")
	for _, d := range list {
		if d.Kind == "pending" {
			continue
		}
		if !strings.Contains(section, strings.Join(strings.Fields(d.Reason), " ")) {
			t.Errorf("%s (%s): its reason is not in docs/migration.md's \"Different on purpose\": %q", d.Field, d.Kind, d.Reason)
		}
	}
}

// The comparer reports a changed recorded value: a copy of a fixture whose
// anchor answer says another status body value differs at that field, with
// both values.
func TestAnchorComparerReportsAChange(t *testing.T) {
	sits := anchorSituations(t, anchorRoot)
	var s anchorSituation
	for _, c := range sits {
		if c.name == "create" {
			s = c
			break
		}
	}
	if s.dir == "" {
		t.Fatal("no recorded create situation")
	}
	base, _ := compareSituation(t, s)

	tmp := t.TempDir()
	fx := filepath.Join(tmp, s.fixture)
	if err := os.CopyFS(fx, os.DirFS(s.fixtureDir)); err != nil {
		t.Fatal(err)
	}
	c := anchorSituation{fixture: s.fixture, name: s.name, fixtureDir: fx, dir: filepath.Join(fx, "situations", s.name)}
	answer := filepath.Join(c.dir, "anchor.json")
	b, err := os.ReadFile(answer)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	reqs, _ := raw["requests"].([]any)
	if len(reqs) == 0 {
		t.Fatalf("%s: the create situation sent no status", answer)
	}
	body, ok := reqs[0].(map[string]any)["body"].(map[string]any)
	if !ok {
		t.Fatalf("%s: requests[0].body is not an object", answer)
	}
	body["observed_generation"] = 987654
	if b, err = json.Marshal(raw); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(answer, b, 0o644); err != nil {
		t.Fatal(err)
	}
	got, _ := compareSituation(t, c)
	key := s.fixture + "/create/requests[0].body.observed_generation"
	var found *fieldDiff
	for i := range got {
		if got[i].Key == key {
			found = &got[i]
		}
	}
	if found == nil || found.Anchor != "987654" || found.Ours == "987654" {
		t.Fatalf("the comparer did not report the changed value at %s: %v", key, got)
	}
	if len(got) != len(base)+1 {
		t.Errorf("a change of one recorded value gave %d differences, want %d (one more than the fixture's own)", len(got), len(base)+1)
	}
	if !strings.Contains(found.String(), "anchor: 987654") {
		t.Errorf("the report does not show the anchor's value: %s", found)
	}
}
