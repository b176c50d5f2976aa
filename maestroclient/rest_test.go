package maestroclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/openshift-online/maestro/pkg/api/openapi"
	"github.com/openshift-online/maestro/pkg/client/cloudevents/grpcsource"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// A bundle as Maestro's REST API answers it: metadata with labels,
// annotations, finalizers and a deletion timestamp, two manifests, a delete
// option, manifest configs and an agent-reported status with feedback.
const fullBundle = `{"id":"0b0f","kind":"ResourceBundle","href":"/api/maestro/v1/resource-bundles/0b0f","name":"c1-setup",
"consumer_name":"cluster1","version":3,"created_at":"2026-11-30T10:00:00Z","updated_at":"2026-11-30T10:00:01Z",
"metadata":{"name":"c1-setup","namespace":"cluster1","uid":"0b0f","labels":{"hyperfleet.io/cluster-id":"c1"},
 "annotations":{"bundle-adapter.io/fingerprint":"ab12","hyperfleet.io/generation":"1"},
 "finalizers":["cluster.open-cluster-management.io/manifest-work-cleanup"],
 "deletionTimestamp":"2026-11-30T10:05:00Z","creationTimestamp":"2026-11-30T10:00:00Z"},
"manifests":[{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"cluster-c1"}},
 {"apiVersion":"v1","data":{"big":12345678901,"ratio":0.5,"text":"a <b> & c"},"kind":"ConfigMap","metadata":{"name":"info","namespace":"cluster-c1"}}],
"delete_option":{"propagationPolicy":"Foreground"},
"manifest_configs":[{"resourceIdentifier":{"group":"","resource":"namespaces","name":"cluster-c1"},
 "feedbackRules":[{"type":"JSONPaths","jsonPaths":[{"name":"phase","path":".status.phase"}]}],"updateStrategy":{"type":"ServerSideApply"}}],
"status":{"conditions":[{"type":"Applied","status":"True","reason":"AppliedManifestWorkComplete","message":"","lastTransitionTime":"2026-11-30T10:00:01Z","observedGeneration":3}],
 "resourceStatus":[{"resourceMeta":{"ordinal":0,"group":"","version":"v1","kind":"Namespace","resource":"namespaces","name":"cluster-c1","namespace":""},
  "statusFeedback":{"values":[{"name":"phase","fieldValue":{"type":"String","string":"Active"}}]},
  "conditions":[{"type":"Available","status":"True","reason":"ResourceAvailable","message":"","lastTransitionTime":"2026-11-30T10:00:01Z","observedGeneration":3}]}]}}`

// A fresh bundle: nothing reported yet, empty delete option, no configs.
const bareBundle = `{"id":"0c0c","version":1,"metadata":{"name":"b","namespace":"c"},
"manifests":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}],"delete_option":{},"status":{}}`

// decodeBodies are the bundle bodies the decoders are checked on: the two
// above, what the real agent reported on (testdata), and each way a status
// can be empty.
func decodeBodies(t *testing.T) map[string]string {
	t.Helper()
	real, err := os.ReadFile("testdata/resource-bundle.json")
	if err != nil {
		t.Fatal(err)
	}
	bare := strings.TrimSuffix(bareBundle, `,"status":{}}`)
	if bare == bareBundle {
		t.Fatal("bareBundle no longer ends with an empty status")
	}
	return map[string]string{"full": fullBundle, "bare": bareBundle, "real agent": string(real),
		"status null": bare + `,"status":null}`, "no status": bare + `}`,
		"status with empty conditions":            bare + `,"status":{"conditions":[]}}`,
		"no manifest configs, delete option null": strings.Replace(bare, `"delete_option":{}`, `"delete_option":null`, 1) + `}`}
}

// decodeBundle, and a List page's decoding of each of its items, must make
// of a body exactly what the openapi client and grpcsource.ToManifestWork
// made of it (manifests compared as JSON values).
func TestDecodeBundleMatchesToManifestWork(t *testing.T) {
	bodies := decodeBodies(t)
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			var rb openapi.ResourceBundle
			if err := json.Unmarshal([]byte(body), &rb); err != nil {
				t.Fatal(err)
			}
			want, err := grpcsource.ToManifestWork(&rb)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeBundle([]byte(body))
			if err != nil {
				t.Fatal(err)
			}
			sameWork(t, "decodeBundle", got, want)
			page, err := decodeListPage([]byte(`{"total":1,"items":[`+body+`]}`), 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Items) != 1 || page.Items[0].id != rb.GetId() || page.Items[0].consumer != rb.GetConsumerName() {
				t.Fatalf("list page: %+v, want one item of id %q, consumer %q", page.Items, rb.GetId(), rb.GetConsumerName())
			}
			sameWork(t, "list page", page.Items[0].work, want)
		})
	}
}

