package config

import (
	"reflect"
	"strings"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/internal/secret"
	"github.com/bundle-adapter/bundle-adapter/task"
	"gopkg.in/yaml.v3"
)

// AdapterConfig is the per-deployment file: who the adapter is and how it
// reaches the HyperFleet API, the broker and Maestro. Every leaf can be
// overridden by an environment variable (see EnvName) and flags override env.
type AdapterConfig struct {
	Info AdapterInfo `yaml:"adapter"`
	// DebugConfig makes serve log the merged configuration (secrets
	// redacted) at start.
	DebugConfig bool      `yaml:"debug_config"`
	Log         LogConfig `yaml:"log"`
	Clients     Clients   `yaml:"clients"`
	// Warnings are the load warnings of the file (keys accepted for
	// compatibility that change nothing here); never an error.
	Warnings configfile.Errors `yaml:"-"`
}

// AdapterInfo names the adapter in status reports, logs and metrics.
type AdapterInfo struct {
	Name    string `yaml:"name"`
	Version string `yaml:"version"`

	// Metadata is the metadata of the adapter config's Kubernetes-style
	// envelope (hyperfleet-adapter v0.1.1's format), nil when the file has
	// none. When set, it is what templates and CEL read as metadata, as in
	// hyperfleet-adapter v0.1.1, whose merged config takes the adapter
	// config's metadata; else the task config's envelope metadata is read.
	Metadata *task.TaskMetadata `yaml:"-"`
}

// LogConfig selects the slog handler. Defaults: level info, format json,
// output stdout.
type LogConfig struct {
	Level  string `yaml:"level"`
	Format string `yaml:"format"`
	Output string `yaml:"output"`
}

// Clients holds the three boundaries of the adapter.
type Clients struct {
	HyperfleetAPI HyperfleetAPIConfig `yaml:"hyperfleet_api"`
	Broker        BrokerSubscription  `yaml:"broker"`
	Maestro       MaestroConfig       `yaml:"maestro"`
	// Kubernetes is the API server the kubernetes transport applies its
	// objects to (transport.client: kubernetes); nil: in-cluster config.
	// With it set, clients.maestro may be left out when no resource uses
	// the maestro transport.
	Kubernetes *KubernetesClient `yaml:"kubernetes"`
}

// HyperfleetAPIConfig configures the HyperFleet API client. Relative URLs in
// the task config ("/clusters/x") are sent to BaseURL + "/api/hyperfleet/" +
// Version; every request must stay under that prefix on BaseURL's origin,
// the only one that gets the bearer token. AllowedOrigins names other
// origins (scheme://host[:port]) that absolute task-config URLs may call,
// without the token. Defaults: version v1, timeout 10s, 3 attempts,
// exponential backoff, no other origin.
type HyperfleetAPIConfig struct {
	// BaseURL, AllowedOrigins and DefaultHeaders' values are secrets
	// (internal/secret): every printed form redacts them.
	BaseURL secret.URL `yaml:"base_url"`
	// ReadinessPath is what /readyz reads on BaseURL to tell the API
	// answers (a status below 500). Default /api/hyperfleet, the API's
	// metadata, which the real API serves without authentication.
	ReadinessPath  string              `yaml:"readiness_path"`
	AllowedOrigins []secret.URL        `yaml:"allowed_origins"`
	Version        string              `yaml:"version"`
	Timeout        configfile.Duration `yaml:"timeout"`
	RetryAttempts  int                 `yaml:"retry_attempts"`
	RetryBackoff   string              `yaml:"retry_backoff"`
	// BaseDelay is the first retry delay (default 200ms) and MaxDelay caps
	// every delay (default and ceiling MaxAPIRetryDelay; a larger value
	// loads with a warning and the ceiling is used).
	BaseDelay configfile.Duration `yaml:"base_delay"`
	MaxDelay  configfile.Duration `yaml:"max_delay"`
	// DefaultHeaders are sent with every request to the configured API
	// (base_url's origin), never to an allowed_origins origin, as the token
	// is not; an api_call's own headers win. From the environment or a
	// flag: "Name=value,Name2=value".
	DefaultHeaders secret.Headers `yaml:"default_headers"`
	Auth           APIAuth        `yaml:"auth"`
}

