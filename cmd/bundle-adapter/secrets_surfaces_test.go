package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/config"
	"github.com/bundle-adapter/bundle-adapter/health"
)

// The recognisable secrets of testdata/secrets and of the env overrides
// below: none of them may appear in any printed form of the config.
var surfaceSecrets = []string{"S3CRET"}

const secretsDir = "testdata/secrets/"

// printedForms is everything serve and the CLI print of a loaded config:
// config dump, /config served by the health handler, debug_config's log
// line and log_config's.
func printedForms(t *testing.T, cfg *config.Config) map[string]string {
	t.Helper()
	out := map[string]string{}
	var dump strings.Builder
	if err := cfg.Dump(&dump); err != nil {
		t.Fatal(err)
	}
	out["dump"] = dump.String()

	h := health.New(nil, nil, health.Options{})
	h.Handle("/config", configHandler(cfg))
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/config")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	out["/config"] = string(body)

	for _, format := range []string{"json", "text"} {
		var logs bytes.Buffer
		var log *slog.Logger
		if format == "json" {
			log = slog.New(slog.NewJSONHandler(&logs, nil))
		} else {
			log = slog.New(slog.NewTextHandler(&logs, nil))
		}
		cfg.Adapter.DebugConfig = true
		logConfig(cfg, log)
		cfg.Broker.LogConfig = true
		plan := &startPlan{}
		if err := plan.planConsumer(cfg, log); err != nil {
			t.Fatal(err)
		}
		if _, closeFn, err := newConsumer(context.Background(), cfg, plan, log); err != nil {
			t.Fatal(err)
		} else {
			closeFn()
		}
		out["logs "+format] = logs.String()
	}
	return out
}

// Finding 1 (issue 28): default_headers values, from the file and from
// HYPERFLEET_API_DEFAULT_HEADERS, are never printed by config dump, /config,
// debug_config or log_config; their names are.
func TestHeaderSecretsNeverPrinted(t *testing.T) {
	for _, env := range []string{"", "Authorization=Bearer S3CRET-env-hdr-7f2,X-Api-Key=S3CRET-env-key"} {
		t.Run("env="+env, func(t *testing.T) {
			if env != "" {
				t.Setenv("HYPERFLEET_API_DEFAULT_HEADERS", env)
			}
			cfg, err := config.Load(config.Files{Adapter: secretsDir + "adapter-config.yaml", Task: ex + "onprem/task-config.yaml", Broker: secretsDir + "broker.yaml"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for name, text := range printedForms(t, cfg) {
				if !strings.Contains(text, "Authorization") || !strings.Contains(text, "REDACTED") {
					t.Errorf("%s does not show the header redacted (was it printed at all?):\n%s", name, text)
				}
				for _, s := range surfaceSecrets {
					if strings.Contains(text, s) {
						t.Errorf("%s prints a secret:\n%s", name, text)
					}
				}
			}
			got := cfg.Adapter.Values()["clients"].(map[string]any)["hyperfleet_api"].(map[string]any)["default_headers"].(map[string]any)["Authorization"]
			if env == "" && got != "Bearer S3CRET-file-hdr-7f2" || env != "" && got != "Bearer S3CRET-env-hdr-7f2" {
				t.Errorf("config.clients.hyperfleet_api.default_headers.Authorization = %v: a param reads the value itself", got)
			}
		})
	}
}

// Finding 8 (issue 28): a URL whose password holds an unescaped / ? # or @
// parses with the password in the host, path, query or fragment. It is
// refused at load, naming the variable or key, with the password masked;
// nothing prints it, from an env var, a flag or a file.
func TestURLPasswordWithReservedCharactersRefused(t *testing.T) {
	files := []string{"--config", secretsDir + "adapter-config.yaml", "--task-config", ex + "onprem/task-config.yaml", "--broker-config", secretsDir + "broker.yaml"}
	tests := []struct {
		name, env, value, flag, wantPath string
	}{
		{"amqp slash", "BROKER_RABBITMQ_URL", "amqp://user:1234/S3CRET-a@rabbit.example.com/", "", "broker.rabbitmq.url"},
		{"amqp query", "BROKER_RABBITMQ_URL", "amqp://user:12?S3CRET-b@rabbit.example.com/", "", "broker.rabbitmq.url"},
		{"amqp fragment", "BROKER_RABBITMQ_URL", "amqp://user:12#S3CRET-c@rabbit.example.com/", "", "broker.rabbitmq.url"},
		{"base_url slash", "HYPERFLEET_API_BASE_URL", "https://svc:1234/S3CRET-d@api.example.com", "", "clients.hyperfleet_api.base_url"},
		{"base_url flag", "", "", "--api-base-url=https://svc:99/S3CRET-e@api.example.com/x", "clients.hyperfleet_api.base_url"},
		{"maestro http", "HYPERFLEET_MAESTRO_HTTP_SERVER_ADDRESS", "http://m:8000/S3CRET-f@maestro:8000", "", "clients.maestro.http_server_address"},
		{"maestro grpc", "HYPERFLEET_MAESTRO_GRPC_SERVER_ADDRESS", "user:S3CRET-g@maestro:8090", "", "clients.maestro.grpc_server_address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env != "" {
				t.Setenv(tt.env, tt.value)
			}
			args := files
			if tt.flag != "" {
				args = append(append([]string{}, files...), tt.flag)
			}
			for _, cmd := range [][]string{{"validate"}, {"config", "dump"}} {
				code, out, errOut := runCLI(t, append(cmd, args...)...)
				if code == 0 {
					t.Errorf("%s: exit 0, want the URL refused:\n%s", cmd[0], out)
				}
				if !strings.Contains(errOut, tt.wantPath) || !strings.Contains(errOut, "REDACTED") {
					t.Errorf("%s: the error does not name %s with the password masked:\n%s", cmd[0], tt.wantPath, errOut)
				}
				if strings.Contains(out+errOut, "S3CRET") {
					t.Errorf("%s prints the password:\nstdout: %s\nstderr: %s", cmd[0], out, errOut)
				}
			}
		})
	}
}

// The flag spelling of default_headers (--api-default-headers) is redacted
// by config dump too, and validate does not echo it.
func TestHeaderSecretsFromFlagNeverPrinted(t *testing.T) {
	args := []string{"--config", secretsDir + "adapter-config.yaml", "--task-config", ex + "onprem/task-config.yaml",
		"--broker-config", secretsDir + "broker.yaml", "--api-default-headers", "Authorization=Bearer S3CRET-flag-hdr"}
	for _, cmd := range [][]string{{"config", "dump"}, {"validate"}} {
		code, out, errOut := runCLI(t, append(cmd, args...)...)
		if code != 0 || strings.Contains(out+errOut, "S3CRET") {
			t.Errorf("%v: exit %d, output shows a secret:\n%s\n%s", cmd, code, out, errOut)
		}
		if cmd[0] == "config" && !strings.Contains(out, "Authorization: REDACTED") {
			t.Errorf("dump does not show the flag's header redacted:\n%s", out)
		}
	}
}
