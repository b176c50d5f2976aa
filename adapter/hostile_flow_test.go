package adapter_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/kubeclient/kubeerr"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
)

// writesByName counts the writes of the last event by object name, on
// both transports.
func (r *hostileRig) writesByName() map[string]int {
	out := map[string]int{}
	for _, c := range r.maest.Calls() {
		if c.Verb != memmaestro.VerbGet && c.Verb != memmaestro.VerbGetBundles {
			out[c.Name]++
		}
	}
	for _, c := range r.kube.Calls() {
		if c.Verb != "get" && c.Verb != "list" {
			out[c.Ref.Name]++
		}
	}
	return out
}

// Issue 43's own round on the one flow: a task mixing both transports
// where one transport's client fails mid-event. The outcome stays per
// resource (the failing one failed with its own transport's reason, worded
// as that boundary; the others created), the status reports each, no
// object is written twice in the event, and the next event, with the
// client healthy again, writes only what failed, once.
func TestHostileOneFlowClientFails(t *testing.T) {
	gone := errors.New("410 Gone: the resource version is too old")
	cases := []struct {
		name   string
		fault  func(r *hostileRig)
		failed map[string]string // resource: reason
	}{
		{"kubernetes create 409", func(r *hostileRig) { r.kube.FailNext("create", 1, kubeerr.Wrap(adapter.ErrAlreadyExists, "409")) }, map[string]string{"badk": "KubernetesError"}},
		{"kubernetes create 422", func(r *hostileRig) { r.kube.FailNext("create", 1, kubeerr.Wrap(adapter.ErrInvalid, "422")) }, map[string]string{"badk": "KubernetesError"}},
		{"kubernetes create 410", func(r *hostileRig) { r.kube.FailNext("create", 1, gone) }, map[string]string{"badk": "KubernetesError"}},
		{"kubernetes create timeout", func(r *hostileRig) {
			r.kube.FailNext("create", 1, kubeerr.Wrap(adapter.ErrUnavailable, "%v", context.DeadlineExceeded))
		}, map[string]string{"badk": "KubernetesUnavailable"}},
		{"kubernetes get unavailable", func(r *hostileRig) {
			r.kube.FailNext("get", 1, kubeerr.Wrap(adapter.ErrUnavailable, "connection refused"))
		}, map[string]string{"badk": "KubernetesUnavailable"}},
		{"kubernetes get 410", func(r *hostileRig) { r.kube.FailNext("get", 1, gone) }, map[string]string{"badk": "KubernetesError"}},
		{"kubernetes second create fails", func(r *hostileRig) {
			r.kube.FailNext("create", 2, kubeerr.Wrap(adapter.ErrInvalid, "422"))
		}, map[string]string{"badk": "KubernetesError", "goodk": "KubernetesError"}},
		{"maestro create 409", func(r *hostileRig) { r.maest.FailNext(memmaestro.VerbCreate, 1, adapter.ErrAlreadyExists) }, map[string]string{"goodm": adapter.ReasonMaestroError}},
		{"maestro create 404", func(r *hostileRig) { r.maest.FailNext(memmaestro.VerbCreate, 1, adapter.ErrNotFound) }, map[string]string{"goodm": adapter.ReasonMaestroError}},
		{"maestro create unavailable", func(r *hostileRig) { r.maest.FailNext(memmaestro.VerbCreate, 1, adapter.ErrUnavailable) }, map[string]string{"goodm": adapter.ReasonMaestroUnavailable}},
		{"maestro consumer gone", func(r *hostileRig) { r.maest.FailNext(memmaestro.VerbCreate, 1, adapter.ErrConsumerNotRegistered) }, map[string]string{"goodm": adapter.ReasonConsumerNotRegistered}},
		{"maestro read fails", func(r *hostileRig) { r.maest.FailNext(memmaestro.VerbGetBundles, 1, adapter.ErrUnavailable) },
			map[string]string{"goodm": adapter.ReasonMaestroUnavailable, "badm": adapter.ReasonMaestroUnavailable}},
		{"both transports fail at once", func(r *hostileRig) {
			r.maest.FailNext(memmaestro.VerbCreate, 1, adapter.ErrUnavailable)
			r.kube.FailNext("create", 1, kubeerr.Wrap(adapter.ErrInvalid, "422"))
		}, map[string]string{"goodm": adapter.ReasonMaestroUnavailable, "badk": "KubernetesError"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newHostileRig(t, hostileTask(nil))
			c.fault(r)
			res := r.run(nil)
			st := r.statusBody()
			for _, name := range []string{"goodm", "badm", "badk", "goodk"} {
				o := r.outcome(res, name)
				if reason, bad := c.failed[name]; bad {
					if o.State != adapter.StateFailed || o.Reason != reason {
						t.Errorf("%s: %s/%s %s (%s), want failed %s", name, o.Operation, o.State, o.Reason, o.Error, reason)
					}
					other := "kubernetes"
					if strings.HasPrefix(reason, "Kubernetes") {
						other = "maestro"
					}
					if strings.Contains(strings.ToLower(o.Error), other) {
						t.Errorf("%s: error worded as %s's: %s", name, other, o.Error)
					}
				} else if o.Operation != adapter.OpCreate || o.State != adapter.StateDone {
					t.Errorf("%s: %s/%s %s (%s), want create/done", name, o.Operation, o.State, o.Reason, o.Error)
				}
				if !strings.Contains(st, name+":"+string(o.State)+"/"+o.Reason) {
					t.Errorf("status %s does not report %s %s/%s", st, name, o.State, o.Reason)
				}
			}
			for name, n := range r.writesByName() {
				if n > 1 {
					t.Errorf("%s written %d times in one event", name, n)
				}
			}
			res = r.run(nil)
			writes := r.writesByName()
			for _, name := range []string{"goodm", "badm", "badk", "goodk"} {
				o := r.outcome(res, name)
				_, failed := c.failed[name]
				want := adapter.OpUnchanged
				if failed {
					want = adapter.OpCreate
				}
				if o.Operation != want || o.State != adapter.StateDone {
					t.Errorf("next event: %s: %s/%s %s (%s), want %s/done", name, o.Operation, o.State, o.Reason, o.Error, want)
				}
				if n := writes[name+"-x"]; n != map[bool]int{true: 1, false: 0}[failed] {
					t.Errorf("next event: %s written %d times", name, n)
				}
			}
		})
	}
}

