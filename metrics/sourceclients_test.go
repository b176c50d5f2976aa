package metrics

import (
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// The source clients' connections are read at every scrape: a client that
// lost Maestro shows at once, and its reconnection at the next scrape.
func TestMaestroSourceClientsMetrics(t *testing.T) {
	m := New()
	connected := 4
	m.MaestroSourceClients(func() (int, int) { return connected, 4 })
	want := func(c int) string {
		return fmt.Sprintf(`
# HELP bundle_adapter_maestro_source_clients Maestro gRPC source clients of this process (writes are spread over them).
# TYPE bundle_adapter_maestro_source_clients gauge
bundle_adapter_maestro_source_clients 4
# HELP bundle_adapter_maestro_source_clients_connected Maestro gRPC source clients holding their connection now; below maestro_source_clients, writes through the others are refused until they reconnect.
# TYPE bundle_adapter_maestro_source_clients_connected gauge
bundle_adapter_maestro_source_clients_connected %d
`, c)
	}
	names := []string{"bundle_adapter_maestro_source_clients", "bundle_adapter_maestro_source_clients_connected"}
	for _, c := range []int{4, 1, 0, 4} {
		connected = c
		if err := testutil.GatherAndCompare(m.Registry, strings.NewReader(want(c)), names...); err != nil {
			t.Errorf("%d connected: %v", c, err)
		}
	}
}