// MaxAPIRetryDelay is the longest wait between two tries of one HyperFleet
// API request (clients.hyperfleet_api.max_delay's default and ceiling).
const MaxAPIRetryDelay = 30 * time.Second

// APIAuth reads a bearer token from a file; the token itself never appears in
// config files, dumps or logs. TokenCacheTTL is how long a token read is used
// before the file is looked at again; zero (the default) looks at the file
// (its modification time and size) on every request.
type APIAuth struct {
	TokenPath     string              `yaml:"token_path"`
	TokenCacheTTL configfile.Duration `yaml:"token_cache_ttl"`
}

// BrokerSubscription names what this adapter consumes. The queue (RabbitMQ)
// or subscription (Pub/Sub) is "<topic>-<subscription_id>": replicas that share
// a subscription id compete for events, different ids each get every event.
type BrokerSubscription struct {
	SubscriptionID string `yaml:"subscription_id"`
	Topic          string `yaml:"topic"`
}

// MaestroConfig configures the Maestro source client. Defaults: timeout 10s,
// 3 retry attempts for unavailable errors, 1 REST read in flight per pod
// (max_concurrent_reads; see maestroclient.Options.MaxConcurrentReads), and
// per consumer at most 25 writes at once then 30 per second
// (consumer_write_burst, consumer_writes_per_second; see
// maestroclient.WriteBudget): 0 means the default. consumer_write_mode
// adaptive (default) lets the rate rise from consumer_writes_per_second up
// to consumer_writes_ceiling (default 400) while the status stream (view)
// shows the agent reporting every write, with at most
// consumer_write_window (default 50) unreported above the floor; fixed
// keeps it at consumer_writes_per_second.
type MaestroConfig struct {
	GRPCServerAddress        secret.URL          `yaml:"grpc_server_address"`
	HTTPServerAddress        secret.URL          `yaml:"http_server_address"`
	SourceID                 string              `yaml:"source_id"`
	ClientID                 string              `yaml:"client_id"`
	Insecure                 bool                `yaml:"insecure"`
	Timeout                  configfile.Duration `yaml:"timeout"`
	ServerHealthinessTimeout configfile.Duration `yaml:"server_healthiness_timeout"`
	RetryAttempts            int                 `yaml:"retry_attempts"`
	MaxConcurrentReads       int                 `yaml:"max_concurrent_reads"`
	ConsumerWritesPerSecond  float64             `yaml:"consumer_writes_per_second"`
	ConsumerWriteBurst       int                 `yaml:"consumer_write_burst"`
	ConsumerWriteMode        string              `yaml:"consumer_write_mode"`
	ConsumerWritesCeiling    float64             `yaml:"consumer_writes_ceiling"`
	ConsumerWriteWindow      int                 `yaml:"consumer_write_window"`
	Keepalive                Keepalive           `yaml:"keepalive"`
	Auth                     MaestroAuth         `yaml:"auth"`
	View                     MaestroView         `yaml:"view"`
}

// MaestroView configures the watch-fed view of this source's bundles
// (maestroclient/view), on unless a config sets enabled: false: with
// Enabled, an event whose bundles the view holds, read within MaxAge, and
// would all decide unchanged makes no Maestro request. MaxAge (default 5m)
// bounds how long a change no agent reported on the status stream can go
// unseen; it never allows a write. The view is filled and kept fresh by
// Lists of this source's bundles, ListPageSize (default 1000) bundles a
// request.
type MaestroView struct {
	Enabled      bool                `yaml:"enabled"`
	MaxAge       configfile.Duration `yaml:"max_age"`
	ListPageSize int                 `yaml:"list_page_size"`
}

// Keepalive configures gRPC keepalive pings to Maestro: a ping after Time
// without activity, the connection closed when no answer comes within
// Timeout. Zero Time (the default) sends no pings.
type Keepalive struct {
	Time    configfile.Duration `yaml:"time"`
	Timeout configfile.Duration `yaml:"timeout"`
}

// MaestroAuth selects how the adapter authenticates to Maestro: "tls" (mTLS
// with the files below) or empty (plain, allowed only with insecure: true).
// HyperFleet's "none" is the same as empty.
type MaestroAuth struct {
	Type      string    `yaml:"type"`
	TLSConfig TLSConfig `yaml:"tls_config"`
}