// sameWork fails t unless got is want, manifests compared as JSON values.
func sameWork(t *testing.T, what string, got, want *workv1.ManifestWork) {
	t.Helper()
	got, want = got.DeepCopy(), want.DeepCopy()
	if g, w := manifestValues(t, got), manifestValues(t, want); !reflect.DeepEqual(g, w) {
		t.Errorf("%s: manifests differ:\n got %v\nwant %v", what, g, w)
	}
	got.Spec.Workload.Manifests, want.Spec.Workload.Manifests = nil, nil
	if !reflect.DeepEqual(normalizeTimes(got), normalizeTimes(want)) {
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		t.Errorf("%s: work differs:\n got %s\nwant %s", what, gj, wj)
	}
}

func manifestValues(t *testing.T, w *workv1.ManifestWork) []any {
	t.Helper()
	var out []any
	for _, m := range w.Spec.Workload.Manifests {
		var v any
		if err := json.Unmarshal(m.Raw, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// normalizeTimes drops the monotonic and location parts reflect sees.
func normalizeTimes(w *workv1.ManifestWork) *workv1.ManifestWork {
	w = w.DeepCopy()
	fix := func(t *time.Time) { *t = t.UTC().Round(0) }
	fix(&w.CreationTimestamp.Time)
	if w.DeletionTimestamp != nil {
		fix(&w.DeletionTimestamp.Time)
	}
	for i := range w.Status.Conditions {
		fix(&w.Status.Conditions[i].LastTransitionTime.Time)
	}
	for i := range w.Status.ResourceStatus.Manifests {
		for j := range w.Status.ResourceStatus.Manifests[i].Conditions {
			fix(&w.Status.ResourceStatus.Manifests[i].Conditions[j].LastTransitionTime.Time)
		}
	}
	return w
}

func TestDecodeBundleRejects(t *testing.T) {
	for _, body := range []string{`not json`, `{"metadata":{"name":"b"}}`, `{"version":1,"status":{"conditions":"x"}}`} {
		if _, err := decodeBundle([]byte(body)); err == nil {
			t.Errorf("decodeBundle(%s) = nil error", body)
		}
	}
}

// A List page that does not decode fails naming the item at fault: its id,
// or its place when it has no readable id.
func TestDecodeListPageNamesTheItem(t *testing.T) {
	good := `{"id":"ok-1","consumer_name":"c","version":1,"metadata":{"name":"a"},"manifests":[]}`
	for _, c := range []struct{ name, body, want string }{
		{"a status that is not one", `{"items":[` + good + `,{"id":"bad-2","version":1,"status":{"conditions":"x"}}]}`, "decode resource bundle bad-2: "},
		{"no version", `{"items":[` + good + `,{"id":"bad-3","metadata":{"name":"b"}}]}`, "decode resource bundle bad-3: resource bundle has no version"},
		{"metadata that is not one", `{"items":[{"id":"bad-4","version":1,"metadata":"x"}]}`, "decode resource bundle bad-4: metadata: "},
		{"an id that is not a string", `{"items":[` + good + `,{"id":5,"version":1}]}`, "decode resource bundle list item 2: "},
		{"items that are not a list", `{"items":{"id":"x"}}`, "decode resource bundle list: "},
		{"not JSON", `{"items":[`, "decode resource bundle list: "},
	} {
		_, err := decodeListPage([]byte(c.body), 10)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error starting %q", c.name, err, c.want)
		}
	}
}

// The reader sends a plain JSON request and classifies the answers.
func TestRESTReader(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") != "" {
			t.Errorf("Accept-Encoding %q: compression must stay off", r.Header.Get("Accept-Encoding"))
		}
		switch r.URL.Path {
		case "/api/maestro/v1/resource-bundles/ok":
			fmt.Fprint(w, bareBundle)
		case "/api/maestro/v1/resource-bundles/gone":
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"kind":"Error","code":"maestro-7","reason":"Resource with id='gone' not found"}`)
		default:
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	r, err := newRESTReader(Options{HTTPURL: srv.URL + "/", HTTP: TLSOptions{Insecure: true}}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if w, err := r.bundle(t.Context(), "ok"); err != nil || w.Name != "b" || w.Generation != 1 {
		t.Errorf("ok: %v %+v", err, w)
	}
	if _, err := r.bundle(t.Context(), "gone"); !errors.Is(err, adapter.ErrNotFound) || !strings.Contains(err.Error(), "not found") {
		t.Errorf("gone: got %v, want ErrNotFound with the server's reason", err)
	}
	if _, err := r.bundle(t.Context(), "down"); !errors.Is(err, adapter.ErrUnavailable) {
		t.Errorf("down: got %v, want ErrUnavailable", err)
	}
}
