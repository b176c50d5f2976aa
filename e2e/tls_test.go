package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/internal/stacktest"
	"github.com/bundle-adapter/bundle-adapter/maestroclient"
	"github.com/bundle-adapter/bundle-adapter/maestroclient/agentsim"
)

// TestMaestroMutualTLS runs a second, real Maestro (hack/maestro.sh) whose
// source gRPC API requires mutual TLS, authorized by SubjectAccessReviews
// against the stack's kube-apiserver, and whose REST API serves HTTPS. An
// identity bound by RBAC to the test's source creates, reads, updates and
// deletes a bundle; every other client is refused and writes nothing.
func TestMaestroMutualTLS(t *testing.T) {
	st := requireStack(t)
	p := newTLSPKI(t)
	authz := startAuthorizerProxy(t, st.kubeconfig)
	m := startTLSMaestro(t, p, authz.kubeconfig)
	kc := kubeClient(t, st)
	source := unique("e2e-tls-")
	bindSource(t, kc, source, p.user)
	consumer := m.register(t, unique("tls-"))
	startSimAgent(t, m, consumer)
	good := newTLSClient(t, m, source, p.trusted(p.allowed), p.verifying())

	t.Run("bound identity: create, read over HTTPS, update, delete", func(t *testing.T) {
		crudOverTLS(t, good, consumer)
	})
	t.Run("refused gRPC clients write nothing", func(t *testing.T) {
		refusedPublishers(t, m, p, good, source, consumer)
	})
	t.Run("refused status subscription: no write, readiness names it", func(t *testing.T) {
		refusedSubscriber(t, m, p, good, source, consumer)
	})
	t.Run("authorizer unreachable: unavailable, then accepted", func(t *testing.T) {
		authorizerOutage(t, authz, good, consumer)
	})
	t.Run("refused REST clients", func(t *testing.T) {
		refusedReaders(t, m, p, source)
	})
	t.Run("adapter binary with auth.type tls", func(t *testing.T) {
		adapterOverTLS(t, st, m, p, source)
	})
}

// crudOverTLS drives one bundle through its life with a trusted client.
func crudOverTLS(t *testing.T, c *maestroclient.Client, consumer string) {
	ctx := t.Context()
	name := unique("b-")
	if _, err := c.Create(ctx, consumer, tlsBundle(name, "v1"), adapter.Unread); err != nil {
		t.Fatalf("create: %v", err)
	}
	observed := waitBundle(t, c, consumer, name, "v1")
	if _, err := c.Update(ctx, consumer, observed, tlsBundle(name, "v2")); err != nil {
		t.Fatalf("update: %v", err)
	}
	waitBundle(t, c, consumer, name, "v2")
	if err := c.Delete(ctx, consumer, name); err != nil {
		t.Fatalf("delete: %v", err)
	}
	eventually(t, 30*time.Second, "the deleted bundle gone", func() error {
		if _, err := c.Get(ctx, consumer, name); !errors.Is(err, adapter.ErrNotFound) {
			return fmt.Errorf("get: %v", err)
		}
		return nil
	})
}

// waitBundle reads the bundle over HTTPS until it carries value and the
// agent reported the current generation Available.
func waitBundle(t *testing.T, c *maestroclient.Client, consumer, name, value string) *workv1.ManifestWork {
	t.Helper()
	var w *workv1.ManifestWork
	eventually(t, 30*time.Second, "bundle "+name+" "+value+" available", func() error {
		var err error
		if w, err = c.Get(t.Context(), consumer, name); err != nil {
			return err
		}
		if got := bundleValue(w); got != value {
			return fmt.Errorf("value %q", got)
		}
		for _, cond := range w.Status.Conditions {
			if cond.Type == workv1.WorkAvailable && cond.Status == metav1.ConditionTrue && cond.ObservedGeneration == w.Generation {
				return nil
			}
		}
		return fmt.Errorf("not available at generation %d: %v", w.Generation, w.Status.Conditions)
	})
	return w
}

