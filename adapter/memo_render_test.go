package adapter_test

import (
	"context"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
	"github.com/bundle-adapter/bundle-adapter/task"
)

// An unchanged bundle whose inputs the memo remembers is not rendered: with
// its compiled manifest swapped for another after the first events (which
// a running adapter never does: config is fixed at load), the memo still
// decides unchanged from the fingerprint it remembers, where a render would
// see the new manifest and update. A manifest that reads the clock is never
// remembered, and memo off renders every event.
func TestMemoSkipsRender(t *testing.T) {
	for _, tc := range []struct {
		name   string
		memo   int
		wantOp adapter.Operation
	}{
		{name: "memo on: not rendered", memo: 0, wantOp: adapter.OpUnchanged},
		{name: "memo off: rendered", memo: -1, wantOp: adapter.OpUpdate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc2, err := config.LoadTaskConfig("testdata/task-memo.yaml")
			if err != nil {
				t.Fatal(err)
			}
			api := apistub.New("v1", nil)
			api.Set("GET /api/hyperfleet/v1/clusters/x", apistub.Response{Status: 200,
				Body: []byte(`{"id":"x","spec":{"region":"r1","zones":["a"],"owner":{"team":"t1"},"size":1},"labels":{}}`)})
			now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
			p, err := adapter.New(adapter.Options{Task: tc2, Adapter: config.AdapterInfo{Name: "a"}, API: api, FingerprintMemo: tc.memo,
				Maestro: memmaestro.New(memmaestro.Options{AutoStatus: true}), Clock: func() time.Time { return now },
				LookupEnv: func(string) (string, bool) { return "", false }})
			if err != nil {
				t.Fatal(err)
			}
			var clock *task.Resource
			for i := range tc2.Resources {
				if tc2.Resources[i].Name == "clock" {
					clock = &tc2.Resources[i]
				}
			}
			if p.MemoKeyed(clock) {
				t.Error("the clock bundle (its template calls now) has a memo key")
			}
			ev := adapter.Event{ID: "ev", Type: "com.redhat.hyperfleet.cluster.reconcile", Source: "test",
				Data: map[string]any{"id": "x", "generation": int64(1)}}
			for range 2 {
				if res := p.Run(context.Background(), ev); res.Err() != nil {
					t.Fatal(res.Err())
				}
			}
			other, err := task.CompileManifest("swapped", map[string]any{
				"spec": map[string]any{"workload": map[string]any{"manifests": []any{map[string]any{
					"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "swapped", "namespace": "default"}}}}}})
			if err != nil {
				t.Fatal(err)
			}
			tc2.Resources[0].Manifest.Compiled = other
			res := p.Run(context.Background(), ev)
			if res.Err() != nil {
				t.Fatal(res.Err())
			}
			if got := res.Bundles[0]; got.Name != "config" || got.Operation != tc.wantOp {
				t.Errorf("bundle %s: %s, want %s", got.Name, got.Operation, tc.wantOp)
			}
			if tc.memo >= 0 && p.MemoLen() != 2 {
				t.Errorf("memo holds %d fingerprints, want 2 (config and job; clock reads now)", p.MemoLen())
			}
		})
	}
}
