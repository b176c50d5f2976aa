package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/task"
	"github.com/spf13/pflag"
)

func TestExamplesLoad(t *testing.T) {
	dirs, err := filepath.Glob("examples/*")
	if err != nil || len(dirs) < 2 {
		t.Fatalf("want at least two example providers, got %v (%v)", dirs, err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			cfg, err := Load(Files{
				Adapter: filepath.Join(dir, "adapter-config.yaml"),
				Task:    filepath.Join(dir, "task-config.yaml"),
				Broker:  filepath.Join(dir, "broker.yaml"),
			}, nil)
			if err != nil {
				t.Fatalf("example must be valid:\n%v", err)
			}
			if len(cfg.Task.Resources) < 2 {
				t.Errorf("want a bundle set of at least two bundles, got %d", len(cfg.Task.Resources))
			}
			if !hasRecreateRule(cfg.Task) {
				t.Error("want a bundle with a recreate rule (the validation Job)")
			}
		})
	}
}

func hasRecreateRule(c *task.TaskConfig) bool {
	for _, r := range c.Resources {
		if r.Lifecycle != nil && r.Lifecycle.Recreate != nil && r.Lifecycle.Recreate.When.Compiled.Program != nil {
			return true
		}
	}
	return false
}

// Each broken fixture must fail with messages naming file, line, YAML path
// and the problem.
func TestBrokenTaskConfigs(t *testing.T) {
	tests := []struct {
		file string
		want []string
	}{
		{"unknown-key.yaml", []string{`unknown-key.yaml:7: resources[0].discovry: unknown field "discovry"; did you mean "discovery"?`}},
		{"recreate-without-discovery.yaml", []string{`recreate-without-discovery.yaml:11: resources[0].lifecycle.recreate: requires a discovery block`}},
		{"bad-cel.yaml", []string{
			`bad-cel.yaml:5:18: preconditions[0].expression: CEL: 1:1: undeclared reference to 'clusterID' (did you mean 'clusterId'?)`,
			`bad-cel.yaml:12:50: resources[0].lifecycle.delete.when.expression: CEL: 1:15: Syntax error`,
		}},
		{"bad-template.yaml", []string{
			`bad-template.yaml:5: resources[0].transport.maestro.target_cluster: `,
			`unclosed action`,
			`bad-template.yaml:7: resources[0].discovery.by_name: `,
			`function "nosuchfunc" not defined`,
		}},
		{"ref-outside.yaml", []string{
			`ref-outside.yaml:6: resources[0].manifest.ref: ref "../../examples/onprem/bundles/cluster-setup.yaml" points outside the config file's folder`,
			`ref-outside.yaml:10: resources[1].manifest.ref: absolute ref "/etc/adapter/manifestwork.yaml" is outside the task config's folder and manifestwork.yaml is not in it`,
		}},
		{"destructive-recreate.yaml", []string{
			`destructive-recreate.yaml:9: resources[0].lifecycle.recreate: the bundle contains a Namespace`,
			`destructive-recreate.yaml:15: resources[1].lifecycle.recreate: the bundle contains a CustomResourceDefinition`,
		}},
		{"other-transport.yaml", []string{`other-transport.yaml:5: resources[0].transport.client: must be maestro or kubernetes, not "grpc"`}},
		{"duplicates.yaml", []string{
			// params[1] redefines clusterId: allowed, as in hyperfleet-adapter
			// (the later value wins; adapter.TestParamSourcesByDottedPath).
			`duplicates.yaml:4: params[2].name: "resources" is a built-in name`,
			`duplicates.yaml:10: resources[1].name: resource name "setup" is already used at resources[0]`,
			`duplicates.yaml:17: post.post_actions[0].api_call.method: must be one of GET, POST, PUT, PATCH, DELETE, not "PUTT"`,
		}},
		{"missing-required.yaml", []string{
			`missing-required.yaml:2: params[0].source: is required`,
			`missing-required.yaml:4: resources[0].manifest: is required`,
			`missing-required.yaml:5: resources[0].transport.maestro.target_cluster: is required`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			_, err := LoadTaskConfig(filepath.Join("testdata", "broken", tt.file))
			assertErrors(t, err, tt.want)
		})
	}
}

func TestDestructiveRecreateAllowedWithFlag(t *testing.T) {
	_, err := LoadTaskConfig(filepath.Join("testdata", "broken", "destructive-recreate.yaml"))
	if strings.Contains(err.Error(), "resources[2]") {
		t.Errorf("allow_destructive_recreate: true must accept the recreate rule, got:\n%v", err)
	}
}