// refusedPublishers tries a create with each client Maestro must refuse and
// checks the error and its classification, and that nothing was written.
func refusedPublishers(t *testing.T, m *tlsMaestro, p *tlsPKI, good *maestroclient.Client, source, consumer string) {
	tests := []struct {
		name   string
		cert   *stacktest.KeyPair
		source string
		alert  string // TLS alert of the server's handshake; "": accepted
		want   error  // sentinel the create error wraps; nil: none (not retried)
		text   string // fragment of the create error
	}{
		// The source client only sees that its connection never got ready.
		{"bound identity, certificate of an untrusted CA", &p.untrusted, source, "unknown certificate authority", adapter.ErrUnavailable, "client is not ready"},
		{"no client certificate", nil, source, "certificate required", adapter.ErrUnavailable, "client is not ready"},
		// Authorized per call by a SubjectAccessReview: gRPC code Unknown.
		{"trusted certificate, identity not bound", &p.denied, source, "", nil, "unauthorized to publish the event from source " + source},
		{"bound identity, another source", &p.allowed, source + "-other", "", nil, "unauthorized to publish the event from source " + source + "-other"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			grpcTLS := p.verifying()
			if tt.cert != nil {
				grpcTLS = p.trusted(*tt.cert)
			}
			if err := handshake(t, m.grpcAddr, grpcTLS); (tt.alert == "") != (err == nil) ||
				(err != nil && !strings.Contains(err.Error(), tt.alert)) {
				t.Errorf("TLS handshake with the gRPC server: %v, want alert %q", err, tt.alert)
			}
			c := newTLSClient(t, m, tt.source, grpcTLS, p.verifying())
			name := unique("refused-")
			_, err := c.Create(t.Context(), consumer, tlsBundle(name, "v1"), adapter.Unread)
			t.Logf("maestro answered: %v", err)
			checkRefusal(t, err, tt.want, tt.text)
			if _, err := good.Get(t.Context(), consumer, name); !errors.Is(err, adapter.ErrNotFound) {
				t.Errorf("the refused create left something: get = %v", err)
			}
		})
	}
}

// refusedSubscriber opens pools that subscribe to the source's status
// events (the bundle view's stream) on the real mutual-TLS Maestro. With an
// identity its authorizer does not bind, Maestro refuses the subscription:
// Ping (/readyz) names the refusal, and a create through any client of the
// pool fails with it, not as unavailable, and writes nothing. With the
// bound identity the subscription is accepted: Ping passes and a create
// goes through.
func refusedSubscriber(t *testing.T, m *tlsMaestro, p *tlsPKI, good *maestroclient.Client, source, consumer string) {
	want := "unauthorized to subscribe the event from source " + source
	denied := newTLSPool(t, m, source, p.trusted(p.denied), p.verifying())
	eventually(t, 20*time.Second, "Ping naming the refused subscription", func() error {
		err := denied.Ping(t.Context())
		if err == nil || !strings.Contains(err.Error(), want) {
			return fmt.Errorf("Ping = %v", err)
		}
		t.Logf("Ping: %v", err)
		return nil
	})
	// And it keeps naming it across sdk-go's reconnects (each refused, each
	// followed by the closed connection's own error).
	for i := range 12 {
		time.Sleep(500 * time.Millisecond)
		if err := denied.Ping(t.Context()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Ping %d, %s later: %v, want the refusal still", i, time.Duration(i+1)*500*time.Millisecond, err)
		}
	}
	for i := range 8 { // names spread over the pool's clients
		name := unique(fmt.Sprintf("unsubscribed-%d-", i))
		_, err := denied.Create(t.Context(), consumer, tlsBundle(name, "v1"), adapter.Unread)
		checkRefusal(t, err, nil, want)
		var refused *maestroclient.SubscriptionRefusedError
		if !errors.As(err, &refused) {
			t.Errorf("create %s: %v, want a SubscriptionRefusedError", name, err)
		}
		if _, err := good.Get(t.Context(), consumer, name); !errors.Is(err, adapter.ErrNotFound) {
			t.Errorf("the refused create left something: get = %v", err)
		}
	}

	allowed := newTLSPool(t, m, source, p.trusted(p.allowed), p.verifying())
	// Refusals come at once on every reconnect: had this one been refused,
	// the check below would see it within a few seconds.
	time.Sleep(5 * time.Second)
	if err := allowed.Ping(t.Context()); err != nil {
		t.Errorf("bound identity, subscribed: Ping = %v", err)
	}
	name := unique("subscribed-")
	if _, err := allowed.Create(t.Context(), consumer, tlsBundle(name, "v1"), adapter.Unread); err != nil {
		t.Fatalf("bound identity, subscribed: create: %v", err)
	}
	waitBundle(t, good, consumer, name, "v1")
	if err := good.Delete(t.Context(), consumer, name); err != nil {
		t.Errorf("delete: %v", err)
	}
}

