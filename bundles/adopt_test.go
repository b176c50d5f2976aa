package bundles

import (
	"encoding/json"
	"testing"
)

func obj(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// The live object another writer created: the API server has added its
// metadata, status and defaults.
const liveJob = `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","namespace":"ns","uid":"u1","resourceVersion":"7",
 "generation":1,"labels":{"app":"a","extra":"x"},"annotations":{"hyperfleet.io/generation":"2"},"managedFields":[{"manager":"m"}]},
 "spec":{"backoffLimit":2,"template":{"spec":{"restartPolicy":"Never","dnsPolicy":"ClusterFirst",
 "containers":[{"name":"c","image":"i:1","args":["a","b"],"imagePullPolicy":"IfNotPresent"}]}}},
 "status":{"active":1}}`

func TestContains(t *testing.T) {
	for _, tc := range []struct {
		name    string
		desired string
		want    bool
	}{
		{"same fields, server additions ignored", `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j","namespace":"ns","labels":{"app":"a"},
		  "annotations":{"hyperfleet.io/generation":"2","bundle-adapter.io/fingerprint":"abc"}},
		  "spec":{"backoffLimit":2.0,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"i:1","args":["a","b"]}]}}}}`, true},
		{"desired status ignored", `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"status":{"active":5}}`, true},
		{"another image", `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{"template":{"spec":{"containers":[{"name":"c","image":"i:2"}]}}}}`, false},
		{"another generation annotation", `{"metadata":{"name":"j","annotations":{"hyperfleet.io/generation":"3"}}}`, false},
		{"a label live lacks", `{"metadata":{"name":"j","labels":{"team":"t"}}}`, false},
		{"a list of another length", `{"spec":{"template":{"spec":{"containers":[{"name":"c","args":["a"]}]}}}}`, false},
		{"list order matters", `{"spec":{"template":{"spec":{"containers":[{"name":"c","args":["b","a"]}]}}}}`, false},
		{"a field live lacks", `{"spec":{"parallelism":1}}`, false},
		{"a number as a string", `{"spec":{"backoffLimit":"2"}}`, false},
		{"a map where live has a scalar", `{"spec":{"backoffLimit":{"x":1}}}`, false},
		{"another kind", `{"kind":"CronJob"}`, false},
		{"empty labels match", `{"metadata":{"name":"j","labels":{}}}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Contains(obj(t, liveJob), obj(t, tc.desired)); got != tc.want {
				t.Errorf("Contains = %v, want %v", got, tc.want)
			}
		})
	}
}

// A ManifestWork that another writer created from the same template has
// the same fingerprint as the desired one (no annotation of ours), so it
// is adopted by fingerprint; one with another manifest is not.
func TestFingerprintAdoptsSameContent(t *testing.T) {
	desired := obj(t, `{"metadata":{"name":"w","labels":{"a":"1"},"annotations":{"bundle-adapter.io/fingerprint":"x"}},
	  "spec":{"workload":{"manifests":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"n":"1"}}]}}}`)
	live := obj(t, `{"metadata":{"name":"w","uid":"u","resourceVersion":"3","labels":{"a":"1"}},
	  "spec":{"workload":{"manifests":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"n":"1"}}]}},
	  "status":{"conditions":[]}}`)
	fd, err := Fingerprint(desired)
	if err != nil {
		t.Fatal(err)
	}
	fl, err := Fingerprint(live)
	if err != nil || fl != fd {
		t.Fatalf("live fingerprint %s, %v; want desired's %s", fl, err, fd)
	}
	live["spec"].(map[string]any)["workload"].(map[string]any)["manifests"].([]any)[0].(map[string]any)["data"] = map[string]any{"n": "2"}
	if fl, _ = Fingerprint(live); fl == fd {
		t.Fatal("another manifest has the same fingerprint")
	}
}
