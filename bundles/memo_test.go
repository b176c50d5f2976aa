package bundles

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/task"
)

func mustKey(t *testing.T, id []string, paths [][]string, data map[string]any) MemoKey {
	t.Helper()
	k, ok := MemoKeyOf(id, paths, data)
	if !ok {
		t.Fatalf("MemoKeyOf(%v, %v) has no key", paths, data)
	}
	return k
}

// Inputs a template could render differently give different keys.
func TestMemoKeyDistinguishes(t *testing.T) {
	ab := [][]string{{"a", "b"}}
	for _, tc := range []struct {
		name       string
		paths      [][]string
		data1, d2  map[string]any
		id1, id2   []string
		wantEquals bool
	}{
		{name: "int64 and float64 1", paths: ab, data1: map[string]any{"a": map[string]any{"b": int64(1)}}, d2: map[string]any{"a": map[string]any{"b": 1.0}}},
		{name: "int and int64 1", paths: ab, data1: map[string]any{"a": map[string]any{"b": 1}}, d2: map[string]any{"a": map[string]any{"b": int64(1)}}},
		{name: "1 and \"1\"", paths: ab, data1: map[string]any{"a": map[string]any{"b": int64(1)}}, d2: map[string]any{"a": map[string]any{"b": "1"}}},
		{name: "json.Number and string", paths: ab, data1: map[string]any{"a": map[string]any{"b": json.Number("1")}}, d2: map[string]any{"a": map[string]any{"b": "1"}}},
		{name: "stops early at the same value", paths: ab, data1: map[string]any{"a": map[string]any{"b": "x"}}, d2: map[string]any{"a": "x"}},
		{name: "missing and nil", paths: ab, data1: map[string]any{"a": map[string]any{}}, d2: map[string]any{"a": map[string]any{"b": nil}}},
		{name: "missing at two depths", paths: ab, data1: map[string]any{}, d2: map[string]any{"a": map[string]any{}}},
		{name: "list order", paths: ab, data1: map[string]any{"a": map[string]any{"b": []any{"x", "y"}}}, d2: map[string]any{"a": map[string]any{"b": []any{"y", "x"}}}},
		{name: "map value", paths: [][]string{{"a"}}, data1: map[string]any{"a": map[string]any{"k": "v"}}, d2: map[string]any{"a": map[string]any{"k": "w"}}},
		{name: "string boundaries", paths: [][]string{{"a"}, {"b"}}, data1: map[string]any{"a": "xy", "b": "z"}, d2: map[string]any{"a": "x", "b": "yz"}},
		{name: "id boundaries", id1: []string{"ab", "c"}, id2: []string{"a", "bc"}},
		{name: "bool", paths: [][]string{{"a"}}, data1: map[string]any{"a": true}, d2: map[string]any{"a": false}},
		{name: "-0 and 0", paths: [][]string{{"a"}}, data1: map[string]any{"a": 0.0}, d2: map[string]any{"a": math.Copysign(0, -1)}},
		{name: "unread values do not count", paths: ab, data1: map[string]any{"a": map[string]any{"b": "x", "c": 1}, "z": 1}, d2: map[string]any{"a": map[string]any{"b": "x", "c": 2}}, wantEquals: true},
		{name: "map order does not count", paths: [][]string{{"a"}}, data1: map[string]any{"a": map[string]any{"k": "v", "l": "w"}}, d2: map[string]any{"a": map[string]any{"l": "w", "k": "v"}}, wantEquals: true},
	} {
		k1 := mustKey(t, tc.id1, tc.paths, tc.data1)
		k2 := mustKey(t, tc.id2, tc.paths, tc.d2)
		if (k1 == k2) != tc.wantEquals {
			t.Errorf("%s: keys equal %v, want %v", tc.name, k1 == k2, tc.wantEquals)
		}
	}
}

func TestMemoKeyRefuses(t *testing.T) {
	big := make([]any, memoMaxNodes+1)
	wide := map[string]any{}
	for i := range memoMaxNodes + 1 {
		wide[strings.Repeat("k", i%7)+string(rune('a'+i%26))+fmt.Sprint(i)] = i
	}
	for _, tc := range []struct {
		name string
		data map[string]any
	}{
		{name: "a time", data: map[string]any{"a": time.Now()}},
		{name: "a struct", data: map[string]any{"a": struct{ X int }{1}}},
		{name: "a func", data: map[string]any{"a": func() string { return "x" }}},
		{name: "past the node bound", data: map[string]any{"a": big}},
		{name: "a wide map", data: map[string]any{"a": wide}},
		{name: "past the byte bound", data: map[string]any{"a": strings.Repeat("x", memoMaxBytes+1)}},
	} {
		if _, ok := MemoKeyOf(nil, [][]string{{"a"}}, tc.data); ok {
			t.Errorf("%s: MemoKeyOf gave a key", tc.name)
		}
	}
	// A type outside JSON's, where no path reads it, does not matter.
	if _, ok := MemoKeyOf(nil, [][]string{{"b"}}, map[string]any{"a": time.Now(), "b": "x"}); !ok {
		t.Error("an unread time refused the key")
	}
}