// authorizerOutage takes the API server that authorizes every publish away
// from Maestro: a create then fails as ErrUnavailable (a retry can fix it)
// and writes nothing; once the API server is back, the same create works.
func authorizerOutage(t *testing.T, authz *authorizerProxy, c *maestroclient.Client, consumer string) {
	name := unique("outage-")
	authz.down()
	_, err := c.Create(t.Context(), consumer, tlsBundle(name, "v1"), adapter.Unread)
	authz.up(t)
	t.Logf("maestro answered: %v", err)
	checkRefusal(t, err, adapter.ErrUnavailable, "failed to authorize the request")
	if _, err := c.Get(t.Context(), consumer, name); !errors.Is(err, adapter.ErrNotFound) {
		t.Fatalf("the refused create left something: get = %v", err)
	}
	if _, err := c.Create(t.Context(), consumer, tlsBundle(name, "v1"), adapter.Unread); err != nil {
		t.Fatalf("create once the authorizer is back: %v", err)
	}
	waitBundle(t, c, consumer, name, "v1")
	if err := c.Delete(t.Context(), consumer, name); err != nil {
		t.Fatalf("delete: %v", err)
	}
}

// handshake connects to the gRPC server at addr as a client with opts and
// returns the error of the first read after the HTTP/2 preface: nil when
// the server accepted the client and sent its SETTINGS, else the TLS alert
// it answered (with TLS 1.3 the client learns it only when reading).
func handshake(t *testing.T, addr string, opts maestroclient.TLSOptions) error {
	t.Helper()
	pem, err := os.ReadFile(opts.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{RootCAs: x509.NewCertPool(), NextProtos: []string{"h2"}, MinVersion: tls.VersionTLS12}
	cfg.RootCAs.AppendCertsFromPEM(pem)
	if opts.CertFile != "" {
		pair, err := tls.LoadX509KeyPair(opts.CertFile, opts.KeyFile)
		if err != nil {
			t.Fatal(err)
		}
		// Sent whatever CAs the server asks for, as maestroclient does.
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &pair, nil }
	}
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, cfg)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(conn, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"); err != nil {
		return err
	}
	_, err = conn.Read(make([]byte, 1))
	return err
}

// checkRefusal fails unless err is a refusal naming text and wrapping want,
// or, with want nil, no sentinel at all: a refusal no retry can fix.
func checkRefusal(t *testing.T, err, want error, text string) {
	t.Helper()
	if err == nil {
		t.Fatal("accepted, want a refusal")
	}
	if !strings.Contains(err.Error(), text) {
		t.Errorf("error does not say %q", text)
	}
	for _, s := range []error{adapter.ErrNotFound, adapter.ErrAlreadyExists, adapter.ErrUnderDeletion,
		adapter.ErrConsumerNotRegistered, adapter.ErrUnavailable, adapter.ErrInvalid} {
		if got := errors.Is(err, s); got != (s == want) {
			t.Errorf("errors.Is(err, %q) = %v", s, got)
		}
	}
}

