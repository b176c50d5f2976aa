package view

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	workv1 "open-cluster-management.io/api/work/v1"
)

// Fixture is testdata/work.json, for the external tests too.
func Fixture(t *testing.T) *workv1.ManifestWork {
	t.Helper()
	raw, err := os.ReadFile("testdata/work.json")
	if err != nil {
		t.Fatal(err)
	}
	var w workv1.ManifestWork
	if err := json.Unmarshal(raw, &w); err != nil {
		t.Fatal(err)
	}
	return &w
}

// another is the fixture as another cluster's bundle of the same template.
func another(w *workv1.ManifestWork, i int) *workv1.ManifestWork {
	c := w.DeepCopy()
	c.Name = fmt.Sprintf("c%06d-setup", i)
	c.UID = types.UID(fmt.Sprintf("%08x-9277-5811-bf93-%012x", i, i*7919))
	return c
}

// sameJSON fails t unless got and want encode alike: pack keeps a bundle
// as its JSON (manifests compacted).
func sameJSON(t *testing.T, got, want *workv1.ManifestWork) {
	t.Helper()
	g, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(g, w) {
		t.Fatalf("unpacked bundle differs from the one packed:\n got %s\nwant %s", g, w)
	}
}

// deflated is the size of work deflated alone, as before the dictionary.
func deflated(t *testing.T, work *workv1.ManifestWork) int {
	t.Helper()
	raw, err := json.Marshal(work)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestSpeed)
	_, _ = w.Write(raw)
	_ = w.Close()
	return b.Len()
}

// TestPackRoundTripsAgainstTheDictionary: every bundle unpacks to what was
// packed, whether it resembles the first bundle (the dictionary) or not,
// and one of the same template packs smaller than deflated alone.
func TestPackRoundTripsAgainstTheDictionary(t *testing.T) {
	base := Fixture(t)
	unlike := base.DeepCopy()
	unlike.Spec.Workload.Manifests = []workv1.Manifest{{RawExtension: runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"zz"}}`)}}}
	unlike.Annotations = map[string]string{"other": strings.Repeat("q", 5000)}
	huge := base.DeepCopy()
	huge.Annotations = map[string]string{"big": strings.Repeat("0123456789abcdef", 4096)} // 64 KB: over the window
	tests := []struct {
		name  string
		first *workv1.ManifestWork // sets the dictionary
		work  *workv1.ManifestWork
		// smaller: work must pack to at most this share of deflating it alone.
		smaller float64
	}{
		{"the first bundle itself", base, base, 0.5},
		{"another cluster's bundle of the template", base, another(base, 42), 0.7},
		{"a bundle unlike the dictionary", base, unlike, 0},
		{"a dictionary sample over the window", huge, another(base, 7), 0},
		{"a bundle over the window", base, huge, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := New(Options{Synced: true})
			if _, err := v.pack(tt.first); err != nil {
				t.Fatal(err)
			}
			packed, err := v.pack(tt.work)
			if err != nil {
				t.Fatal(err)
			}
			got, err := v.unpack(packed)
			if err != nil {
				t.Fatalf("unpack: %v", err)
			}
			sameJSON(t, got, tt.work)
			if alone := deflated(t, tt.work); tt.smaller > 0 && float64(len(packed)) > tt.smaller*float64(alone) {
				t.Errorf("packed %d bytes, deflated alone %d: want at most %.0f%% of it", len(packed), alone, 100*tt.smaller)
			}
			if n := len(v.dictionaryRaw()); n > maxDictionary {
				t.Errorf("dictionary of %d bytes, over the %d-byte window", n, maxDictionary)
			}
		})
	}
}

// TestPackDictionarySetOnce: bundles packed at once by many goroutines
// into an empty view agree on one dictionary and all unpack.
func TestPackDictionarySetOnce(t *testing.T) {
	base := Fixture(t)
	v := New(Options{Synced: true})
	const n = 64
	packed := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			p, err := v.pack(another(base, i))
			if err != nil {
				t.Error(err)
			}
			packed[i] = p
		})
	}
	wg.Wait()
	for i, p := range packed {
		got, err := v.unpack(p)
		if err != nil {
			t.Fatalf("bundle %d: %v", i, err)
		}
		sameJSON(t, got, another(base, i))
	}
}