func TestBrokenAdapterConfig(t *testing.T) {
	_, err := LoadAdapterConfig(filepath.Join("testdata", "adapter", "bad-adapter.yaml"), nil)
	assertErrors(t, err, []string{
		`bad-adapter.yaml:2: log.level: must be one of debug, info, warn, error, not "verbose"`,
		`bad-adapter.yaml:4: clients.hyperfleet_api.base_url: must be an http(s) URL with a host`,
		`bad-adapter.yaml:4: clients.hyperfleet_api.timeout: must be a duration such as 10s or 5m, not "soon"`,
		`bad-adapter.yaml:4: clients.hyperfleet_api.readiness_path: must be a path starting with /, without query or fragment, not "healthz?x=1"`,
		`clients.maestro.http_server_address: is required`,
		`clients.maestro.auth.type: set auth.type: tls, or insecure: true`,
		`bad-adapter.yaml:8: clients.maestro.max_concurrent_reads: must not be negative (0 means 1), not -1`,
		`bad-adapter.yaml:9: clients.maestro.view.max_age: must not be negative, got -1s`,
		`bad-adapter.yaml:10: clients.maestro.consumer_writes_per_second: must not be negative (0 means 30), not -5`,
		`bad-adapter.yaml:11: clients.maestro.consumer_write_burst: must not be negative (0 means 25), not -1`,
		`bad-adapter.yaml:12: clients.maestro.consumer_write_mode: must be one of "", adaptive, fixed, not "fast"`,
		`bad-adapter.yaml:13: clients.maestro.consumer_writes_ceiling: must be at least consumer_writes_per_second (0 means 30), not 10`,
	})
}

func assertErrors(t *testing.T, err error, want []string) {
	t.Helper()
	if err == nil {
		t.Fatal("want errors, got none")
	}
	var es configfile.Errors
	if !errors.As(err, &es) {
		t.Fatalf("want config.Errors, got %T: %v", err, err)
	}
	got := err.Error()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("missing error %q in:\n%s", w, got)
		}
	}
}

