package tracing

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf exports over OTLP/HTTP: spans
// are POSTed as protobuf to <endpoint>/v1/traces by Shutdown at the latest.
// (grpc, the default, is exercised end to end by e2e/tracing_test.go.)
func TestHTTPProtobufExport(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	env := map[string]string{EnvEnabled: "true", EnvEndpoint: srv.URL, EnvProtocol: "http/protobuf"}
	for k, v := range env {
		t.Setenv(k, v) // the exporter reads the endpoint itself
	}
	c, warns := FromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }, "x", "1")
	if len(warns) > 0 || c.Protocol != ProtocolHTTP {
		t.Fatalf("config %+v, warnings %q", c, warns)
	}
	p, err := Setup(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	_, span := p.Tracer().Start(context.Background(), "one")
	span.End()
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != "POST /v1/traces application/x-protobuf" {
		t.Errorf("collector received %q, want one POST /v1/traces of protobuf", got)
	}
}
