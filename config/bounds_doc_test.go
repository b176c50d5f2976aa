package config

import (
	"os"
	"strings"
	"testing"
)

const (
	boundsDoc      = "../docs/configuration.md"
	boundsDocBegin = "<!-- bounds: generated from config/bounds.go by TestBoundsDocMatchesTable; UPDATE_BOUNDS_DOC=1 rewrites it -->\n"
	boundsDocEnd   = "<!-- end of bounds -->\n"
)

// docs/configuration.md lists the bounds of config/bounds.go, exactly.
func TestBoundsDocMatchesTable(t *testing.T) {
	raw, err := os.ReadFile(boundsDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i, j := strings.Index(doc, boundsDocBegin), strings.Index(doc, boundsDocEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no bounds section between %q and %q", boundsDoc, boundsDocBegin, boundsDocEnd)
	}
	want := BoundsMarkdown()
	got := doc[i+len(boundsDocBegin) : j]
	if got == want {
		return
	}
	if os.Getenv("UPDATE_BOUNDS_DOC") == "1" {
		doc = doc[:i+len(boundsDocBegin)] + want + doc[j:]
		if err := os.WriteFile(boundsDoc, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's bounds differ from config/bounds.go; run UPDATE_BOUNDS_DOC=1 go test ./config -run TestBoundsDocMatchesTable. Want:\n%s", boundsDoc, want)
}