// refusedReaders reads a bundle with REST clients that must fail: the
// server is there, so a missing bundle would answer 404, not an error.
func refusedReaders(t *testing.T, m *tlsMaestro, p *tlsPKI, source string) {
	plain := "http://" + strings.TrimPrefix(m.restURL, "https://")
	tests := []struct {
		name, url string
		http      maestroclient.TLSOptions
		want      error
		text      string
	}{
		{"plaintext against the HTTPS port", plain, maestroclient.TLSOptions{Insecure: true}, adapter.ErrInvalid, "HTTP request to an HTTPS server"},
		{"server CA not trusted (system roots)", m.restURL, maestroclient.TLSOptions{}, adapter.ErrUnavailable, "certificate signed by unknown authority"},
		{"server name not in the certificate", m.restURL, maestroclient.TLSOptions{CAFile: p.caFile, ServerName: "maestro.invalid"}, adapter.ErrUnavailable, "not maestro.invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, maestroclient.Options{
				GRPCAddress: m.grpcAddr, GRPC: p.trusted(p.allowed), HTTPURL: tt.url, HTTP: tt.http,
				SourceID: source, Retry: maestroclient.RetryOptions{Attempts: 1},
			})
			_, err := c.Get(t.Context(), "any-consumer", "any-bundle")
			t.Logf("read answered: %v", err)
			checkRefusal(t, err, tt.want, tt.text)
		})
	}
}

// adapterOverTLS runs `bundle-adapter serve` with auth.type tls: with the
// bound identity it applies the example's bundles; with an identity RBAC
// does not bind, every create is refused as an error no retry fixes.
func adapterOverTLS(t *testing.T, st *stack, m *tlsMaestro, p *tlsPKI, source string) {
	tests := []struct {
		name        string
		cert        stacktest.KeyPair
		view        string // the clients.maestro.view line, "": the default (on)
		notReady    string // fragment /readyz answers with, "": ready
		want        []string
		message     string             // fragment of the Applied condition's message, if any
		createCodes map[string]float64 // create calls by code label; -1: at least one
	}{
		{"bound identity", p.allowed, "", "", []string{"Applied=True/BundlesApplied", "Available=True/BundlesAvailable"},
			"", map[string]float64{"ok": 2, "error": 0, "unavailable": 0}},
		// The view (on by default) subscribes to the status stream, which
		// Maestro refuses first: no write is sent, /readyz says why.
		{"identity not bound", p.denied, "", "unauthorized to subscribe the event from source " + source,
			[]string{"Applied=False/ExecutionFailed", "Health=False/ExecutionFailed:resources"},
			"unauthorized to subscribe the event from source " + source, map[string]float64{"ok": 0, "error": -1, "unavailable": 0}},
		{"identity not bound, view off", p.denied, "    view: {enabled: false}\n", "",
			[]string{"Applied=False/ExecutionFailed", "Health=False/ExecutionFailed:resources"},
			"unauthorized to publish the event from source " + source, map[string]float64{"ok": 0, "error": -1, "unavailable": 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			local := *st
			local.consumer = m.register(t, unique("tls-adapter-"))
			startSimAgent(t, m, local.consumer)
			api, topic := newAPI(t), unique("e2e-tls-")
			dir := newAdapterDir(t, &local, api, topic, rabbitBroker(&local, topic))
			writeFile(t, filepath.Join(dir, "adapter-config.yaml"), tlsAdapterConfig(api, m, p, tt.cert, source, topic, tt.view))
			// /readyz's Maestro check goes through the Maestro client's
			// own TLS settings (private CA).
			proc := startAdapterUntil(t, &local, dir, topic, tt.notReady)
			c := newCluster(t, &local, api, topic)
			status := c.reconcileUntil(60*time.Second, strings.Join(tt.want, ", "), wantConditions(tt.want...))
			if msg := conditionMessage(status, "Applied"); !strings.Contains(msg, tt.message) {
				t.Errorf("Applied message %q does not say %q", msg, tt.message)
			}
			for code, want := range tt.createCodes {
				got := proc.metric("bundle_adapter_maestro_requests_total", `verb="create"`, `code="`+code+`"`)
				if (want < 0 && got == 0) || (want >= 0 && got != want) {
					t.Errorf("%v creates with code %s, want %v (-1: some)", got, code, want)
				}
			}
		})
	}
}

