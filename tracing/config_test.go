package tracing

import (
	"bufio"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/internal/secret"
)

// loadEnv reads KEY=VALUE lines (# comments) from a testdata file.
func loadEnv(t *testing.T, file string) map[string]string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			env[k] = v
		}
	}
	return env
}

func TestFromEnv(t *testing.T) {
	defaults := Config{ServiceName: "my-adapter", ServiceVersion: "1.2.3", Protocol: ProtocolGRPC,
		Sampler: DefaultSampler, SamplerArg: 1, Propagators: []string{"tracecontext", "baggage"}}
	with := func(f func(*Config)) Config {
		c := defaults
		f(&c)
		return c
	}
	tests := []struct {
		name      string
		env       map[string]string
		envFile   string
		want      Config
		wantWarns []string
	}{
		{name: "nothing set: off", env: map[string]string{}, want: defaults},
		{name: "hyperfleet chart, tracing on", envFile: "testdata/hyperfleet-chart-tracing.env",
			want: with(func(c *Config) {
				c.Enabled, c.ServiceName, c.Endpoint = true, "cl-maestro", secret.NewURL("http://otel-collector:4317")
				c.Sampler, c.SamplerArg = "parentbased_traceidratio", 0.25
			})},
		{name: "hyperfleet chart defaults: off", envFile: "testdata/hyperfleet-chart-default.env", want: defaults},
		{name: "enabled without endpoint: stdout", env: map[string]string{EnvEnabled: "1"},
			want: with(func(c *Config) { c.Enabled = true })},
		{name: "an endpoint alone turns it on", env: map[string]string{EnvTracesEndpoint: "http://c:4318/v1/traces", EnvEndpoint: "http://c:4317", EnvTracesProtocol: "http/protobuf", EnvProtocol: "grpc"},
			want: with(func(c *Config) {
				c.Enabled, c.Endpoint, c.Protocol = true, secret.NewURL("http://c:4318/v1/traces"), ProtocolHTTP
			})},
		{name: "endpoint but disabled", env: map[string]string{EnvEndpoint: "http://c:4317", EnvEnabled: "false"},
			want: with(func(c *Config) { c.Endpoint = secret.NewURL("http://c:4317") })},
		{name: "OTEL_SDK_DISABLED wins", env: map[string]string{EnvEnabled: "true", EnvSDKDisabled: "true"}, want: defaults},
		{name: "bad values fall back with warnings",
			env:  map[string]string{EnvEnabled: "yes please", EnvProtocol: "udp", EnvSampler: "sometimes", EnvSamplerArg: "2", EnvPropagators: "b3,tracecontext"},
			want: with(func(c *Config) { c.Propagators = []string{"tracecontext"} }),
			wantWarns: []string{`HYPERFLEET_TRACING_ENABLED="yes please" is not a boolean; tracing stays off`,
				`OTEL_EXPORTER_OTLP_PROTOCOL="udp" is not grpc or http/protobuf; using grpc`,
				`OTEL_TRACES_SAMPLER="sometimes" is not a known sampler; using parentbased_always_on`,
				`OTEL_TRACES_SAMPLER_ARG="2" is not a ratio between 0 and 1; using 1.0`,
				`OTEL_PROPAGATORS: propagator "b3" is not supported here (tracecontext, baggage, none); ignored`}},
		{name: "propagators none", env: map[string]string{EnvPropagators: "none"},
			want: with(func(c *Config) { c.Propagators = []string{"none"} })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := tt.env
			if tt.envFile != "" {
				env = loadEnv(t, tt.envFile)
			}
			got, warns := FromEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }, "my-adapter", "1.2.3")
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("FromEnv =\n%+v\nwant\n%+v", got, tt.want)
			}
			if !reflect.DeepEqual(warns, tt.wantWarns) {
				t.Errorf("warnings =\n%q\nwant\n%q", warns, tt.wantWarns)
			}
		})
	}
}
