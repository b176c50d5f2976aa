package maestroclient

import (
	workv1 "open-cluster-management.io/api/work/v1"
	grpcoptions "open-cluster-management.io/sdk-go/pkg/cloudevents/generic/options/grpc"

	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/secret"
)

// Defaults applied by New to zero-valued Options fields.
const (
	DefaultGRPCAddress    = "127.0.0.1:8090"
	DefaultHTTPURL        = "http://127.0.0.1:8000"
	DefaultSourceID       = "bundle-adapter"
	DefaultTimeout        = 10 * time.Second
	DefaultRetryAttempts  = 3
	DefaultInitialBackoff = 200 * time.Millisecond
	DefaultMaxBackoff     = 2 * time.Second
	// MaxRetryBackoff caps RetryOptions.MaxBackoff (and InitialBackoff):
	// every call is bounded by Timeout anyway, and a larger wait only
	// postpones the failure.
	MaxRetryBackoff = time.Minute
	// DefaultClients is the size of a Pool: 4 source clients lift the
	// create ceiling from one client's ~50 publishes/s to ~200/s.
	DefaultClients = 4
	// DefaultMaxConcurrentReads bounds the REST reads in flight; see
	// Options.MaxConcurrentReads.
	DefaultMaxConcurrentReads = 1
)

// Options configures a Client. The zero value of every field selects the
// default documented on it; TLS is never switched off implicitly.
type Options struct {
	// GRPCAddress is the host:port of Maestro's source gRPC server (the one
	// behind --grpc-server-bindport). Default DefaultGRPCAddress.
	GRPCAddress string
	// GRPC secures the gRPC connection. Plaintext requires GRPC.Insecure.
	GRPC TLSOptions
	// GRPCTokenFile, when set, names a file holding a bearer token sent with
	// every gRPC call (Maestro --grpc-authn-type=token). Requires TLS.
	GRPCTokenFile string

	// HTTPURL is the base URL of Maestro's REST API, such as
	// https://maestro.example:8000. Default DefaultHTTPURL. An http:// URL
	// requires HTTP.Insecure; an https:// URL forbids it.
	HTTPURL string
	// HTTP secures the REST connection.
	HTTP TLSOptions

	// SourceID identifies this client's bundles in Maestro. Bundles are
	// addressed by (SourceID, consumer, name): every replica of one adapter
	// must use the same value. Default DefaultSourceID.
	SourceID string

	// Timeout bounds every call, retries included, on top of the caller's
	// context. Default DefaultTimeout.
	Timeout time.Duration
	// Retry controls the retries of calls failing with ErrUnavailable.
	Retry RetryOptions

	// Clients is how many Clients NewPool opens, each with its own source
	// connection and publish limiter; New ignores it. Default DefaultClients.
	Clients int

	// MaxConcurrentReads bounds the REST reads in flight at once, across
	// every Client of a Pool; a read waits for a free slot (bounded by its
	// context). Maestro serves each REST request on two PostgreSQL
	// connections (its per-request transaction and the query) and keeps
	// only two idle: with two reads in flight it opens, and PostgreSQL
	// forks, a new session for about every other read, which costs more
	// than the read. On the load harness one read in flight gave 286
	// unchanged events/s, two 161/s, four 165/s, 64 141/s (bench/README.md).
	// Raise it when Maestro is far away (reads then wait on the network,
	// not on Maestro) or its database connections are pooled (PgBouncer).
	// Default DefaultMaxConcurrentReads.
	MaxConcurrentReads int

	// ConsumerWrites bounds the writes sent for each consumer, across every
	// Client of a Pool, so that one agent's backlog cannot fill its channel
	// in Maestro and stall Maestro's broker for every agent (see
	// WriteBudget). Default: adaptive, DefaultConsumerWriteBurst at once,
	// then from DefaultConsumerWritesPerSecond up to
	// DefaultConsumerWriteCeiling as the status stream (Status) shows the
	// agent keeping up; DefaultConsumerWritesPerSecond without a stream.
	ConsumerWrites WriteBudget

	// Keepalive configures gRPC keepalive pings on the source connection.
	// Zero Time (the default) sends none.
	Keepalive KeepaliveOptions

	// ServerHealthinessTimeout is how long the source connection waits for
	// Maestro's gRPC heartbeat before it reconnects. Zero (the default)
	// checks no heartbeat, as sdk-go does without the option.
	ServerHealthinessTimeout time.Duration

	// Logger receives the client's logs and those of the maestro and sdk-go
	// libraries (their informational messages at debug level). Default
	// slog.Default().
	Logger *slog.Logger

	// Status, when set, receives the source's status stream: the client
	// subscribes (a Pool: its first Client only) and hands every status
	// event and every (re)subscription to it (see maestroclient/view).
	// nil (the default): no subscription, as status is read with Get.
	Status StatusSink
}

