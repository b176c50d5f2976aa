package adapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/memkube"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
)

// hostileRig runs one task config, given as text, over both in-memory
// transports and the canned API (issue 43's own round on issue 42's
// rendering and the one-flow move).
type hostileRig struct {
	t     *testing.T
	maest *memmaestro.Store
	kube  *memkube.Store
	api   *apistub.Stub
	p     *adapter.Pipeline
	file  string
}

func newHostileRig(t *testing.T, taskYAML string) *hostileRig {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "task.yaml")
	if err := os.WriteFile(file, []byte(taskYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	tc, err := config.LoadTaskConfig(file)
	if err != nil {
		t.Fatalf("load: %v\n%s", err, taskYAML)
	}
	r := &hostileRig{t: t, file: file, api: apistub.New("v1", nil),
		maest: memmaestro.New(memmaestro.Options{Clock: func() time.Time { return t0 }, Consumers: []string{"c1"}}),
		kube:  memkube.New(memkube.Options{Clock: func() time.Time { return t0 }})}
	r.p, err = adapter.New(adapter.Options{Task: tc, Adapter: config.AdapterInfo{Name: "test-adapter", Version: "0"},
		Maestro: r.maest, Kube: r.kube, API: r.api, Clock: func() time.Time { return t0 },
		LookupEnv: func(string) (string, bool) { return "", false },
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// run runs one event for cluster "x" with fields added to its data.
func (r *hostileRig) run(fields map[string]any) *adapter.Result {
	r.t.Helper()
	data := map[string]any{"id": "x", "kind": "Cluster", "generation": int64(1)}
	for k, v := range fields {
		data[k] = v
	}
	r.maest.ResetCalls()
	r.kube.ResetCalls()
	return r.p.Run(context.Background(), adapter.Event{ID: "ev-1", Type: "com.redhat.hyperfleet.cluster.reconcile", Source: "test", Data: data})
}

func (r *hostileRig) outcome(res *adapter.Result, name string) adapter.Outcome {
	r.t.Helper()
	for _, o := range res.Bundles {
		if o.Name == name {
			return o
		}
	}
	r.t.Fatalf("no outcome for %q in %+v", name, res.Bundles)
	return adapter.Outcome{}
}

// writesNaming lists the write calls (both transports) whose object name
// contains s.
func (r *hostileRig) writesNaming(s string) []string {
	var out []string
	for _, c := range r.maest.Calls() {
		if c.Verb != memmaestro.VerbGet && c.Verb != memmaestro.VerbGetBundles && strings.Contains(c.Name, s) {
			out = append(out, "maestro "+c.Verb+" "+c.Name)
		}
	}
	for _, c := range r.kube.Calls() {
		if c.Verb != "get" && c.Verb != "list" && strings.Contains(c.Ref.Name, s) {
			out = append(out, "kube "+c.Verb+" "+c.Ref.Name)
		}
	}
	return out
}

func (r *hostileRig) statusBody() string {
	r.t.Helper()
	calls := r.api.Calls()
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].Method == "PUT" {
			b, _ := json.Marshal(calls[i].Body)
			return string(b)
		}
	}
	return ""
}

// hostileRenderTask has four resources: goodm and goodk, which every case
// leaves alone and which must be created whatever happens to the others,
// and badm (Maestro) and badk (kubernetes), whose @NAME@ places a case
// fills with a template reading the optional param v.
const hostileRenderTask = `
params:
  - {name: clusterId, source: event.id, type: string, required: true}
  - {name: v, source: event.v}
resources:
  - name: goodm
    transport: {client: maestro, maestro: {target_cluster: c1}}
    manifest:
      apiVersion: work.open-cluster-management.io/v1
      kind: ManifestWork
      metadata: {name: "goodm-{{ .clusterId }}"}
      spec: {workload: {manifests: [{apiVersion: v1, kind: ConfigMap, metadata: {name: g, namespace: default}, data: {a: "1"}}]}}
    discovery: {by_name: "goodm-{{ .clusterId }}"}
  - name: badm
    transport: {client: maestro, maestro: {target_cluster: "@TC@"}}
    manifest: @MMANIFEST@
    discovery: {by_name: "@MDNAME@"}
  - name: badk
    transport: {client: kubernetes}
    manifest: @KMANIFEST@
    discovery: @KDISC@
  - name: goodk
    transport: {client: kubernetes}
    manifest:
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: "goodk-{{ .clusterId }}", namespace: default}
      data: {a: "1"}
    discovery: {namespace: default, by_name: "goodk-{{ .clusterId }}"}
post:
  payloads:
    - name: status
      build:
        v: "@PAYLOAD@"
        ops: {expression: '["goodm","badm","badk","goodk"].map(n, n + ":" + bundles[n].state + "/" + bundles[n].reason).join(" ")'}
  post_actions:
    - name: report
      api_call: {method: PUT, url: "/clusters/{{ .clusterId }}/statuses", body: "{{ .status }}"}
`

const (
	hostileMManifest = `
      apiVersion: work.open-cluster-management.io/v1
      kind: ManifestWork
      metadata: {name: "@MNAME@", labels: {app: "@MLV@"}}
      spec:
        workload:
          manifests:
            - {apiVersion: v1, kind: ConfigMap, metadata: {name: "@INNER@", namespace: "@INNS@"}, data: {a: "@MDV@"}}`
	hostileKManifest = `
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: "@KNAME@", namespace: "@KNS@", labels: {tier: "@KLV@", app: badk}}
      data: {a: "@KDV@"}`
)

var hostileDefaults = map[string]string{
	"@MMANIFEST@": hostileMManifest, "@KMANIFEST@": hostileKManifest,
	"@TC@": "c1", "@MNAME@": "badm-{{ .clusterId }}", "@MLV@": "badm",
	"@INNER@": "cm", "@INNS@": "default", "@MDV@": "1", "@MDNAME@": "badm-{{ .clusterId }}",
	"@KNAME@": "badk-{{ .clusterId }}", "@KNS@": "default", "@KLV@": "one",
	"@KDV@": "1", "@KDISC@": `{namespace: default, by_name: "badk-{{ .clusterId }}"}`, "@PAYLOAD@": "p",
}

// hostileTask is hostileRenderTask with the defaults, over replaced. The
// manifests are substituted first, so their own places are filled too.
func hostileTask(over map[string]string) string {
	get := func(k string) string {
		if o, ok := over[k]; ok {
			return o
		}
		return hostileDefaults[k]
	}
	s := strings.NewReplacer("@MMANIFEST@", get("@MMANIFEST@"), "@KMANIFEST@", get("@KMANIFEST@")).Replace(hostileRenderTask)
	var pairs []string
	for k := range hostileDefaults {
		if k != "@MMANIFEST@" && k != "@KMANIFEST@" {
			pairs = append(pairs, k, get(k))
		}
	}
	return strings.NewReplacer(pairs...).Replace(s)
}

// hostilePositions are the places of badm and badk a template can stand
// in, each filled with tmpl (a template reading .v).
func hostilePositions(tmpl string) []struct {
	name, bad string
	over      map[string]string
} {
	type pos = struct {
		name, bad string
		over      map[string]string
	}
	return []pos{
		{"maestro target_cluster", "badm", map[string]string{"@TC@": tmpl}},
		{"maestro work name", "badm", map[string]string{"@MNAME@": "badm-" + tmpl}},
		{"maestro work label value", "badm", map[string]string{"@MLV@": tmpl}},
		{"maestro manifest name", "badm", map[string]string{"@INNER@": "cm" + tmpl}},
		{"maestro manifest namespace", "badm", map[string]string{"@INNS@": tmpl}},
		{"maestro manifest leaf", "badm", map[string]string{"@MDV@": tmpl}},
		{"maestro discovery by_name", "badm", map[string]string{"@MDNAME@": "badm-" + tmpl}},
		{"kubernetes name", "badk", map[string]string{"@KNAME@": "badk-" + tmpl}},
		{"kubernetes namespace", "badk", map[string]string{"@KNS@": tmpl}},
		{"kubernetes label value", "badk", map[string]string{"@KLV@": tmpl}},
		{"kubernetes leaf", "badk", map[string]string{"@KDV@": tmpl}},
		{"kubernetes discovery namespace", "badk", map[string]string{"@KDISC@": `{namespace: "` + tmpl + `", by_name: "badk-{{ .clusterId }}"}`}},
		{"kubernetes discovery by_name", "badk", map[string]string{"@KDISC@": `{namespace: default, by_name: "badk-` + tmpl + `"}`}},
		{"kubernetes selector key", "badk", map[string]string{"@KDISC@": `{namespace: default, by_selectors: {label_selector: {app: badk, "s` + tmpl + `": "1"}}}`}},
		{"kubernetes selector value", "badk", map[string]string{"@KDISC@": `{namespace: default, by_selectors: {label_selector: {app: badk, tier: "` + tmpl + `"}}}`}},
	}
}

// Issue 42 on both transports, as an attacker would try it: v absent from
// the event or null, in every place a template stands in a Maestro bundle
// and a Kubernetes object (names, namespaces, labels, leaves, the target
// cluster, discovery names, namespaces and selector keys and values). The
// resource fails RenderFailed naming the action, its YAML path and the
// task file; nothing is written for it; the three other resources are
// created; the status is reported and says which one failed.
func TestHostileMissingValueEveryPlace(t *testing.T) {
	for _, value := range []struct {
		name   string
		fields map[string]any
	}{{"absent", nil}, {"null", map[string]any{"v": nil}}} {
		for _, p := range hostilePositions("{{ .v }}") {
			t.Run(value.name+"/"+p.name, func(t *testing.T) {
				r := newHostileRig(t, hostileTask(p.over))
				res := r.run(value.fields)
				o := r.outcome(res, p.bad)
				if o.State != adapter.StateFailed || o.Reason != adapter.ReasonRenderFailed {
					t.Fatalf("%s: %s/%s %s (%s), want failed RenderFailed", p.bad, o.Operation, o.State, o.Reason, o.Error)
				}
				for _, w := range []string{"{{ .v }}", "has no value", r.file, "resources["} {
					if !strings.Contains(o.Error, w) {
						t.Errorf("error %q does not name %q", o.Error, w)
					}
				}
				if w := r.writesNaming(p.bad); len(w) != 0 {
					t.Errorf("writes for the failed resource: %v", w)
				}
				hostileOthersCreated(t, r, res, p.bad)
			})
		}
	}
}

// hostileOthersCreated checks that every resource but bad was created and
// that the status was reported naming bad's state and reason.
func hostileOthersCreated(t *testing.T, r *hostileRig, res *adapter.Result, bad string) {
	t.Helper()
	for _, name := range []string{"goodm", "badm", "badk", "goodk"} {
		if name == bad {
			continue
		}
		if o := r.outcome(res, name); o.Operation != adapter.OpCreate || o.State != adapter.StateDone {
			t.Errorf("%s: %s/%s %s (%s), want create/done", name, o.Operation, o.State, o.Reason, o.Error)
		}
	}
	o := r.outcome(res, bad)
	if st := r.statusBody(); !strings.Contains(st, bad+":"+string(o.State)+"/"+o.Reason) {
		t.Errorf("status %.300s does not report %s %s/%s", st, bad, o.State, o.Reason)
	}
}

// hostileLeaf is the rendered leaf data.a of bad as stored: the kubernetes
// object's, or the Maestro bundle's first manifest's.
func (r *hostileRig) hostileLeaf(bad string) (string, bool) {
	r.t.Helper()
	if bad == "badk" {
		obj, err := r.kube.Get(context.Background(), adapter.KubeRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default", Name: "badk-x"})
		if err != nil {
			return "", false
		}
		v, ok, _ := unstructured.NestedString(obj.Object, "data", "a")
		return v, ok
	}
	for _, w := range r.maest.Works() {
		if w.Name == "badm-x" {
			var m struct {
				Data map[string]string `json:"data"`
			}
			if err := json.Unmarshal(w.Spec.Workload.Manifests[0].Raw, &m); err != nil {
				r.t.Fatal(err)
			}
			v, ok := m.Data["a"]
			return v, ok
		}
	}
	return "", false
}

// Issue 43's own round on rendering: values an event can carry, in the
// places a template stands. A value is written as it is (and never
// rendered again: "{{ .clusterId }}" stays that text), or the resource
// fails alone: RenderFailed before any call when the value cannot be a
// name, a namespace or fit a bundle, or refused by the boundary that
// refused it, named as that boundary. A missing value anywhere inside a
// printed value (a list or map holding null), or printed by a function
// that would print Go's "<nil>" (print, printf, urlquery), fails as a
// missing value.
func TestHostileRenderedValues(t *testing.T) {
	byName := map[string]map[string]string{}
	bad := map[string]string{}
	for _, p := range hostilePositions("{{ .v }}") {
		byName[p.name] = p.over
		bad[p.name] = p.bad
	}
	huge := strings.Repeat("x", 1<<20)
	deepNil := deep(30, nil)
	const (
		created = "created"
		render  = "render"
		refused = "refused"
	)
	cases := []struct {
		pos  string
		v    any
		want string
		leaf string // created: the stored data.a
	}{
		{"maestro manifest leaf", "{{ .clusterId }}", created, "{{ .clusterId }}"},
		{"kubernetes leaf", "{{ .clusterId }}", created, "{{ .clusterId }}"},
		{"kubernetes name", "{{ .clusterId }}", render, ""},
		{"maestro discovery by_name", "{{ .clusterId }}", refused, ""},
		{"kubernetes selector value", "{{ .clusterId }}", refused, ""},
		{"kubernetes name", "a\nb", render, ""},
		{"kubernetes discovery by_name", "a\nb", render, ""},
		{"maestro discovery by_name", "a\nb", refused, ""},
		{"kubernetes label value", "a\nb", refused, ""},
		{"maestro manifest leaf", "a\nb", created, "a\nb"},
		{"kubernetes namespace", "a\x00b", render, ""},
		{"kubernetes leaf", "a\x00b", created, "a\x00b"},
		{"kubernetes name", "ü名", refused, ""},
		{"maestro target_cluster", "ü名", refused, ""},
		{"kubernetes leaf", "ü名\u202e", created, "ü名\u202e"},
		{"maestro manifest leaf", huge, render, ""},
		{"kubernetes name", huge, render, ""},
		{"kubernetes namespace", huge, render, ""},
		{"maestro target_cluster", huge, render, ""},
		{"kubernetes label value", huge, refused, ""},
		{"kubernetes selector value", huge, refused, ""},
		{"maestro work label value", huge, render, ""},
		{"kubernetes namespace", "", render, ""},
		{"kubernetes discovery namespace", "", render, ""},
		{"maestro target_cluster", "", render, ""},
		{"kubernetes leaf", "", created, ""},
		{"kubernetes namespace", "..", render, ""},
		{"kubernetes discovery by_name", "a/b", render, ""},
		{"kubernetes discovery namespace", "*", render, ""},
		{"kubernetes name", deep(40, "leaf"), render, ""},
		{"kubernetes name", true, created, "1"},
		{"maestro manifest leaf", []any{nil}, render, ""},
		{"kubernetes leaf", []any{"a", nil}, render, ""},
		{"kubernetes leaf", map[string]any{"a": nil}, render, ""},
		{"maestro manifest leaf", map[string]any{"a": map[string]any{"b": nil}}, render, ""},
		{"kubernetes leaf", deepNil, render, ""},
		{"kubernetes label value", []any{nil}, render, ""},
	}
	for _, c := range cases {
		name := fmt.Sprintf("%s/%.40q", c.pos, fmt.Sprint(c.v))
		t.Run(name, func(t *testing.T) {
			r := newHostileRig(t, hostileTask(byName[c.pos]))
			res := r.run(map[string]any{"v": c.v})
			b := bad[c.pos]
			o := r.outcome(res, b)
			switch c.want {
			case created:
				if o.State != adapter.StateDone {
					t.Fatalf("%s: %s/%s %s (%s), want done", b, o.Operation, o.State, o.Reason, o.Error)
				}
				if c.pos == "kubernetes leaf" || c.pos == "maestro manifest leaf" {
					if got, _ := r.hostileLeaf(b); got != c.leaf {
						t.Errorf("stored %.80q, want %.80q", got, c.leaf)
					}
				}
			case render:
				if o.State != adapter.StateFailed || o.Reason != adapter.ReasonRenderFailed {
					t.Fatalf("%s: %s/%s %s (%.300s), want failed RenderFailed", b, o.Operation, o.State, o.Reason, o.Error)
				}
				if w := r.writesNaming(b); len(w) != 0 {
					t.Errorf("writes for the failed resource: %.200v", w)
				}
			case refused:
				boundary, other := adapter.ReasonMaestroError, "Kubernetes"
				if b == "badk" {
					boundary, other = "KubernetesError", "maestro"
				}
				if o.State != adapter.StateFailed || o.Reason != boundary {
					t.Fatalf("%s: %s/%s %s (%.300s), want failed %s", b, o.Operation, o.State, o.Reason, o.Error, boundary)
				}
				if strings.Contains(strings.ToLower(o.Error), strings.ToLower(other)) {
					t.Errorf("a refusal by %s worded as %s's: %.300s", boundary, other, o.Error)
				}
			}
			if len(o.Error) > 64<<10 {
				t.Errorf("an error of %d bytes", len(o.Error))
			}
			hostileOthersCreated(t, r, res, b)
		})
	}
}

// deep is leaf under n nested maps {"d": ...}.
func deep(n int, leaf any) any {
	v := leaf
	for range n {
		v = map[string]any{"d": v}
	}
	return v
}

// The template functions a hostile value meets in a leaf, on both
// transports: what would print Go's "<nil>" fails as a missing value
// naming the action; what says what to do with a null keeps working.
func TestHostileTemplateFunctionsOnNull(t *testing.T) {
	cases := []struct {
		transport, tmpl string
		fields          map[string]any
		leaf            string // "" fails RenderFailed naming action
		action          string
	}{
		{"kubernetes", `{{ printf "%v" .v }}`, map[string]any{"v": nil}, "", `printf "%v" .v`},
		{"maestro", `{{ printf "%s-x" .v }}`, map[string]any{"v": nil}, "", `printf "%s-x" .v`},
		{"kubernetes", `{{ print .v }}`, nil, "", `print .v`},
		{"maestro", `{{ println .v }}`, map[string]any{"v": nil}, "", `println .v`},
		{"kubernetes", `{{ urlquery .v }}`, map[string]any{"v": nil}, "", `urlquery .v`},
		{"maestro", `{{ html .v }}`, map[string]any{"v": []any{nil}}, "", `html .v`},
		{"kubernetes", `{{ printf "%v" .v }}`, map[string]any{"v": map[string]any{"a": nil}}, "", `printf "%v" .v`},
		{"kubernetes", `{{ .v.a }}`, map[string]any{"v": map[string]any{"a": nil}}, "", `.v.a`},
		{"maestro", `{{ .v.b }}`, map[string]any{"v": map[string]any{"a": 1}}, "", ""},
		{"kubernetes", `{{ index .v 0 }}`, map[string]any{"v": []any{nil}}, "", `index .v 0`},
		{"maestro", `{{ range .v }}{{ . }}{{ end }}`, map[string]any{"v": []any{"a", nil}}, "", `.`},
		{"kubernetes", `{{ $x := .v }}{{ $x }}`, map[string]any{"v": nil}, "", `$x`},
		{"kubernetes", `{{ default "d" .v }}`, nil, "d", ""},
		{"maestro", `{{ if .v }}{{ .v }}{{ else }}none{{ end }}`, map[string]any{"v": nil}, "none", ""},
		{"kubernetes", `{{ with .v }}{{ . }}{{ end }}`, nil, "", ""},
		{"maestro", `{{ toJson .v }}`, map[string]any{"v": nil}, "null", ""},
		{"kubernetes", `{{ toJson .v }}`, map[string]any{"v": []any{nil}}, "[null]", ""},
		{"maestro", `{{ printf "%v" .v }}`, map[string]any{"v": "{{ .clusterId }}"}, "{{ .clusterId }}", ""},
		{"kubernetes", `{{ printf "%d" .v }}`, map[string]any{"v": 7}, "7", ""},
	}
	for _, c := range cases {
		t.Run(c.transport+"/"+c.tmpl+"/"+fmt.Sprint(c.fields), func(t *testing.T) {
			over := map[string]string{"@KDV@": c.tmpl}
			bad := "badk"
			if c.transport == "maestro" {
				over = map[string]string{"@MDV@": c.tmpl}
				bad = "badm"
			}
			// The leaf is a YAML double-quoted string: escape its quotes.
			for k, v := range over {
				over[k] = strings.ReplaceAll(v, `"`, `\"`)
			}
			r := newHostileRig(t, hostileTask(over))
			res := r.run(c.fields)
			o := r.outcome(res, bad)
			wantFail := c.leaf == "" && c.tmpl != `{{ with .v }}{{ . }}{{ end }}`
			if wantFail {
				if o.State != adapter.StateFailed || o.Reason != adapter.ReasonRenderFailed {
					t.Fatalf("%s: %s/%s %s (%.300s), want failed RenderFailed", bad, o.Operation, o.State, o.Reason, o.Error)
				}
				if c.action != "" && !strings.Contains(o.Error, "{{ "+c.action+" }} has no value") {
					t.Errorf("error %q does not name {{ %s }}", o.Error, c.action)
				}
				if w := r.writesNaming(bad); len(w) != 0 {
					t.Errorf("writes for the failed resource: %v", w)
				}
			} else {
				if o.State != adapter.StateDone {
					t.Fatalf("%s: %s/%s %s (%s), want done", bad, o.Operation, o.State, o.Reason, o.Error)
				}
				if got, _ := r.hostileLeaf(bad); got != c.leaf {
					t.Errorf("stored %q, want %q", got, c.leaf)
				}
			}
			hostileOthersCreated(t, r, res, bad)
		})
	}
}

// Post: a payload leaf keeps the anchor's rule (a missing value is null
// and counted, the status is sent), while a URL, a header or a body of an
// api_call that reaches a missing value is never sent with a hole in it.
func TestHostilePostMissingValue(t *testing.T) {
	report := `api_call: {method: PUT, url: "/clusters/{{ .clusterId }}/statuses", body: "{{ .status }}"}`
	cases := []struct {
		name, payload, action string
		sent                  bool // the status PUT is sent
	}{
		{"payload leaf", "{{ .v }}", report, true},
		{"payload leaf with printf", `{{ printf \"%v\" .v }}`, report, true},
		{"api_call url", "p", `api_call: {method: PUT, url: "/clusters/{{ .v }}/statuses", body: "{{ .status }}"}`, false},
		{"api_call header", "p", `api_call: {method: PUT, url: "/clusters/{{ .clusterId }}/statuses", headers: [{name: X-V, value: "{{ .v }}"}], body: "{{ .status }}"}`, false},
		{"api_call body member", "p", `api_call: {method: PUT, url: "/clusters/{{ .clusterId }}/statuses", body: '{"v": "{{ .v }}"}'}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			task := strings.Replace(hostileTask(map[string]string{"@PAYLOAD@": c.payload}), report, c.action, 1)
			r := newHostileRig(t, task)
			res := r.run(map[string]any{"v": nil})
			var puts []string
			for _, call := range r.api.Calls() {
				puts = append(puts, call.Method+" "+call.Path)
				if b, _ := json.Marshal(call); strings.Contains(string(b), "<nil>") || strings.Contains(string(b), "<no value>") || strings.Contains(call.Path, "//") {
					t.Errorf("a call with a hole: %s", b)
				}
			}
			if c.sent {
				if len(puts) != 1 {
					t.Fatalf("calls %v, want the status PUT", puts)
				}
				if st := r.statusBody(); !strings.Contains(st, `"v":null`) {
					t.Errorf("status %s, want v null", st)
				}
				if res.NullLeaves["status"] != 1 {
					t.Errorf("null leaves %v, want status: 1", res.NullLeaves)
				}
				return
			}
			if len(puts) != 0 {
				t.Errorf("calls %v, want none", puts)
			}
			if res.Err() == nil || !strings.Contains(res.Err().Error(), "{{ .v }}") {
				t.Errorf("event error %v, want one naming {{ .v }}", res.Err())
			}
		})
	}
}