func TestMemoBounded(t *testing.T) {
	m := NewMemo(2)
	fp := func(c string) string { return strings.Repeat(c, 64) }
	keys := []MemoKey{{1}, {2}, {3}}
	for i, k := range keys {
		m.Put(k, fp(string(rune('a'+i))))
	}
	if m.Len() != 2 {
		t.Errorf("Len %d, want 2", m.Len())
	}
	held := 0
	for i, k := range keys {
		if got, ok := m.Get(k); ok {
			held++
			if got != fp(string(rune('a'+i))) {
				t.Errorf("key %d: %s", i, got)
			}
		}
	}
	if held != 2 {
		t.Errorf("%d of 3 keys held, want 2", held)
	}
	m.Put(MemoKey{4}, "not a fingerprint")
	if _, ok := m.Get(MemoKey{4}); ok {
		t.Error("a value that is no fingerprint was remembered")
	}
	var none *Memo
	none.Put(MemoKey{1}, fp("a"))
	if _, ok := none.Get(MemoKey{1}); ok || none.Len() != 0 {
		t.Error("a nil Memo remembered")
	}
}

// memoTemplates read data through every construct tmpl.Template.Reads
// follows; each is a manifest leaf of its own.
var memoTemplates = []string{
	"{{ .clusterId }}-{{ .generation }}",
	`{{ printf "%T" .generation }}`,
	`{{ if eq .generation 1 }}one{{ else }}other{{ end }}`,
	"{{ .cluster.spec.region }}",
	`{{ if eq .cluster.spec.region "r1" }}first{{ end }}`,
	"{{ range $i, $z := .cluster.spec.zones }}{{ if $i }},{{ end }}{{ $z }}{{ end }}",
	"{{ len .cluster.spec.zones }}",
	"{{ with .cluster.spec.owner }}{{ .team }}/{{ $.clusterId }}{{ else }}none{{ end }}",
	`{{ index .cluster.labels "tier" | default "standard" }}`,
	"{{ $.cluster.labels.tier }}",
	"{{ toJson .cluster.spec }}",
	"{{ $s := .cluster.spec }}{{ $s.region }}",
	"{{ (.cluster).spec.region }}",
}

// pick returns one of vs; "missing" leaves the key out of m.
func pick(r *rand.Rand, m map[string]any, k string, vs ...any) {
	v := vs[r.IntN(len(vs))]
	if v == "missing" {
		return
	}
	m[k] = v
}

func memoData(r *rand.Rand) map[string]any {
	d := map[string]any{}
	pick(r, d, "clusterId", "x", "y")
	pick(r, d, "generation", int64(1), 1.0, "1", json.Number("1"), int64(2), 1)
	pick(r, d, "unread", "a", "b", int64(1), "missing")
	spec := map[string]any{}
	pick(r, spec, "region", "r1", "r2", nil, "missing", int64(1))
	pick(r, spec, "zones", []any{"a", "b"}, []any{"b", "a"}, []any{}, "a", "missing")
	pick(r, spec, "owner", map[string]any{"team": "t1"}, map[string]any{"team": "t2", "x": int64(1)}, map[string]any{}, nil, "missing", "t1")
	pick(r, spec, "unread", "a", "b", "missing")
	cluster := map[string]any{}
	pick(r, cluster, "spec", spec, spec, spec, "missing", "spec")
	pick(r, cluster, "labels", map[string]any{}, map[string]any{"tier": "gold"}, map[string]any{"tier": int64(1)}, "missing")
	pick(r, cluster, "status", map[string]any{"phase": "Ready"}, map[string]any{"phase": "Degraded"}, "missing")
	pick(r, d, "cluster", cluster, cluster, cluster, "missing", nil)
	return d
}