// StatusSink receives a source's status stream. Calls come from the
// client's receiving goroutine, one at a time; they must not block.
type StatusSink interface {
	// Subscribed is called after every (re)subscription: events may have
	// been lost before it.
	Subscribed()
	// Status is one status event as sdk-go's source codec decodes it.
	Status(work *workv1.ManifestWork)
}

// TLSOptions holds the transport security of one connection. With no file
// set, TLS verifies the server against the system roots.
type TLSOptions struct {
	// Insecure switches TLS off (plaintext). Only for local servers and tests.
	Insecure bool
	// CAFile is a PEM bundle of the CAs that sign the server certificate.
	// Empty means the system roots.
	CAFile string
	// CertFile and KeyFile hold the PEM client certificate and key for mTLS.
	// Both or neither. They are read again on every handshake, so a rotated
	// pair is picked up without a restart.
	CertFile string
	KeyFile  string
	// ServerName overrides the name checked against the server certificate.
	ServerName string
	// InsecureSkipVerify accepts any server certificate. Tests only.
	InsecureSkipVerify bool
}

// RetryOptions bounds the retries of calls that failed with ErrUnavailable.
// No other failure is retried. The wait doubles after every attempt.
type RetryOptions struct {
	// Attempts is the total number of tries, the first included. Default
	// DefaultRetryAttempts; 1 disables retries.
	Attempts int
	// InitialBackoff is the wait before the second try. Default
	// DefaultInitialBackoff.
	InitialBackoff time.Duration
	// MaxBackoff caps the wait between tries. Default DefaultMaxBackoff;
	// at most MaxRetryBackoff. InitialBackoff is capped at MaxBackoff.
	MaxBackoff time.Duration
}

