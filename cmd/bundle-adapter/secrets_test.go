package main

import (
	"strings"
	"testing"
)

// config dump never prints a password, wherever it came from: the broker
// file, an environment override (BROKER_RABBITMQ_URL) or a flag
// (--api-base-url with credentials); nor does validate.
func TestConfigDumpNeverPrintsPasswords(t *testing.T) {
	const brokerPassword, apiPassword = "Br0ker-Pw-5e1d", "Api-Pw-93c0"
	t.Setenv("BROKER_RABBITMQ_URL", "amqp://adapter:"+brokerPassword+"@rabbit.example.com:5672/vhost")
	args := []string{"--config", ex + "onprem/adapter-config.yaml", "--task-config", ex + "onprem/task-config.yaml",
		"--broker-config", ex + "onprem/broker.yaml", "--api-base-url", "https://svc:" + apiPassword + "@hyperfleet.example.com"}
	code, out, errOut := runCLI(t, append([]string{"config", "dump"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"amqp://adapter:REDACTED@rabbit.example.com:5672/vhost", "https://svc:REDACTED@hyperfleet.example.com"} {
		if !strings.Contains(out, want) {
			t.Errorf("dump lacks %q (overrides not applied?):\n%s", want, out)
		}
	}
	code, vout, verr := runCLI(t, append([]string{"validate"}, args...)...)
	if code != 0 {
		t.Fatalf("validate: exit %d: %s", code, verr)
	}
	for _, text := range []string{out, errOut, vout, verr} {
		if strings.Contains(text, brokerPassword) || strings.Contains(text, apiPassword) {
			t.Errorf("output leaks a password:\n%s", text)
		}
	}
}

// A URL with credentials that does not even parse is still redacted:
// config dump and validate errors never print its user info, whether it
// came from a file, the environment or a flag.
func TestUnparsableURLSecretsNeverPrinted(t *testing.T) {
	const secret = "S3cr%t!Pass"
	files := []string{"--config", ex + "onprem/adapter-config.yaml", "--task-config", ex + "onprem/task-config.yaml",
		"--broker-config", ex + "onprem/broker.yaml"}
	tests := []struct {
		name string
		env  [2]string
		args []string
	}{
		{"broker url, dump", [2]string{"BROKER_RABBITMQ_URL", "amqp://admin:" + secret + "@h/"}, []string{"config", "dump"}},
		{"broker url, validate", [2]string{"BROKER_RABBITMQ_URL", "amqp://admin:" + secret + "@h/"}, []string{"validate"}},
		{"api base url env, validate", [2]string{"HYPERFLEET_API_BASE_URL", "https://svc:" + secret + "@hyperfleet.example.com"}, []string{"validate"}},
		{"api base url env, dump", [2]string{"HYPERFLEET_API_BASE_URL", "https://svc:" + secret + "@hyperfleet.example.com"}, []string{"config", "dump"}},
		{"api base url flag", [2]string{}, []string{"validate", "--api-base-url", "http://svc:" + secret + "@[::1"}},
		{"maestro http address", [2]string{"HYPERFLEET_MAESTRO_HTTP_SERVER_ADDRESS", "ftp://svc:" + secret + "@m"}, []string{"validate"}},
		{"scheme-less credentials", [2]string{"HYPERFLEET_API_BASE_URL", "svc:" + secret + "@hyperfleet.example.com"}, []string{"validate"}},
		{"token-only user info", [2]string{"HYPERFLEET_API_BASE_URL", "https://" + secret + "@hyperfleet.example.com"}, []string{"config", "dump"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env[0] != "" {
				t.Setenv(tt.env[0], tt.env[1])
			}
			_, out, errOut := runCLI(t, append(tt.args, files...)...)
			for _, leak := range []string{secret, "S3cr", "Pass@"} {
				if strings.Contains(out+errOut, leak) {
					t.Fatalf("output leaks %q:\nstdout: %s\nstderr: %s", leak, out, errOut)
				}
			}
			if !strings.Contains(out+errOut, "REDACTED") {
				t.Errorf("the secret is not shown redacted (was the value used?):\nstdout: %s\nstderr: %s", out, errOut)
			}
		})
	}
}