// TLSConfig holds file paths only; key material is read at start-up.
// With auth.type tls both connections (source gRPC and REST over https)
// present the client certificate CertFile/KeyFile. CAFile and ServerName
// check the gRPC server, and the REST server unless HTTPCAFile or
// HTTPServerName say otherwise.
type TLSConfig struct {
	CAFile         string `yaml:"ca_file"`
	CertFile       string `yaml:"cert_file"`
	KeyFile        string `yaml:"key_file"`
	ServerName     string `yaml:"server_name"`
	HTTPCAFile     string `yaml:"http_ca_file"`
	HTTPServerName string `yaml:"http_server_name"`
}

// KubernetesClient configures the client of the kubernetes transport, with
// HyperFleet adapter's keys: KubeConfigPath is a kubeconfig file (empty:
// the pod's in-cluster service account), QPS and Burst the client-side
// rate limit (0: client-go's defaults, 5 and 10). APIVersion is accepted
// as HyperFleet writes it ("v1"); every manifest names its own apiVersion.
// Context picks a kubeconfig context (empty: the current one), Timeout
// bounds each request (0: the client's default) and FieldManager names the
// server-side apply field manager (empty: the client's default).
type KubernetesClient struct {
	APIVersion     string              `yaml:"api_version"`
	KubeConfigPath string              `yaml:"kube_config_path"`
	Context        string              `yaml:"context"`
	QPS            float64             `yaml:"qps"`
	Burst          int                 `yaml:"burst"`
	Timeout        configfile.Duration `yaml:"timeout"`
	FieldManager   string              `yaml:"field_manager"`
}

func defaultAdapterConfig() AdapterConfig {
	return AdapterConfig{
		Log: LogConfig{Level: "info", Format: "json", Output: "stdout"},
		Clients: Clients{
			HyperfleetAPI: HyperfleetAPIConfig{Version: "v1", ReadinessPath: "/api/hyperfleet", Timeout: configfile.Duration(10e9), RetryAttempts: 3, RetryBackoff: "exponential"},
			// The bundle view is on unless a config turns it off: HyperFleet's
			// configs have no such key, and without it every unchanged event
			// reads Maestro (issue 47: 7.5x the anchor's unchanged events/s
			// with it off, 14.7x on; docs/configuration.md "The bundle view").
			Maestro: MaestroConfig{Timeout: configfile.Duration(10e9), RetryAttempts: 3, View: MaestroView{Enabled: true}},
		},
	}
}

func (c *AdapterConfig) validate(l *configfile.ErrorList) {
	if c.Info.Name == "" {
		l.Add("adapter.name", "is required")
	}
	configfile.OneOf(l, "log.level", c.Log.Level, "debug", "info", "warn", "error")
	configfile.OneOf(l, "log.format", c.Log.Format, "json", "text")
	configfile.OneOf(l, "log.output", c.Log.Output, "stdout", "stderr")
	api := c.Clients.HyperfleetAPI
	if !api.BaseURL.IsZero() {
		checkURL(l, "clients.hyperfleet_api.base_url", api.BaseURL)
	}
	if !strings.HasPrefix(api.ReadinessPath, "/") || strings.ContainsAny(api.ReadinessPath, "?#") {
		l.Add("clients.hyperfleet_api.readiness_path", "must be a path starting with /, without query or fragment, not %q", api.ReadinessPath)
	}
	for i, o := range api.AllowedOrigins {
		if _, err := ParseOrigin(o.Reveal()); err != nil {
			l.Add(configfile.IndexPath("clients.hyperfleet_api.allowed_origins", i), "%v, not %q", err, o)
		}
	}
	configfile.OneOf(l, "clients.hyperfleet_api.retry_backoff", api.RetryBackoff, "exponential", "linear", "constant")
	c.Clients.HyperfleetAPI.validateRetryDelays(l, "clients.hyperfleet_api")
	checkHeaders(l, "clients.hyperfleet_api.default_headers", api.DefaultHeaders)
	if c.Clients.Kubernetes == nil || c.Clients.Maestro.Configured() {
		c.Clients.Maestro.validate(l, "clients.maestro")
	}
	if c.Clients.Kubernetes != nil {
		c.Clients.Kubernetes.validate(l, "clients.kubernetes")
	}
}

