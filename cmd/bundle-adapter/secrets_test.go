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