// The memo's contract over random data: two renders of one manifest whose
// memo keys are equal render the same tree, or fail with the same error.
// Many pairs share a key (the data differ where no template reads) and many
// do not, so a walk that missed a value read would show as two renders of
// one key that differ.
func TestMemoKeySound(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 1))
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for _, src := range memoTemplates {
		m, err := task.CompileManifest("m", map[string]any{"metadata": map[string]any{"name": "n"}, "data": map[string]any{"v": src}})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		paths, ok := m.Reads()
		if !ok {
			t.Fatalf("%s: Reads not ok", src)
		}
		type render struct {
			tree map[string]any
			err  string
		}
		seen := map[MemoKey]render{}
		shared := 0
		for range 2000 {
			data := memoData(r)
			k, ok := MemoKeyOf([]string{"res"}, paths, data)
			if !ok {
				t.Fatalf("%s: no key for %v", src, data)
			}
			tree, err := Render(m, data, now)
			got := render{tree: tree}
			if err != nil {
				got = render{err: err.Error()}
			}
			if prev, had := seen[k]; had {
				shared++
				if !reflect.DeepEqual(prev, got) {
					t.Fatalf("%s: one key, two renders:\n %v\n %v\n(data %v)", src, prev, got, data)
				}
				continue
			}
			seen[k] = got
		}
		if shared == 0 || len(seen) < 2 {
			t.Errorf("%s: %d keys, %d renders sharing one: the data proved nothing", src, len(seen), shared)
		}
	}
}

// FuzzMemoKey: on arbitrary JSON as the API's cluster (and generation),
// MemoKeyOf never panics and stays within its bounds, and across the inputs
// one fuzz process sees, two renders of one template under one key render
// the same (the contract TestMemoKeySound checks on chosen data).
func FuzzMemoKey(f *testing.F) {
	f.Add([]byte(`{"spec":{"region":"r1","zones":["a","b"],"owner":{"team":"t1"}},"labels":{"tier":"gold"}}`), []byte(`1`), uint8(0))
	f.Add([]byte(`{"spec":{"region":1,"zones":"a","owner":null},"labels":{}}`), []byte(`"1"`), uint8(4))
	f.Add([]byte(`{"spec":"x"}`), []byte(`1.0`), uint8(10))
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	type render struct {
		tree map[string]any
		err  string
	}
	manifests := make([]*task.Manifest, len(memoTemplates))
	reads := make([][][]string, len(memoTemplates))
	for i, src := range memoTemplates {
		m, err := task.CompileManifest("m", map[string]any{"metadata": map[string]any{"name": "n"}, "data": map[string]any{"v": src}})
		if err != nil {
			f.Fatal(err)
		}
		paths, ok := m.Reads()
		if !ok {
			f.Fatalf("%s: Reads not ok", src)
		}
		manifests[i], reads[i] = m, paths
	}
	seen := map[MemoKey]render{}
	f.Fuzz(func(t *testing.T, cluster, generation []byte, which uint8) {
		var c, g any
		if json.Unmarshal(cluster, &c) != nil || json.Unmarshal(generation, &g) != nil {
			return
		}
		i := int(which) % len(memoTemplates)
		data := map[string]any{"clusterId": "x", "cluster": c, "generation": g}
		k, ok := MemoKeyOf([]string{strconv.Itoa(i)}, reads[i], data)
		if !ok {
			return
		}
		tree, err := Render(manifests[i], data, now)
		got := render{tree: tree}
		if err != nil {
			got = render{err: err.Error()}
		}
		if prev, had := seen[k]; had && !reflect.DeepEqual(prev, got) {
			t.Fatalf("%s: one key, two renders:\n %v\n %v", memoTemplates[i], prev, got)
		}
		if len(seen) < 100_000 {
			seen[k] = got
		}
	})
}

// BenchmarkMemoKey: the key of the onprem example's validation bundle, what
// an unchanged event computes instead of rendering it.
func BenchmarkMemoKey(b *testing.B) {
	paths := [][]string{{"clusterId"}, {"generation"}, {"validatorImage"}, {"adapter", "name"}}
	data := map[string]any{"clusterId": "c-000123", "generation": int64(1), "validatorImage": "registry.access.redhat.com/ubi9/ubi-minimal:latest",
		"adapter": map[string]any{"name": "onprem-bundles", "version": "0.1.0"}, "cluster": map[string]any{"id": "c-000123"}}
	id := []string{"validationJob", "c-000123-validation", "cluster1"}
	b.ReportAllocs()
	for range b.N {
		if _, ok := MemoKeyOf(id, paths, data); !ok {
			b.Fatal("no key")
		}
	}
}