// conditionMessage is the message of the status condition of type typ.
func conditionMessage(status map[string]any, typ string) string {
	conds, _ := status["conditions"].([]any)
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == typ {
			msg, _ := m["message"].(string)
			return msg
		}
	}
	return ""
}

// tlsAdapterConfig is an adapter config for the TLS Maestro with cert as
// the client identity, in the config vocabulary a deployment uses.
func tlsAdapterConfig(api *hyperfleetAPI, m *tlsMaestro, p *tlsPKI, cert stacktest.KeyPair, source, topic, view string) string {
	return adapterConfig(api, topic, m.grpcAddr, m.restURL, source, fmt.Sprintf(`    auth:
      type: tls
      tls_config: {ca_file: %q, cert_file: %q, key_file: %q}
`, p.caFile, cert.CertFile, cert.KeyFile)+view)
}

// ---------------------------------------------------------------- PKI

// tlsPKI is a CA with a serving certificate for 127.0.0.1/localhost and
// client certificates, and a second, untrusted CA, all in a temp dir.
type tlsPKI struct {
	dir    string
	caFile string
	server stacktest.KeyPair
	// allowed is user (CN) in group (O), bound by RBAC to the test's source.
	allowed stacktest.KeyPair
	// denied is another user in another group, trusted but bound to nothing.
	denied stacktest.KeyPair
	// untrusted carries allowed's identity, signed by a CA Maestro ignores.
	untrusted stacktest.KeyPair
	user      string
}

// trusted is the TLS of a client presenting pair and verifying the server.
func (p *tlsPKI) trusted(pair stacktest.KeyPair) maestroclient.TLSOptions {
	return maestroclient.TLSOptions{CAFile: p.caFile, CertFile: pair.CertFile, KeyFile: pair.KeyFile}
}

// verifying is the TLS of a client that verifies the server by the CA and
// presents no certificate.
func (p *tlsPKI) verifying() maestroclient.TLSOptions {
	return maestroclient.TLSOptions{CAFile: p.caFile}
}

func newTLSPKI(t *testing.T) *tlsPKI {
	t.Helper()
	p := &tlsPKI{dir: t.TempDir(), user: unique("e2e-tls-user-")}
	ca := stacktest.NewCA(t, "e2e-tls-ca")
	other := stacktest.NewCA(t, "e2e-tls-untrusted-ca")
	p.caFile = ca.WriteCert(t, p.dir, "ca.pem")
	p.server = ca.Issue(t, stacktest.ServerTemplate("maestro")).WriteFiles(t, p.dir, "server")
	p.allowed = ca.Issue(t, stacktest.ClientTemplate(p.user, "e2e-tls-bound")).WriteFiles(t, p.dir, "allowed")
	p.denied = ca.Issue(t, stacktest.ClientTemplate(unique("e2e-tls-user-"), "e2e-tls-unbound")).WriteFiles(t, p.dir, "denied")
	p.untrusted = other.Issue(t, stacktest.ClientTemplate(p.user, "e2e-tls-bound")).WriteFiles(t, p.dir, "untrusted")
	return p
}

// ---------------------------------------------------------------- Maestro

// tlsMaestro is the second Maestro, started by hack/maestro.sh in TLS mode.
type tlsMaestro struct {
	env                           []string // hack/maestro.sh environment
	restURL, grpcAddr, brokerAddr string
	dbName, log                   string
}

