//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// execCLIEnv makes the test binary run as the CLI (TestMain).
const execCLIEnv = "BUNDLE_ADAPTER_TEST_EXEC_CLI"

// hostileFiles are the paths a file variable is tried with: a device that
// never ends, a FIFO nobody writes, a file that is not there, a folder.
func hostileFiles(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	return map[string]string{"/dev/zero": "/dev/zero", "fifo": fifo, "missing": filepath.Join(dir, "missing"), "folder": dir}
}

// Every variable through which a linked library reads a file (finding 1 of
// issue 43): on /dev/zero, a FIFO, a missing file or a folder, validate
// refuses (exit 2) and serve refuses before connecting, both naming the
// variable, within seconds. Before, serve ran out of memory on /dev/zero,
// hung on a FIFO, and validate passed all of them.
func TestLibraryFilesRefused(t *testing.T) {
	reached := stopBeforeConnecting(t)
	gcp := []string{"-c", ex + "gcp/adapter-config.yaml", "-t", ex + "gcp/task-config.yaml", "--broker-config", ex + "gcp/broker.yaml"}
	onprem := []string{"-c", ex + "onprem/adapter-config.yaml", "-t", ex + "onprem/task-config.yaml", "--broker-config", ex + "onprem/broker.yaml"}
	otlp := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317"}
	tests := []struct {
		variable string
		args     []string
		env      map[string]string
	}{
		{"GOOGLE_APPLICATION_CREDENTIALS", gcp, nil},
		{"OTEL_EXPORTER_OTLP_CERTIFICATE", onprem, otlp},
		{"OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE", onprem, otlp},
		{"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", onprem, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_CLIENT_KEY": ex + "onprem/broker.yaml"}},
		{"OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY", onprem, map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE": ex + "onprem/broker.yaml"}},
	}
	for _, tt := range tests {
		for kind, path := range hostileFiles(t) {
			t.Run(tt.variable+"/"+kind, func(t *testing.T) {
				t.Setenv("HOME", t.TempDir())
				for k, v := range tt.env {
					t.Setenv(k, v)
				}
				t.Setenv(tt.variable, path)
				done := make(chan struct{})
				var code int
				var errOut, serveErr string
				var started bool
				go func() { defer close(done); code, errOut, started, serveErr = verdicts(t, reached, tt.args) }()
				select {
				case <-done:
				case <-time.After(20 * time.Second):
					t.Fatalf("validate or serve hangs on %s=%s", tt.variable, path)
				}
				if code != 2 || !strings.Contains(errOut, tt.variable) {
					t.Errorf("validate exit %d, want 2 naming %s\n%s", code, tt.variable, errOut)
				}
				if started || !strings.Contains(serveErr, tt.variable) {
					t.Errorf("serve got to connecting %v, want a refusal naming %s\n%s", started, tt.variable, serveErr)
				}
			})
		}
	}
}

// The Google credentials found through HOME (gcloud's well-known file) and
// credentials that name further files are refused the same way; a valid
// service account file is read and passes.
func TestGoogleCredentialsFiles(t *testing.T) {
	reached := stopBeforeConnecting(t)
	gcp := []string{"-c", ex + "gcp/adapter-config.yaml", "-t", ex + "gcp/task-config.yaml", "--broker-config", ex + "gcp/broker.yaml"}
	write := func(t *testing.T, body string) string {
		p := filepath.Join(t.TempDir(), "creds.json")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, want string
		setup      func(t *testing.T)
	}{
		{"well-known file is a FIFO", "HOME", func(t *testing.T) {
			home := t.TempDir()
			dir := filepath.Join(home, ".config", "gcloud")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(filepath.Join(dir, "application_default_credentials.json"), 0o600); err != nil {
				t.Skip(err)
			}
			t.Setenv("HOME", home)
		}},
		{"not JSON", "GOOGLE_APPLICATION_CREDENTIALS", func(t *testing.T) { t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", write(t, "nope")) }},
		{"unknown type", "credentials type", func(t *testing.T) {
			t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", write(t, `{"type":"weird"}`))
		}},
		{"external account reading a file", `"file"`, func(t *testing.T) {
			t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", write(t, `{"type":"external_account","credential_source":{"file":"/dev/zero"}}`))
		}},
		{"external account running a command", `"executable"`, func(t *testing.T) {
			t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", write(t, `{"type":"external_account","credential_source":{"executable":{"command":"/bin/sh"}}}`))
		}},
		{"client certificates on", "GOOGLE_API_USE_CLIENT_CERTIFICATE", func(t *testing.T) { t.Setenv("GOOGLE_API_USE_CLIENT_CERTIFICATE", "true") }},
		{"certificate config named", "GOOGLE_API_CERTIFICATE_CONFIG", func(t *testing.T) { t.Setenv("GOOGLE_API_CERTIFICATE_CONFIG", "/dev/zero") }},
		{"default certificate config present", "GOOGLE_API_USE_CLIENT_CERTIFICATE=false", func(t *testing.T) {
			home := t.TempDir()
			dir := filepath.Join(home, ".config", "gcloud")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(filepath.Join(dir, "certificate_config.json"), 0o600); err != nil {
				t.Skip(err)
			}
			t.Setenv("HOME", home)
		}},
		{"S2A", "EXPERIMENTAL_GOOGLE_API_USE_S2A", func(t *testing.T) { t.Setenv("EXPERIMENTAL_GOOGLE_API_USE_S2A", "true") }},
		{"service account passes", "", func(t *testing.T) {
			t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", write(t, `{"type":"service_account","client_email":"a@b","private_key":"x"}`))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", t.TempDir())
			tt.setup(t)
			code, errOut, started, serveErr := verdicts(t, reached, gcp)
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

// serve on a FIFO named by a library's variable, as a process: it exits
// (2, naming the variable) instead of hanging, and a SIGTERM sent while it
// would still run ends it.
func TestServeFIFOVariableExits(t *testing.T) {
	files := hostileFiles(t)
	for _, variable := range []string{"GOOGLE_APPLICATION_CREDENTIALS", "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE"} {
		t.Run(variable, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "serve", "--listen", "127.0.0.1:0", "--metrics-listen", "",
				"-c", ex+"gcp/adapter-config.yaml", "-t", ex+"gcp/task-config.yaml", "--broker-config", ex+"gcp/broker.yaml")
			cmd.Env = append(os.Environ(), execCLIEnv+"=1", "HOME="+t.TempDir(), variable+"="+files["fifo"],
				"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4317")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Signal(syscall.SIGTERM)
				select {
				case err = <-done:
					t.Fatalf("serve hung on a FIFO for %s (ended by SIGTERM: %v)\n%s", variable, err, stderr.String())
				case <-time.After(10 * time.Second):
					_ = cmd.Process.Kill()
					t.Fatalf("serve hung on a FIFO for %s and ignored SIGTERM", variable)
				}
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(stderr.String(), variable) {
				t.Errorf("serve: %v, want exit 2 naming %s\n%s", err, variable, stderr.String())
			}
		})
	}
}