// Configured reports a Maestro client with any address or source id set.
func (m *MaestroConfig) Configured() bool {
	return !m.GRPCServerAddress.IsZero() || !m.HTTPServerAddress.IsZero() || m.SourceID != ""
}

func (k *KubernetesClient) validate(l *configfile.ErrorList, path string) {
	if k.APIVersion != "" && k.APIVersion != "v1" {
		l.Warn(path+".api_version", "has no effect: every manifest names its own apiVersion (HyperFleet writes v1 here)")
	}
}

func (m *MaestroConfig) validate(l *configfile.ErrorList, path string) {
	if m.GRPCServerAddress.IsZero() {
		l.Add(path+".grpc_server_address", "is required")
	} else if g := m.GRPCServerAddress; strings.Contains(g.Reveal(), "@") {
		l.Add(path+".grpc_server_address", "must be host:port or a gRPC target without user info (Maestro authenticates by auth.tls_config), not %q", secret.MaskURL(g.Reveal()))
	}
	if m.HTTPServerAddress.IsZero() {
		l.Add(path+".http_server_address", "is required")
	} else {
		checkURL(l, path+".http_server_address", m.HTTPServerAddress)
	}
	if m.SourceID == "" {
		l.Add(path+".source_id", "is required")
	}
	configfile.OneOf(l, path+".auth.type", m.Auth.Type, "", "tls", "none")
	configfile.OneOf(l, path+".consumer_write_mode", m.ConsumerWriteMode, "", "adaptive", "fixed")
	if c := m.ConsumerWritesCeiling; c != 0 && c < max(m.ConsumerWritesPerSecond, defaultConsumerWritesPerSecond) {
		l.Add(path+".consumer_writes_ceiling", "must be at least consumer_writes_per_second (0 means %v), not %v", defaultConsumerWritesPerSecond, c)
	}
	tls := m.Auth.TLSConfig
	if m.Auth.Type == "tls" && tls.CAFile == "" {
		l.Add(path+".auth.tls_config.ca_file", "is required when auth.type is tls")
	}
	if (tls.CertFile == "") != (tls.KeyFile == "") {
		l.Add(path+".auth.tls_config", "cert_file and key_file must be set together")
	}
	if m.ClientID != "" {
		l.Warn(path+".client_id", "has no effect: Maestro knows this adapter by source_id (%q), which every replica shares", m.SourceID)
	}
	if m.Auth.Type != "tls" && !m.Insecure {
		l.Add(path+".auth.type", "set auth.type: tls, or insecure: true to talk to Maestro without TLS")
	}
	m.validateTransport(l, path)
}

func (api *HyperfleetAPIConfig) validateRetryDelays(l *configfile.ErrorList, path string) {
	if api.MaxDelay.D() > MaxAPIRetryDelay {
		l.Warn(path+".max_delay", "%v is above bundle-adapter's ceiling of %v (config.MaxAPIRetryDelay), which is used instead", api.MaxDelay.D(), MaxAPIRetryDelay)
		api.MaxDelay = configfile.Duration(MaxAPIRetryDelay)
	}
}

// validHeaderName reports whether s is an HTTP header name (an RFC 9110 token).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > 0x7e || r <= 0x20 || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) {
			return false
		}
	}
	return true
}

// Values is the adapter config as plain values keyed by its YAML (snake_case)
// names, as task-config param sources read it (source: config.<path>, e.g.
// config.clients.hyperfleet_api.base_url), after env and flag overrides.
// Like hyperfleet-adapter's, it is not redacted: a param names exactly what
// it reads, and the secret types' values are revealed here (revealSecrets).
func (c *AdapterConfig) Values() map[string]any {
	b, err := yaml.Marshal(c)
	var out map[string]any
	if err == nil {
		err = yaml.Unmarshal(b, &out)
	}
	if err != nil {
		return map[string]any{"adapter": map[string]any{"name": c.Info.Name, "version": c.Info.Version}}
	}
	revealSecrets(reflect.ValueOf(c).Elem(), out)
	return out
}