// startTLSMaestro starts a Maestro of its own (ports, run dir, database)
// with gRPC mTLS authorized by the API server of kubeconfig and REST over
// HTTPS, and stops it and drops its database when the test ends.
func startTLSMaestro(t *testing.T, p *tlsPKI, kubeconfig string) *tlsMaestro {
	t.Helper()
	runDir := t.TempDir()
	ports, err := stacktest.FreePorts(5)
	if err != nil {
		t.Fatal(err)
	}
	m := &tlsMaestro{
		restURL:    "https://127.0.0.1:" + ports[0],
		grpcAddr:   "127.0.0.1:" + ports[1],
		brokerAddr: "127.0.0.1:" + ports[2],
		dbName:     strings.ReplaceAll(unique("e2e_tls_"), "-", "_"),
		log:        filepath.Join(runDir, "maestro.log"),
	}
	m.env = append(os.Environ(),
		"MAESTRO_RUN_DIR="+runDir, "MAESTRO_DB_NAME="+m.dbName, "MAESTRO_FRESH=1",
		"MAESTRO_HTTP_PORT="+ports[0], "MAESTRO_GRPC_PORT="+ports[1], "MAESTRO_BROKER_PORT="+ports[2],
		"MAESTRO_HEALTH_PORT="+ports[3], "MAESTRO_METRICS_PORT="+ports[4],
		"MAESTRO_GRPC_TLS_CERT_FILE="+p.server.CertFile, "MAESTRO_GRPC_TLS_KEY_FILE="+p.server.KeyFile,
		"MAESTRO_GRPC_CLIENT_CA_FILE="+p.caFile, "MAESTRO_GRPC_AUTHORIZER_KUBECONFIG="+kubeconfig,
		"MAESTRO_HTTPS_CERT_FILE="+p.server.CertFile, "MAESTRO_HTTPS_KEY_FILE="+p.server.KeyFile,
		"MAESTRO_HTTPS_CA_FILE="+p.caFile,
	)
	t.Cleanup(func() { m.stop(t) })
	out := m.script(t, "start")
	if want := "MAESTRO_REST_URL=" + m.restURL; !strings.Contains(out, want) {
		t.Fatalf("hack/maestro.sh start did not print %s:\n%s", want, out)
	}
	return m
}

// script runs hack/maestro.sh for this Maestro and returns its stdout.
func (m *tlsMaestro) script(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("../hack/maestro.sh", args...)
	cmd.Env = m.env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hack/maestro.sh %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return string(out)
}

// stop stops the server, shows its log when the test failed, and drops
// its database.
func (m *tlsMaestro) stop(t *testing.T) {
	cmd := exec.Command("../hack/maestro.sh", "stop")
	cmd.Env = m.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("hack/maestro.sh stop: %v\n%s", err, out)
	}
	if t.Failed() {
		if b, err := os.ReadFile(m.log); err == nil {
			t.Logf("TLS maestro log (%s), last lines:\n%s", m.log, stacktest.LastLines(string(b), 60))
		}
	}
	drop := exec.Command("psql", "-h", envOr("MAESTRO_DB_HOST", "127.0.0.1"), "-p", envOr("MAESTRO_DB_PORT", "5432"),
		"-U", envOr("MAESTRO_DB_USER", "postgres"), "-d", "postgres", "-qc",
		fmt.Sprintf(`drop database if exists "%s" with (force)`, m.dbName))
	drop.Env = append(os.Environ(), "PGPASSWORD="+os.Getenv("MAESTRO_DB_PASSWORD"))
	if out, err := drop.CombinedOutput(); err != nil {
		t.Logf("drop database %s: %v\n%s", m.dbName, err, out)
	}
}

// register registers a consumer through hack/maestro.sh (over HTTPS,
// verified by the CA) and returns its name.
func (m *tlsMaestro) register(t *testing.T, name string) string {
	t.Helper()
	m.script(t, "register", name)
	return name
}