// withDefaults returns a copy of o with defaults filled in.
func (o Options) withDefaults() Options {
	o.GRPCAddress = orDefault(o.GRPCAddress, DefaultGRPCAddress)
	o.HTTPURL = orDefault(o.HTTPURL, DefaultHTTPURL)
	o.SourceID = orDefault(o.SourceID, DefaultSourceID)
	o.Timeout = orDefault(o.Timeout, DefaultTimeout)
	o.Retry.Attempts = orDefault(o.Retry.Attempts, DefaultRetryAttempts)
	o.Retry.InitialBackoff = orDefault(o.Retry.InitialBackoff, DefaultInitialBackoff)
	o.Retry.MaxBackoff = min(orDefault(o.Retry.MaxBackoff, DefaultMaxBackoff), MaxRetryBackoff)
	o.Retry.InitialBackoff = min(o.Retry.InitialBackoff, o.Retry.MaxBackoff)
	o.Clients = orDefault(o.Clients, DefaultClients)
	o.MaxConcurrentReads = orDefault(o.MaxConcurrentReads, DefaultMaxConcurrentReads)
	o.ConsumerWrites.PerSecond = orDefault(o.ConsumerWrites.PerSecond, DefaultConsumerWritesPerSecond)
	o.ConsumerWrites.Burst = orDefault(o.ConsumerWrites.Burst, DefaultConsumerWriteBurst)
	o.ConsumerWrites.Mode = orDefault(o.ConsumerWrites.Mode, BudgetAdaptive)
	o.ConsumerWrites.Ceiling = orDefault(o.ConsumerWrites.Ceiling, max(DefaultConsumerWriteCeiling, o.ConsumerWrites.PerSecond))
	o.ConsumerWrites.Window = orDefault(o.ConsumerWrites.Window, DefaultConsumerWriteWindow)
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// validate reports every inconsistent field of defaulted options.
func (o Options) validate() error {
	var errs []error
	if o.Timeout < 0 || o.Retry.Attempts < 1 || o.Retry.InitialBackoff < 0 || o.Retry.MaxBackoff < 0 {
		errs = append(errs, errors.New("timeout, retry attempts and backoffs must be positive"))
	}
	if o.Clients < 1 {
		errs = append(errs, errors.New("clients must be positive"))
	}
	if o.MaxConcurrentReads < 1 {
		errs = append(errs, errors.New("max concurrent reads must be positive"))
	}
	if o.ConsumerWrites.PerSecond < 0 || o.ConsumerWrites.Burst < 1 {
		errs = append(errs, errors.New("consumer writes: rate and burst must be positive"))
	}
	if w := o.ConsumerWrites; (w.Mode != BudgetAdaptive && w.Mode != BudgetFixed) || w.Ceiling < w.PerSecond || w.Window < 1 {
		errs = append(errs, fmt.Errorf("consumer writes: mode %q must be %s or %s, the ceiling at least the rate, the window positive",
			w.Mode, BudgetAdaptive, BudgetFixed))
	}
	errs = append(errs, o.GRPC.validate("grpc"))
	errs = append(errs, o.HTTP.validate("http"))
	if o.GRPCTokenFile != "" && o.GRPC.Insecure {
		errs = append(errs, errors.New("grpc: a token requires TLS, it is never sent in plaintext"))
	}
	errs = append(errs, o.validateURL())
	return errors.Join(errs...)
}

// validateURL checks the REST URL; its errors name it masked
// (secret.MaskURL), never its password.
func (o Options) validateURL() error {
	shown := secret.MaskURL(o.HTTPURL)
	u, err := url.Parse(o.HTTPURL)
	if err != nil || u.Host == "" {
		return fmt.Errorf("http: invalid URL %q", shown)
	}
	if err := secret.CheckAddress(o.HTTPURL); err != nil {
		return fmt.Errorf("http: URL %w", err)
	}
	switch {
	case u.Scheme == "http" && !o.HTTP.Insecure:
		return fmt.Errorf("http: URL %q is plaintext: use https or set HTTP.Insecure", shown)
	case u.Scheme == "https" && o.HTTP.Insecure:
		return fmt.Errorf("http: URL %q is https but HTTP.Insecure is set", shown)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("http: URL %q: scheme must be http or https", shown)
	}
	return nil
}

func (t TLSOptions) validate(name string) error {
	if (t.CertFile == "") != (t.KeyFile == "") {
		return fmt.Errorf("%s: client certificate and key files go together", name)
	}
	if t.Insecure && (t.CAFile != "" || t.CertFile != "" || t.InsecureSkipVerify || t.ServerName != "") {
		return fmt.Errorf("%s: Insecure (plaintext) excludes every TLS setting", name)
	}
	return nil
}

// KeepaliveOptions are gRPC keepalive pings: one after Time without
// activity, the connection closed when no answer comes within Timeout
// (gRPC's default of 20s when zero).
type KeepaliveOptions struct {
	Time, Timeout time.Duration
}

func (k KeepaliveOptions) grpc() grpcoptions.KeepAliveOptions {
	if k.Time <= 0 {
		return grpcoptions.KeepAliveOptions{}
	}
	timeout := k.Timeout
	if timeout <= 0 {
		timeout = 20 * time.Second
	}
	return grpcoptions.KeepAliveOptions{Enable: true, Time: k.Time, Timeout: timeout}
}

// Check reports what NewPool would refuse in o (defaults applied) before
// it connects: inconsistent options, and TLS files that cannot be read or
// parsed. serve and validate run it before anything connects.
func (o Options) Check() error {
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return fmt.Errorf("maestroclient: invalid options: %w", err)
	}
	if _, err := o.GRPC.tlsConfig(); err != nil {
		return fmt.Errorf("maestroclient: grpc: %w", err)
	}
	if _, err := o.HTTP.tlsConfig(); err != nil {
		return fmt.Errorf("maestroclient: http: %w", err)
	}
	return nil
}
