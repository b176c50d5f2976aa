package config

import (
	"path/filepath"
	"testing"
)

// Settings that each look fine but cannot work together are refused at
// load, each error naming file, line and field.
func TestImpossibleCombinations(t *testing.T) {
	tests := []struct {
		loader, file string
		want         []string
	}{
		{"adapter", "adapter/tls-over-http.yaml", []string{
			`tls-over-http.yaml:7: clients.maestro.http_server_address: is plaintext (http://) but auth.type is tls: use an https:// URL`}},
		{"adapter", "adapter/tls-and-insecure.yaml", []string{
			`tls-and-insecure.yaml:8: clients.maestro.insecure: must not be true when auth.type is tls (insecure means no TLS)`}},
		{"adapter", "adapter/missing-tls-files.yaml", []string{
			`missing-tls-files.yaml:11: clients.maestro.auth.tls_config.ca_file: cannot read "testdata/adapter/certs/nosuch-ca.pem": no such file or directory`,
			`missing-tls-files.yaml:12: clients.maestro.auth.tls_config.cert_file: cannot read "testdata/adapter/certs/nosuch-client.pem": no such file or directory`,
			`missing-tls-files.yaml:13: clients.maestro.auth.tls_config.key_file: cannot read "testdata/adapter/certs": not a regular file (a directory)`,
			`missing-tls-files.yaml:14: clients.maestro.auth.tls_config.http_ca_file: cannot read "testdata/adapter/certs/nosuch-http-ca.pem": no such file or directory`,
		}},
		{"adapter", "adapter/retry-attempts.yaml", []string{
			`retry-attempts.yaml:3: clients.hyperfleet_api.retry_attempts: must be at most 20 (config.MaxRetryAttempts: the broker redelivers anyway), not 999999999`,
			`retry-attempts.yaml:9: clients.maestro.retry_attempts: must be at most 20 (config.MaxRetryAttempts: the broker redelivers anyway), not 999999999`,
		}},
		{"task", "broken/retry-attempts.yaml", []string{
			`retry-attempts.yaml:4: params[0].source.api_call.retry_attempts: must be at most 20 (config.MaxRetryAttempts), not 999999999`,
		}},
		{"broker", "broker/backoff-swapped.yaml", []string{
			`backoff-swapped.yaml:5: broker.delivery.min_backoff: 2m0s is above max_backoff 1m0s`,
		}},
		{"broker", "broker/pubsub-insecure.yaml", []string{
			`pubsub-insecure.yaml:5: broker.googlepubsub.insecure: requires endpoint (an emulator): Google's endpoint is always reached over TLS`,
		}},
		{"broker", "broker/pubsub-endpoint.yaml", []string{
			`pubsub-endpoint.yaml:6: broker.googlepubsub.endpoint: must be host:port, not "pubsub-emulator"`,
		}},
		{"broker", "broker/backoff-too-long.yaml", []string{
			`backoff-too-long.yaml:5: broker.delivery.max_backoff: must be at most 10m (config.MaxBackoff), not 100000h`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			file := filepath.Join("testdata", tt.file)
			var err error
			switch tt.loader {
			case "adapter":
				_, err = LoadAdapterConfig(file, nil)
			case "broker":
				_, err = LoadBrokerConfig(file)
			default:
				_, err = LoadTaskConfig(file)
			}
			assertErrors(t, err, tt.want)
		})
	}
}