// startSimAgent answers consumer's bundles on the TLS Maestro's (plaintext)
// agent broker: applied, available, deletions confirmed at once.
func startSimAgent(t *testing.T, m *tlsMaestro, consumer string) {
	t.Helper()
	a, err := agentsim.Start(context.Background(), agentsim.Options{
		BrokerAddress: m.brokerAddr, Consumer: consumer, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatalf("start simulated agent: %v", err)
	}
	t.Cleanup(a.Stop)
}

// newTLSClient is a maestroclient for the TLS Maestro.
func newTLSClient(t *testing.T, m *tlsMaestro, source string, grpcTLS, httpTLS maestroclient.TLSOptions) *maestroclient.Client {
	t.Helper()
	return newClient(t, maestroclient.Options{
		GRPCAddress: m.grpcAddr, GRPC: grpcTLS, HTTPURL: m.restURL, HTTP: httpTLS, SourceID: source,
	})
}

// newTLSPool opens a maestroclient Pool that subscribes to the source's
// status events (as the bundle view does), closed at the end of the test.
func newTLSPool(t *testing.T, m *tlsMaestro, source string, grpcTLS, httpTLS maestroclient.TLSOptions) *maestroclient.Pool {
	t.Helper()
	p, err := maestroclient.NewPool(context.Background(), maestroclient.Options{
		GRPCAddress: m.grpcAddr, GRPC: grpcTLS, HTTPURL: m.restURL, HTTP: httpTLS, SourceID: source,
		Timeout: 10 * time.Second, Logger: slog.New(slog.DiscardHandler), Status: discardStatus{},
	})
	if err != nil {
		t.Fatalf("maestroclient pool: %v", err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// discardStatus is a status stream consumer that keeps nothing.
type discardStatus struct{}

func (discardStatus) Subscribed()                 {}
func (discardStatus) Status(*workv1.ManifestWork) {}

// newClient opens a maestroclient closed at the end of the test; its logs
// are dropped (the errors under test are returned).
func newClient(t *testing.T, opts maestroclient.Options) *maestroclient.Client {
	t.Helper()
	opts.Timeout = 10 * time.Second
	opts.Logger = slog.New(slog.DiscardHandler)
	c, err := maestroclient.New(context.Background(), opts)
	if err != nil {
		t.Fatalf("maestroclient: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// tlsBundle is a one-ConfigMap bundle whose data carries value.
func tlsBundle(name, value string) *workv1.ManifestWork {
	cm := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":"default"},"data":{"value":%q}}`,
		name, value)
	return &workv1.ManifestWork{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{
			Manifests: []workv1.Manifest{{RawExtension: runtime.RawExtension{Raw: []byte(cm)}}},
		}},
	}
}

// bundleValue is the data.value of a tlsBundle's ConfigMap.
func bundleValue(w *workv1.ManifestWork) string {
	if len(w.Spec.Workload.Manifests) == 0 {
		return ""
	}
	var cm struct {
		Data map[string]string `json:"data"`
	}
	_ = json.Unmarshal(w.Spec.Workload.Manifests[0].Raw, &cm)
	return cm.Data["value"]
}

// ---------------------------------------------------------------- authorizer

// authorizerProxy forwards TCP connections to the stack's API server.
// Maestro makes its SubjectAccessReviews through it (kubeconfig), so the
// test can take the authorizer away (down) and bring it back (up).
type authorizerProxy struct {
	target, addr, kubeconfig string

	mu    sync.Mutex
	ln    net.Listener // nil while down
	conns []net.Conn
}

// startAuthorizerProxy proxies the API server of kubeconfig and writes a
// copy of kubeconfig that reaches it through the proxy.
func startAuthorizerProxy(t *testing.T, kubeconfig string) *authorizerProxy {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatalf("kubeconfig: %v", err)
	}
	cluster := cfg.Clusters[cfg.Contexts[cfg.CurrentContext].Cluster]
	u, err := url.Parse(cluster.Server)
	if err != nil {
		t.Fatal(err)
	}
	a := &authorizerProxy{target: u.Host}
	a.listen(t, "127.0.0.1:0")
	t.Cleanup(a.down)
	u.Host = a.addr
	cluster.Server = u.String()
	a.kubeconfig = filepath.Join(t.TempDir(), "authorizer.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, a.kubeconfig); err != nil {
		t.Fatal(err)
	}
	return a
}

func (a *authorizerProxy) listen(t *testing.T, addr string) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("authorizer proxy: %v", err)
	}
	a.mu.Lock()
	a.ln, a.addr = ln, ln.Addr().String()
	a.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go a.forward(c)
		}
	}()
}

