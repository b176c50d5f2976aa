package maestroclient

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// The errors sdk-go's gRPC transport reports for a failed Subscribe stream
// (protocol.startEventsReceiver: "subscribe stream failed: %w" around the
// gRPC status), told apart: an authentication or authorization refusal, or
// a server away or unable to decide.
func TestSubscriptionRefusal(t *testing.T) {
	tests := []struct {
		err  string
		want bool
	}{
		// Maestro's grpc_server.go Subscribe: fmt.Errorf, so gRPC code Unknown.
		{"subscribe stream failed: rpc error: code = Unknown desc = unauthorized to subscribe the event from source s1", true},
		{"subscribe stream failed: rpc error: code = Unauthenticated desc = unauthenticated", true},
		{"subscribe stream failed: rpc error: code = PermissionDenied desc = forbidden", true},
		{"subscribe stream failed: rpc error: code = Unknown desc = failed to authorize the request: x is not allowed", true},
		// The authorizer could not answer (errors.go authorizerUnavailable).
		{"subscribe stream failed: rpc error: code = Unknown desc = failed to authorize the request: Post \"https://kube/apis/authorization.k8s.io/v1/subjectaccessreviews\": dial tcp 127.0.0.1:6443: connect: connection refused", false},
		{"subscribe stream failed: rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing: dial tcp 127.0.0.1:8090: connect: connection refused\"", false},
		{"subscribe stream failed: rpc error: code = Unavailable desc = error reading from server: EOF", false},
		{"subscribe stream failed: rpc error: code = Canceled desc = context canceled", false},
		{"the server has not sent a heartbeat in 20s", false},
		{"transport: authentication handshake failed: tls: unknown certificate authority", false},
	}
	for _, tt := range tests {
		if got := subscriptionRefusal(errors.New(tt.err)); got != tt.want {
			t.Errorf("subscriptionRefusal(%q) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// errorWatch hands every error on as the transport would, keeps the last
// refusal while it is fresh, and forgets it on any other error.
func TestErrorWatch(t *testing.T) {
	now := time.Unix(1000, 0)
	w := &errorWatch{now: func() time.Time { return now }}
	in := make(chan error)
	out := w.forward(t.Context(), in)
	if again := w.forward(t.Context(), in); again != out {
		t.Fatal("a second forward made a second channel")
	}
	refused := errors.New("subscribe stream failed: rpc error: code = Unknown desc = unauthorized to subscribe the event from source s1")
	away := errors.New("subscribe stream failed: rpc error: code = Unavailable desc = error reading from server: EOF")
	// send hands err to the watch until a reader parked on out gets it (the
	// watch, like the transport, drops what nobody is waiting for).
	send := func(err error) {
		t.Helper()
		got := make(chan error, 1)
		go func() { got <- <-out }()
		for range 500 {
			in <- err
			select {
			case e := <-got:
				if e != err {
					t.Fatalf("handed on %v, want %v", e, err)
				}
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
		t.Fatalf("%v not handed on", err)
	}
	if err := w.refusal(); err != nil {
		t.Fatalf("new watch: refusal %v", err)
	}
	send(refused)
	err := w.refusal()
	var r *SubscriptionRefusedError
	if !errors.As(err, &r) || !errors.Is(err, refused) {
		t.Fatalf("after a refusal: %v, want a SubscriptionRefusedError wrapping it", err)
	}
	for _, want := range []string{"unauthorized to subscribe the event from source s1", "clients.maestro.view.enabled: false"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}
	if errors.Is(err, adapter.ErrUnavailable) {
		t.Error("a refusal is ErrUnavailable (retried), want a plain failure")
	}
	now = now.Add(refusalFresh)
	if w.refusal() == nil {
		t.Error("refusal forgotten at refusalFresh")
	}
	now = now.Add(time.Millisecond)
	if err := w.refusal(); err != nil {
		t.Errorf("refusal kept past refusalFresh: %v", err)
	}
	send(refused)
	send(away)
	if err := w.refusal(); err != nil {
		t.Errorf("after the server went away: refusal %v, want none", err)
	}

	// Nobody reading (sdk-go waits before reconnecting): a refusal is noted
	// and dropped, as the transport drops it, not held for later; another
	// error dropped (the closed connection's "state=SHUTDOWN") does not
	// forget it.
	in <- refused
	deadline := time.Now().Add(5 * time.Second)
	for w.refusal() == nil && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if w.refusal() == nil {
		t.Fatal("an error no one read was not noted")
	}
	shutdown := errors.New("grpc connection is disconnected (state=SHUTDOWN)")
	in <- shutdown
	in <- away // the watch has handled the one before once it takes this
	if err := w.refusal(); err == nil {
		t.Error("errors sdk-go did not take forgot the refusal")
	}
	// Reading out now may still take away, which the watch may be handing
	// on as this reader parks (a live hand-off, as sdk-go's would be); what
	// must never come is an error handled while no one read.
	select {
	case err := <-out:
		if err == refused || err == shutdown {
			t.Errorf("an error no one was reading was held and handed on later: %v", err)
		}
	case <-time.After(50 * time.Millisecond):
	}
}

// While Maestro refuses the pool's status subscription, no client of the
// pool sends a write: each fails with the refusal, not retried, without
// spending the write budget; Ping (/readyz) names it. Once it ages out,
// writes go to Maestro again and Ping passes. Every write (create, update,
// delete, redelete) is sent through Client.withConsumer, where the check
// is; creates reach it without a read, so they stand for all here.
func TestWritesWaitForARefusedSubscription(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/maestro/v1" {
			http.NotFound(w, r) // every bundle is absent
		}
	}))
	defer srv.Close()
	p, err := NewPool(t.Context(), Options{GRPCAddress: "127.0.0.1:1", GRPC: TLSOptions{Insecure: true},
		HTTPURL: srv.URL, HTTP: TLSOptions{Insecure: true}, Clients: 3, Retry: RetryOptions{Attempts: 1},
		Timeout: 5 * time.Second,
		// One write for consumer c1, then none for 100 s: a refused write
		// that spent it would leave the late create waiting until its
		// timeout (context deadline exceeded, not unavailable).
		ConsumerWrites: WriteBudget{Mode: BudgetFixed, PerSecond: 0.01, Burst: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	now := time.Unix(1000, 0)
	w := &errorWatch{now: func() time.Time { return now }}
	for _, c := range p.clients {
		c.subscription = w
	}
	w.pass(errors.New("subscribe stream failed: rpc error: code = Unknown desc = unauthorized to subscribe the event from source s1"))

	if err := p.Ping(t.Context()); !isRefused(err) {
		t.Errorf("Ping = %v, want the refusal", err)
	}
	bundle := func(name string) *workv1.ManifestWork {
		return &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{Manifests: []workv1.Manifest{{
				RawExtension: runtime.RawExtension{Raw: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"default"}}`)},
			}}}}}
	}
	used := map[*Client]bool{}
	for i := range 12 {
		name := "b" + string(rune('a'+i))
		used[p.client("c1", name)] = true
		_, err := p.Create(t.Context(), "c1", bundle(name), adapter.ReadAbsent)
		if !isRefused(err) || errors.Is(err, adapter.ErrUnavailable) {
			t.Errorf("create %s: %v, want the refusal, not unavailable", name, err)
		}
	}
	if len(used) != len(p.clients) {
		t.Fatalf("the names went through %d of the pool's %d clients", len(used), len(p.clients))
	}

	now = now.Add(refusalFresh + time.Millisecond)
	if err := p.Ping(context.Background()); isRefused(err) {
		t.Errorf("Ping after the refusal aged out: %v", err)
	}
	_, err = p.Create(t.Context(), "c1", bundle("late"), adapter.ReadAbsent)
	if isRefused(err) || !errors.Is(err, adapter.ErrUnavailable) {
		t.Errorf("create after the refusal aged out: %v, want sent with the budget's one write (unavailable: no gRPC server)", err)
	}
}

// NewPool gives every client the watch of the one that subscribes; with no
// status stream no client has one.
func TestPoolSharesItsSubscription(t *testing.T) {
	for _, status := range []StatusSink{nil, nopStatus{}} {
		p, err := NewPool(t.Context(), Options{GRPCAddress: "127.0.0.1:1", GRPC: TLSOptions{Insecure: true},
			HTTPURL: "http://127.0.0.1:1", HTTP: TLSOptions{Insecure: true}, Clients: 3, Status: status})
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range p.clients {
			want := &p.clients[0].transport.watch
			if status == nil {
				want = nil
			}
			if c.subscription != want {
				t.Errorf("status %T: client %d watches %p, want %p", status, i, c.subscription, want)
			}
		}
		_ = p.Close()
	}
}

type nopStatus struct{}

func (nopStatus) Status(*workv1.ManifestWork) {}
func (nopStatus) Subscribed()                 {}

func isRefused(err error) bool {
	var r *SubscriptionRefusedError
	return errors.As(err, &r)
}
