package tracing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// The OTLP endpoint can carry credentials (user info): no printed form of
// the tracing Config shows them, and an endpoint whose password could be
// read as host or path ("https://user:1234/S3CRET@collector:4317") is
// refused with a warning naming the variable, the password masked; tracing
// then does not send to it (issue 28, finding 8).
func TestEndpointCredentialsNeverPrinted(t *testing.T) {
	tests := []struct {
		name, value string
		refused     bool
	}{
		{"user info", "https://user:S3CRET-otel@collector:4317", false},
		{"token as user", "https://S3CRET-otel@collector:4317", false},
		{"password with /", "https://user:1234/S3CRET-otel@collector:4317", true},
		{"password with ?", "https://user:1234?S3CRET-otel@collector:4317", true},
		{"password with #", "https://user:1234#S3CRET-otel@collector:4317", true},
		{"opaque", "user:S3CRET-otel@collector:4317", true},
	}
	for _, tt := range tests {
		for _, env := range []string{EnvEndpoint, EnvTracesEndpoint} {
			t.Run(tt.name+" "+env, func(t *testing.T) {
				c, warns := FromEnv(func(k string) (string, bool) {
					if k == env {
						return tt.value, true
					}
					return "", false
				}, "a", "v")
				var logs bytes.Buffer
				slog.New(slog.NewJSONHandler(&logs, nil)).Info("x", "config", c, "endpoint", c.Endpoint)
				slog.New(slog.NewTextHandler(&logs, nil)).Info("x", "config", c, "endpoint", c.Endpoint)
				js, _ := json.Marshal(c)
				printed := fmt.Sprintf("%v %+v %#v %s %q", c, c, c, c.Endpoint, c.Endpoint) + string(js) + logs.String() + strings.Join(warns, "\n")
				if strings.Contains(printed, "S3CRET") {
					t.Errorf("a printed form shows the credentials:\n%s", printed)
				}
				refused := strings.Contains(strings.Join(warns, "\n"), env)
				if refused != tt.refused || tt.refused && (c.Enabled || !c.Endpoint.IsZero()) {
					t.Errorf("refused %v (enabled %v, endpoint set %v), want %v; warnings %q", refused, c.Enabled, !c.Endpoint.IsZero(), tt.refused, warns)
				}
				if !tt.refused && c.Endpoint.Reveal() != tt.value {
					t.Errorf("endpoint %q, want the value itself for the exporter", c.Endpoint.Reveal())
				}
			})
		}
	}
}