func TestEnvOverridesNestedKeys(t *testing.T) {
	t.Setenv("HYPERFLEET_MAESTRO_SOURCE_ID", "from-env")
	t.Setenv("HYPERFLEET_API_TIMEOUT", "7s")
	t.Setenv("HYPERFLEET_MAESTRO_CA_FILE", "/certs/ca.crt")
	t.Setenv("LOG_LEVEL", "debug")
	t.Setenv("HYPERFLEET_MAESTRO_GRPC_SERVER_ADDRESS", "env:8090")
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	RegisterAdapterFlags(fs)
	if err := fs.Parse([]string{"--maestro-grpc-server-address=flag:8090"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadAdapterConfig("examples/onprem/adapter-config.yaml", fs)
	if err != nil {
		t.Fatal(err)
	}
	m := cfg.Clients.Maestro
	checks := []struct{ name, got, want string }{
		{"clients.maestro.source_id (env)", m.SourceID, "from-env"},
		{"clients.hyperfleet_api.timeout (env)", cfg.Clients.HyperfleetAPI.Timeout.String(), "7s"},
		{"clients.maestro.auth.tls_config.ca_file (short env name)", m.Auth.TLSConfig.CAFile, "/certs/ca.crt"},
		{"log.level (LOG_LEVEL)", cfg.Log.Level, "debug"},
		{"clients.maestro.grpc_server_address (flag beats env)", m.GRPCServerAddress.Reveal(), "flag:8090"},
		{"clients.maestro.http_server_address (file)", m.HTTPServerAddress.Reveal(), "http://127.0.0.1:8000"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
}

func TestEnvOverrideBadValueNamesVariable(t *testing.T) {
	t.Setenv("HYPERFLEET_MAESTRO_TIMEOUT", "forever")
	_, err := LoadAdapterConfig("examples/onprem/adapter-config.yaml", nil)
	assertErrors(t, err, []string{`clients.maestro.timeout: override from HYPERFLEET_MAESTRO_TIMEOUT: must be a duration`})
}

func TestBrokerEnvOverrides(t *testing.T) {
	t.Setenv("BROKER_RABBITMQ_URL", "amqp://u:p@rabbit:5672/")
	t.Setenv("SUBSCRIBER_PARALLELISM", "9")
	cfg, err := LoadBrokerConfig("examples/onprem/broker.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Settings.RabbitMQ.URL.Reveal() != "amqp://u:p@rabbit:5672/" || cfg.Subscriber.Parallelism != 9 {
		t.Errorf("env overrides not applied: url=%q parallelism=%d", cfg.Settings.RabbitMQ.URL, cfg.Subscriber.Parallelism)
	}
}

func TestWrappedCamelCaseConfigsMatchPlainOnes(t *testing.T) {
	cfg, err := LoadAdapterConfig("examples/gcp/adapter-config.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Info.Name != "gcp-bundles" || cfg.Clients.Maestro.GRPCServerAddress.Reveal() != "127.0.0.1:8090" || cfg.Clients.HyperfleetAPI.RetryAttempts != 3 {
		t.Errorf("envelope/camelCase not decoded: %+v", cfg)
	}
	task, err := LoadTaskConfig("examples/gcp/task-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if task.Metadata.Name != "gcp-bundles" || len(task.Preconditions[0].Capture) != 3 {
		t.Errorf("wrapped task config not decoded: metadata=%+v", task.Metadata)
	}
}

func TestDumpRedactsSecrets(t *testing.T) {
	cfg, err := Load(Files{Adapter: "examples/onprem/adapter-config.yaml", Task: "examples/onprem/task-config.yaml", Broker: "examples/onprem/broker.yaml"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := cfg.Dump(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "guest:guest") {
		t.Errorf("dump leaks the RabbitMQ password:\n%s", out)
	}
	for _, want := range []string{"amqp://guest:REDACTED@127.0.0.1:5672/", "source_id: onprem-bundles", "timeout: 10s"} {
		if !strings.Contains(out, want) {
			t.Errorf("dump lacks %q:\n%s", want, out)
		}
	}
	if cfg.Broker.Settings.RabbitMQ.URL.Reveal() != "amqp://guest:guest@127.0.0.1:5672/" {
		t.Error("Dump must not change the loaded config")
	}
}

func TestUnreadableAndEmptyFiles(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(empty, nil, 0o600)
	os.WriteFile(bad, []byte("params: [\n"), 0o600)
	tests := []struct{ file, want string }{
		{filepath.Join(dir, "missing.yaml"), "missing.yaml: cannot read: no such file or directory"},
		{empty, "empty.yaml: file is empty"},
		{bad, "bad.yaml: invalid YAML: yaml: line"},
	}
	for _, tt := range tests {
		_, err := LoadTaskConfig(tt.file)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("LoadTaskConfig(%s) = %v, want %q", tt.file, err, tt.want)
		}
	}
}

// A config in HyperFleet's older spelling loads unchanged.
func TestHyperFleetSpellingLoadsUnchanged(t *testing.T) {
	task, err := LoadTaskConfig("testdata/hyperfleet/task-config.yaml")
	if err != nil {
		t.Fatalf("must load unchanged:\n%v", err)
	}
	r := task.Resources[0]
	if r.Transport.Maestro.TargetCluster.Src != "{{ .placementClusterName }}" || r.Discovery.BySelectors == nil ||
		r.NestedDiscoveries[0].Name != "namespace0" || r.Lifecycle.Delete.PropagationPolicy != "Background" {
		t.Errorf("camelCase keys not decoded: %+v", r)
	}
	if got := task.Post.PostActions[0].APICall.Headers[0].Name; got != "Content-Type" {
		t.Errorf("postActions headers: %q", got)
	}
	if r.WorkName() == nil || r.WorkName().Source() != "mw-{{ .clusterId }}" {
		t.Errorf("bundle name must come from the manifest's metadata.name without by_name")
	}
}

// Every key a HyperFleet adapter config carries is used or warned about:
// keepalive, server_healthiness_timeout and token_cache_ttl are read,
// client_id loads with a warning naming file, line and path.
func TestCompatKeysUsedOrWarned(t *testing.T) {
	cfg, err := LoadAdapterConfig(filepath.Join("testdata", "adapter", "compat-keys.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := cfg.Clients.Maestro
	if m.Keepalive.Time.D() != 30*time.Second || m.Keepalive.Timeout.D() != 10*time.Second ||
		m.ServerHealthinessTimeout.D() != 20*time.Second || cfg.Clients.HyperfleetAPI.Auth.TokenCacheTTL.D() != 30*time.Second {
		t.Errorf("durations not loaded: %+v %+v", m, cfg.Clients.HyperfleetAPI.Auth)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0].Error(), "compat-keys.yaml:14: clients.maestro.client_id: has no effect") {
		t.Errorf("warnings = %v, want one for client_id at line 14", cfg.Warnings)
	}
}

func TestNegativeDurationsRefused(t *testing.T) {
	_, err := LoadAdapterConfig(filepath.Join("testdata", "adapter", "negative-durations.yaml"), nil)
	assertErrors(t, err, []string{
		`negative-durations.yaml:5: clients.hyperfleet_api.auth.token_cache_ttl: must not be negative, got -1s`,
		`negative-durations.yaml:11: clients.maestro.keepalive.time: must not be negative, got -5s`,
	})
}
