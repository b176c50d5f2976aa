package adapter_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/bundles"
	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/hyperfleetapi/apistub"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/memmaestro"
)

// benchPipeline is the onprem example's pipeline against the in-memory
// Maestro: the adapter's own cost per event, without network. memo is
// Options.FingerprintMemo.
func benchPipeline(b *testing.B, memo int) (*adapter.Pipeline, adapter.Event) {
	b.Helper()
	p, ev, _ := benchPipelineStore(b, memo)
	return p, ev
}

// benchPipelineStore is benchPipeline with its in-memory Maestro.
func benchPipelineStore(b *testing.B, memo int) (*adapter.Pipeline, adapter.Event, *memmaestro.Store) {
	b.Helper()
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
	store := memmaestro.New(memmaestro.Options{})
	p, err := adapter.New(adapter.Options{Task: task, Adapter: config.AdapterInfo{Name: "bench"}, Maestro: store, API: api,
		FingerprintMemo: memo, LookupEnv: func(string) (string, bool) { return "", false }, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
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
	if res := p.Run(context.Background(), ev); res.Err() != nil {
		b.Fatal(res.Err())
	}
	return p, ev, store
}

// BenchmarkUnchangedEvent: the common case, a resent event whose bundles are
// unchanged (one read, no write, status PUT; the fingerprints remembered,
// so no render).
func BenchmarkUnchangedEvent(b *testing.B) { benchUnchanged(b, 0) }

// BenchmarkUnchangedEventNoMemo: the same without the fingerprint memo:
// both bundles rendered and fingerprinted on every event.
func BenchmarkUnchangedEventNoMemo(b *testing.B) { benchUnchanged(b, -1) }

func benchUnchanged(b *testing.B, memo int) {
	p, ev := benchPipeline(b, memo)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res := p.Run(context.Background(), ev)
		if res.Bundles[0].Operation != adapter.OpUnchanged {
			b.Fatalf("want unchanged, got %+v", res.Bundles[0])
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(time.Millisecond), "ms/event")
}

// BenchmarkAdoptedEvent: the same event after a cut-over, its bundles made
// by another writer without a fingerprint annotation and with the content
// this adapter would write (reason Adopted, no write). After the first
// event the adoption is remembered: it should cost what
// BenchmarkUnchangedEvent costs.
func BenchmarkAdoptedEvent(b *testing.B) {
	p, ev, store := benchPipelineStore(b, 0)
	ctx := context.Background()
	for _, o := range p.Run(ctx, ev).Bundles {
		w, err := store.Get(ctx, o.Consumer, o.WorkName)
		if err != nil {
			b.Fatal(err)
		}
		d := w.DeepCopy()
		delete(d.Annotations, bundles.FingerprintAnnotation)
		if _, err := store.Update(ctx, o.Consumer, w, d); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res := p.Run(ctx, ev)
		if o := res.Bundles[0]; o.Reason != adapter.ReasonAdopted {
			b.Fatalf("want adopted, got %+v", o)
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(time.Millisecond), "ms/event")
}

func BenchmarkDecodeStructured(b *testing.B) {
	raw, err := os.ReadFile("../config/examples/onprem/dryrun/event.json")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := adapter.DecodeStructured(raw); err != nil {
			b.Fatal(err)
		}
	}
}