// A rule that errors on one transport only: the recreate rule of the
// Kubernetes object (or of the Maestro bundle) fails (RuleFailed) when
// its content changes, and writes nothing; the Maestro
// bundles and the other object go on, and the status reports each.
func TestHostileOneFlowRuleFailsOnOneTransport(t *testing.T) {
	for _, bad := range []string{"badk", "badm"} {
		t.Run(bad, func(t *testing.T) {
			disc := `discovery: {namespace: default, by_name: "badk-{{ .clusterId }}"}`
			if bad == "badm" {
				disc = `discovery: {by_name: "badm-{{ .clusterId }}"}`
			}
			over := map[string]string{"@KDV@": "{{ .v }}"}
			if bad == "badm" {
				over = map[string]string{"@MDV@": "{{ .v }}"}
			}
			task := strings.Replace(hostileTask(over), disc, disc+`
    lifecycle: {recreate: {when: {expression: 'int(clusterId + "-not-a-number") > 0'}, deletion_deadline: 1m}}`, 1)
			r := newHostileRig(t, task)
			r.run(map[string]any{"v": "1"})
			res := r.run(map[string]any{"v": "2"}) // the content changes: the rule is evaluated
			for _, name := range []string{"goodm", "badm", "badk", "goodk"} {
				o := r.outcome(res, name)
				if name == bad {
					if o.State != adapter.StateFailed || o.Reason != adapter.ReasonRuleFailed {
						t.Errorf("%s: %s/%s %s (%s), want failed RuleFailed", name, o.Operation, o.State, o.Reason, o.Error)
					}
				} else if o.Operation != adapter.OpUnchanged || o.State != adapter.StateDone {
					t.Errorf("%s: %s/%s %s (%s), want unchanged/done", name, o.Operation, o.State, o.Reason, o.Error)
				}
				if st := r.statusBody(); !strings.Contains(st, name+":"+string(o.State)+"/"+o.Reason) {
					t.Errorf("status %s does not report %s", st, name)
				}
			}
			if w := r.writesByName(); len(w) != 0 {
				t.Errorf("writes %v, want none", w)
			}
		})
	}
}

// A resource whose rendered kind flips between events (an event value
// chooses it). On Maestro the kind is the bundle's and must be
// ManifestWork: refused at load. On Kubernetes each kind is its own object,
// as each rendered name is: a flip creates the new kind's object once and
// never writes the other's; flipping back finds the first unchanged; a
// kind the server does not serve, or a missing one, fails the resource
// alone. (The object of the kind flipped away from is left in place: see
// docs/reliability.md, noted in this round.)
func TestHostileOneFlowKindFlips(t *testing.T) {
	file := t.TempDir() + "/task.yaml"
	mw := strings.Replace(hostileMManifest, "kind: ManifestWork", `kind: "{{ .v }}"`, 1)
	if err := os.WriteFile(file, []byte(hostileTask(map[string]string{"@MMANIFEST@": mw})), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := config.LoadTaskConfig(file); err == nil || !strings.Contains(err.Error(), "must be ManifestWork") {
		t.Errorf("a Maestro bundle's kind from an event value: load error %v, want must be ManifestWork", err)
	}

	r := newHostileRig(t, hostileTask(map[string]string{"@KMANIFEST@": strings.Replace(hostileKManifest, "kind: ConfigMap", `kind: "{{ .v }}"`, 1)}))
	steps := []struct {
		v      any
		op     adapter.Operation
		state  adapter.State
		reason string
		writes []string
	}{
		{"ConfigMap", adapter.OpCreate, adapter.StateDone, adapter.ReasonCreated, []string{"create ConfigMap"}},
		{"Secret", adapter.OpCreate, adapter.StateDone, adapter.ReasonCreated, []string{"create Secret"}},
		{"ConfigMap", adapter.OpUnchanged, adapter.StateDone, adapter.ReasonUnchanged, nil},
		{"Bogus", "", adapter.StateFailed, adapter.ReasonKubernetesError, nil},
		{nil, "", adapter.StateFailed, adapter.ReasonRenderFailed, nil},
	}
	for i, s := range steps {
		res := r.run(map[string]any{"v": s.v})
		o := r.outcome(res, "badk")
		if o.Operation != s.op || o.State != s.state || o.Reason != s.reason {
			t.Errorf("step %d (%v): %s/%s %s (%s), want %s/%s %s", i, s.v, o.Operation, o.State, o.Reason, o.Error, s.op, s.state, s.reason)
		}
		if strings.Contains(strings.ToLower(o.Error), "maestro") {
			t.Errorf("step %d: a Kubernetes failure worded as Maestro's: %s", i, o.Error)
		}
		var writes []string
		for _, c := range r.kube.Calls() {
			if c.Verb != "get" && c.Verb != "list" && c.Ref.Name == "badk-x" {
				writes = append(writes, c.Verb+" "+c.Ref.Kind)
			}
		}
		if strings.Join(writes, ",") != strings.Join(s.writes, ",") {
			t.Errorf("step %d (%v): writes %v, want %v", i, s.v, writes, s.writes)
		}
	}
}
