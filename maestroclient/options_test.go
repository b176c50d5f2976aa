package maestroclient

import (
	"strings"
	"testing"
	"time"
)

func TestOptionsDefaults(t *testing.T) {
	o := Options{}.withDefaults()
	if o.GRPCAddress != DefaultGRPCAddress || o.HTTPURL != DefaultHTTPURL || o.SourceID != DefaultSourceID ||
		o.Timeout != DefaultTimeout || o.Retry.Attempts != DefaultRetryAttempts ||
		o.Retry.InitialBackoff != DefaultInitialBackoff || o.Retry.MaxBackoff != DefaultMaxBackoff || o.Logger == nil ||
		o.ConsumerWrites != (WriteBudget{Mode: BudgetAdaptive, PerSecond: DefaultConsumerWritesPerSecond, Burst: DefaultConsumerWriteBurst,
			Ceiling: DefaultConsumerWriteCeiling, Window: DefaultConsumerWriteWindow}) {
		t.Errorf("defaults not applied: %+v", o)
	}
	if err := o.validate(); err == nil || !strings.Contains(err.Error(), "plaintext") {
		t.Errorf("the default http URL must need an explicit Insecure, got %v", err)
	}
}

func TestOptionsValidate(t *testing.T) {
	insecure := TLSOptions{Insecure: true}
	tests := []struct {
		name    string
		opts    Options
		wantErr string // empty: valid
	}{
		{"plaintext when asked", Options{GRPC: insecure, HTTP: insecure}, ""},
		{"https with CA", Options{HTTPURL: "https://m:8000", HTTP: TLSOptions{CAFile: "ca.pem"}}, ""},
		{"http without Insecure", Options{GRPC: insecure}, "plaintext"},
		{"https with Insecure", Options{HTTPURL: "https://m:8000", HTTP: insecure}, "https but"},
		{"bad scheme", Options{HTTPURL: "ftp://m", HTTP: insecure}, "scheme"},
		{"no host", Options{HTTPURL: "http://", HTTP: insecure}, "invalid URL"},
		{"cert without key", Options{HTTP: insecure, GRPC: TLSOptions{CertFile: "c.pem"}}, "go together"},
		{"insecure with CA", Options{HTTP: insecure, GRPC: TLSOptions{Insecure: true, CAFile: "ca.pem"}}, "excludes"},
		{"token in plaintext", Options{HTTP: insecure, GRPC: insecure, GRPCTokenFile: "t"}, "token"},
		{"negative timeout", Options{HTTP: insecure, GRPC: insecure, Timeout: -time.Second}, "positive"},
		{"negative write rate", Options{HTTP: insecure, GRPC: insecure, ConsumerWrites: WriteBudget{PerSecond: -1}}, "consumer writes"},
		{"negative write burst", Options{HTTP: insecure, GRPC: insecure, ConsumerWrites: WriteBudget{Burst: -1}}, "consumer writes"},
		{"unknown budget mode", Options{HTTP: insecure, GRPC: insecure, ConsumerWrites: WriteBudget{Mode: "fast"}}, "consumer writes"},
		{"ceiling below the rate", Options{HTTP: insecure, GRPC: insecure, ConsumerWrites: WriteBudget{PerSecond: 50, Ceiling: 30}}, "consumer writes"},
		{"negative window", Options{HTTP: insecure, GRPC: insecure, ConsumerWrites: WriteBudget{Window: -1}}, "consumer writes"},
		{"fixed budget", Options{HTTP: insecure, GRPC: insecure, ConsumerWrites: WriteBudget{Mode: BudgetFixed}}, ""},
		{"rate above the default ceiling", Options{HTTP: insecure, GRPC: insecure, ConsumerWrites: WriteBudget{PerSecond: 1000}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.withDefaults().validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("got %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

// The adapter config's keepalive reaches the gRPC dialer: pings only when
// a time is set, gRPC's 20s timeout when none is given.
func TestKeepaliveReachesTheDialer(t *testing.T) {
	tests := []struct {
		name          string
		in            KeepaliveOptions
		enable        bool
		time, timeout time.Duration
	}{
		{"unset: no pings", KeepaliveOptions{}, false, 0, 0},
		{"time and timeout", KeepaliveOptions{Time: 30 * time.Second, Timeout: 5 * time.Second}, true, 30 * time.Second, 5 * time.Second},
		{"time only", KeepaliveOptions{Time: time.Minute}, true, time.Minute, 20 * time.Second},
	}
	for _, tt := range tests {
		d, err := newDialer(Options{GRPCAddress: "127.0.0.1:1", GRPC: TLSOptions{Insecure: true}, Keepalive: tt.in})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		k := d.KeepAliveOptions
		if k.Enable != tt.enable || k.Time != tt.time || k.Timeout != tt.timeout {
			t.Errorf("%s: dialer keepalive %+v, want enable %v time %v timeout %v", tt.name, k, tt.enable, tt.time, tt.timeout)
		}
	}
}
