//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The round-4 hostile variants on the library file variables (issue 43):
// every bad file is refused by validate and serve naming the variable;
// empty values are "not set" as for the libraries; a valid file passes.
func TestLibraryFilesHostileVariants(t *testing.T) {
	reached := stopBeforeConnecting(t)
	dir := t.TempDir()
	mk := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(name, to string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(to, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := mk("big", make([]byte, 2<<20))
	empty := mk("empty", nil)
	garbage := mk("garbage.pem", []byte("-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n"))
	toZero := link("to-zero", "/dev/zero")
	loop := link("loop", filepath.Join(dir, "loop"))
	dangling := link("dangling", filepath.Join(dir, "nothing"))
	nested := mk("nested.json", []byte(`{"type":"impersonated_service_account","source_credentials":{"type":"external_account","credential_source":{"file":"/dev/zero"}}}`))
	cert := mk("cfg.json", []byte(`{"type":"external_account","credential_source":{"url":"http://x"},"certificate":{"use_default_certificate_config":true}}`))
	deep := mk("deep.json", []byte(`{"type":"external_account","credential_source":{"url":"http://x","headers":{"a":[{"executable":1}]}}}`))
	arr := mk("arr.json", []byte(`[{"type":"service_account"}]`))
	gcp := []string{"-c", ex + "gcp/adapter-config.yaml", "-t", ex + "gcp/task-config.yaml", "--broker-config", ex + "gcp/broker.yaml"}
	onprem := []string{"-c", ex + "onprem/adapter-config.yaml", "-t", ex + "onprem/task-config.yaml", "--broker-config", ex + "onprem/broker.yaml"}
	grpc := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317"}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string // "" passes
	}{
		{"credentials 2 MiB", gcp, map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": big}, "GOOGLE_APPLICATION_CREDENTIALS"},
		{"credentials empty file", gcp, map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": empty}, "GOOGLE_APPLICATION_CREDENTIALS"},
		{"credentials link to /dev/zero", gcp, map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": toZero}, "GOOGLE_APPLICATION_CREDENTIALS"},
		{"credentials link loop", gcp, map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": loop}, "GOOGLE_APPLICATION_CREDENTIALS"},
		{"credentials dangling link", gcp, map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": dangling}, "GOOGLE_APPLICATION_CREDENTIALS"},
		{"credentials relative missing", gcp, map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": "no/such.json"}, "GOOGLE_APPLICATION_CREDENTIALS"},
		{"credentials /proc/self/mem", gcp, map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": "/proc/self/mem"}, "GOOGLE_APPLICATION_CREDENTIALS"},
		{"credentials a JSON list", gcp, map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": arr}, "GOOGLE_APPLICATION_CREDENTIALS"},
		{"credentials nesting a file source", gcp, map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": nested}, `"file"`},
		{"credentials asking for the default certificate config", gcp, map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": cert}, "use_default_certificate_config"},
		{"credentials with executable deep inside", gcp, map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": deep}, `"executable"`},
		{"credentials empty value is not set", gcp, map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": ""}, ""},
		{"client certificate FALSE", gcp, map[string]string{"GOOGLE_API_USE_CLIENT_CERTIFICATE": "FALSE", "GOOGLE_API_CERTIFICATE_CONFIG": "/dev/zero"}, ""},
		{"client certificate 1", gcp, map[string]string{"GOOGLE_API_USE_CLIENT_CERTIFICATE": "1"}, "GOOGLE_API_USE_CLIENT_CERTIFICATE"},
		{"S2A TRUE", gcp, map[string]string{"EXPERIMENTAL_GOOGLE_API_USE_S2A": "TRUE"}, "EXPERIMENTAL_GOOGLE_API_USE_S2A"},
		{"rabbitmq broker ignores Google files", onprem, map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": "/dev/zero"}, ""},
		{"OTLP CA 2 MiB", onprem, with(grpc, "OTEL_EXPORTER_OTLP_CERTIFICATE", big), "OTEL_EXPORTER_OTLP_CERTIFICATE"},
		{"OTLP CA empty", onprem, with(grpc, "OTEL_EXPORTER_OTLP_CERTIFICATE", empty), "OTEL_EXPORTER_OTLP_CERTIFICATE"},
		{"OTLP CA garbage PEM", onprem, with(grpc, "OTEL_EXPORTER_OTLP_CERTIFICATE", garbage), "OTEL_EXPORTER_OTLP_CERTIFICATE"},
		{"OTLP CA link to /dev/zero", onprem, with(grpc, "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE", toZero), "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE"},
		{"OTLP key without certificate", onprem, with(grpc, "OTEL_EXPORTER_OTLP_CLIENT_KEY", garbage), "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"},
		{"OTLP traces certificate without key", onprem, with(grpc, "OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE", garbage), "OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY"},
		{"OTLP pair not a key pair", onprem, with(with(grpc, "OTEL_EXPORTER_OTLP_CLIENT_KEY", garbage), "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", garbage), "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"},
		{"OTLP traces endpoint only", onprem, map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_CERTIFICATE": "/dev/zero"}, "OTEL_EXPORTER_OTLP_CERTIFICATE"},
		{"OTLP files with tracing off", onprem, map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": "/dev/zero"}, ""},
		{"OTLP files with the SDK disabled", onprem, with(with(grpc, "OTEL_SDK_DISABLED", "true"), "OTEL_EXPORTER_OTLP_CERTIFICATE", "/dev/zero"), ""},
		{"OTLP files with tracing to stdout", onprem, map[string]string{"HYPERFLEET_TRACING_ENABLED": "true", "OTEL_EXPORTER_OTLP_CERTIFICATE": "/dev/zero"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", t.TempDir())
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			code, errOut, started, serveErr := verdicts(t, reached, tt.args)
			if tt.want == "" {
				if code != 0 || !started {
					t.Fatalf("validate %d, serve started %v\n%s\n%s", code, started, errOut, serveErr)
				}
				return
			}
			if code != 2 || !strings.Contains(errOut, tt.want) || started || !strings.Contains(serveErr, tt.want) {
				t.Errorf("validate %d, serve started %v; want both refusing naming %q\nvalidate: %s\nserve: %s", code, started, tt.want, errOut, serveErr)
			}
		})
	}
}

func with(m map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for a, b := range m {
		out[a] = b
	}
	return out
}
