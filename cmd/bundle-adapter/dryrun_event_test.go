package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dry-run reads events as serve does: the same decoder and the same size
// limit (broker.MaxEventBytes), so an event serve dead-letters is exit 3
// here too, with the same reason.
func TestDryRunDecodesEventsAsServe(t *testing.T) {
	const head = `{"specversion": "1.0", "id": "e-1", "type": "com.redhat.hyperfleet.cluster.reconcile", "source": "s", "data": {"id": "c1", "kind": "Cluster", "generation": 1, "pad": "`
	tests := []struct {
		name, event, want string
	}{
		{"50 MB event", head + strings.Repeat("x", 50<<20) + `"}}`, "over the event size limit of 1048576 bytes"},
		{"just over the limit", head + strings.Repeat("x", 1<<20) + `"}}`, "over the event size limit"},
		{"data and data_base64", `{"specversion": "1.0", "id": "e-1", "type": "t", "source": "s", "data_base64": "e30=", "data": {"id": "c1"}}`,
			"both data and data_base64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "event.json")
			if err := os.WriteFile(path, []byte(tt.event), 0o600); err != nil {
				t.Fatal(err)
			}
			code, _, errOut := dryRun(t, "onprem", "--event", path)
			if code != exitInvalidEvent || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d (want %d), stderr %.300s; want it to say %q", code, exitInvalidEvent, errOut, tt.want)
			}
		})
	}
}