// forward copies between c and a new connection to the API server until
// either side closes.
func (a *authorizerProxy) forward(c net.Conn) {
	up, err := net.Dial("tcp", a.target)
	if err != nil {
		c.Close()
		return
	}
	a.mu.Lock()
	if a.ln == nil {
		a.mu.Unlock()
		c.Close()
		up.Close()
		return
	}
	a.conns = append(a.conns, c, up)
	a.mu.Unlock()
	go func() { _, _ = io.Copy(up, c); up.Close() }()
	_, _ = io.Copy(c, up)
	c.Close()
}

// down stops listening and cuts every proxied connection: dialing the
// authorizer is then refused.
func (a *authorizerProxy) down() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ln != nil {
		a.ln.Close()
		a.ln = nil
	}
	for _, c := range a.conns {
		c.Close()
	}
	a.conns = nil
}

// up listens again on the same address.
func (a *authorizerProxy) up(t *testing.T) { a.listen(t, a.addr) }

// ---------------------------------------------------------------- RBAC

// bindSource lets user publish to and subscribe from source: a ClusterRole
// on nonResourceURL /sources/<source> (verbs pub, sub) bound to the user,
// both removed when the test ends. It waits until the API server's
// authorizer answers a SubjectAccessReview for it with allowed.
func bindSource(t *testing.T, kc *kubernetes.Clientset, source, user string) {
	t.Helper()
	name := source + "-publisher"
	role := map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
		"metadata": map[string]any{"name": name},
		"rules":    []any{map[string]any{"nonResourceURLs": []string{"/sources/" + source}, "verbs": []string{"pub", "sub"}}},
	}
	binding := map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
		"metadata": map[string]any{"name": name},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
		"subjects": []any{map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}},
	}
	for _, obj := range []struct {
		resource string
		body     map[string]any
	}{{"clusterroles", role}, {"clusterrolebindings", binding}} {
		createRBAC(t, kc, obj.resource, name, obj.body)
	}
	eventually(t, 30*time.Second, "RBAC allowing "+user+" to publish to "+source, func() error {
		allowed, err := accessReview(kc, user, "e2e-tls-bound", "/sources/"+source, "pub")
		if err == nil && !allowed {
			err = errors.New("not allowed yet")
		}
		return err
	})
}

// createRBAC creates an RBAC object from its JSON form and deletes it when
// the test ends.
func createRBAC(t *testing.T, kc *kubernetes.Clientset, resource, name string, obj map[string]any) {
	t.Helper()
	body, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	rest := kc.RbacV1().RESTClient()
	if err := rest.Post().Resource(resource).Body(body).Do(t.Context()).Error(); err != nil {
		t.Fatalf("create %s %s: %v", resource, name, err)
	}
	t.Cleanup(func() {
		if err := rest.Delete().Resource(resource).Name(name).Do(context.Background()).Error(); err != nil {
			t.Errorf("delete %s %s: %v", resource, name, err)
		}
	})
}

// accessReview asks the API server what Maestro's authorizer asks it.
func accessReview(kc *kubernetes.Clientset, user, group, path, verb string) (bool, error) {
	body, _ := json.Marshal(map[string]any{
		"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
		"spec": map[string]any{
			"user": user, "groups": []string{group},
			"nonResourceAttributes": map[string]any{"path": path, "verb": verb},
		},
	})
	raw, err := kc.AuthorizationV1().RESTClient().Post().Resource("subjectaccessreviews").
		Body(body).Do(context.Background()).Raw()
	if err != nil {
		return false, err
	}
	var sar struct {
		Status struct {
			Allowed bool `json:"allowed"`
		} `json:"status"`
	}
	return sar.Status.Allowed, json.Unmarshal(raw, &sar)
}
