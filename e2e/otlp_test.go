package e2e

import (
	"context"
	"encoding/hex"
	"net"
	"sync"
	"testing"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/grpc"
)

// otlpSpan is one span an OTLP exporter sent, flattened for checks.
type otlpSpan struct {
	name, traceID, spanID, parentID string
	attrs                           map[string]string
	resource                        map[string]string
	errorStatus                     bool
}

// otlpReceiver is an in-process OpenTelemetry collector: the OTLP/gRPC
// trace service on a loopback port, keeping every span it receives.
type otlpReceiver struct {
	collectortrace.UnimplementedTraceServiceServer
	addr string

	mu    sync.Mutex
	spans []otlpSpan
}

// startOTLPReceiver serves until the test ends.
func startOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &otlpReceiver{addr: ln.Addr().String()}
	srv := grpc.NewServer()
	collectortrace.RegisterTraceServiceServer(srv, r)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return r
}

// Export keeps the spans of one export request.
func (r *otlpReceiver) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		res := attrMap(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				r.spans = append(r.spans, otlpSpan{
					name: s.GetName(), traceID: hex.EncodeToString(s.GetTraceId()), spanID: hex.EncodeToString(s.GetSpanId()),
					parentID: hex.EncodeToString(s.GetParentSpanId()), attrs: attrMap(s.GetAttributes()), resource: res,
					errorStatus: s.GetStatus().GetCode() == 2, // STATUS_CODE_ERROR
				})
			}
		}
	}
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

// trace returns the spans received for a trace id.
func (r *otlpReceiver) trace(traceID string) []otlpSpan {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []otlpSpan
	for _, s := range r.spans {
		if s.traceID == traceID {
			out = append(out, s)
		}
	}
	return out
}

func attrMap(kvs []*commonpb.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		v := kv.GetValue()
		switch {
		case v.GetStringValue() != "":
			m[kv.GetKey()] = v.GetStringValue()
		case v.GetValue() != nil:
			m[kv.GetKey()] = anyValue(v)
		default:
			m[kv.GetKey()] = ""
		}
	}
	return m
}

func anyValue(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_IntValue:
		return itoa(x.IntValue)
	case *commonpb.AnyValue_BoolValue:
		if x.BoolValue {
			return "true"
		}
		return "false"
	}
	return v.String()
}
