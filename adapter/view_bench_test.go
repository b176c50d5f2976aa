package adapter_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/view"
)

// BenchmarkUnchangedEventFromView: BenchmarkUnchangedEvent with the bundle
// view, every event a hit: the adapter's own CPU for an unchanged event
// that makes no Maestro request (unpacking the view's bundles, deciding
// twice, the status PUT).
func BenchmarkUnchangedEventFromView(b *testing.B) {
	task, err := config.LoadTaskConfig("../config/examples/onprem/task-config.yaml")
	if err != nil {
		b.Fatal(err)
	}
	body, err := os.ReadFile("../config/examples/onprem/dryrun/api-responses.json")
	if err != nil {
		b.Fatal(err)
	}
	api, err := apistub.Load(bytes.NewReader(body), "v1")
	if err != nil {
		b.Fatal(err)
	}
	v := view.New(view.Options{Synced: true})
	store := memmaestro.New(memmaestro.Options{AutoStatus: true})
	p, err := adapter.New(adapter.Options{Task: task, Adapter: config.AdapterInfo{Name: "bench"}, Maestro: view.Maestro(store, v), View: v, API: api,
		LookupEnv: func(string) (string, bool) { return "", false }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	raw, err := os.ReadFile("../config/examples/onprem/dryrun/event.json")
	if err != nil {
		b.Fatal(err)
	}
	ev, err := adapter.DecodeStructured(raw)
	if err != nil {
		b.Fatal(err)
	}
	for range 2 { // create, then the read that fills the view
		if res := p.Run(context.Background(), ev); res.Err() != nil {
			b.Fatal(res.Err())
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		res := p.Run(context.Background(), ev)
		if res.View != adapter.ViewHit || res.MaestroRequests != 0 {
			b.Fatalf("view %q, %d Maestro requests: want a hit without requests", res.View, res.MaestroRequests)
		}
	}
}
