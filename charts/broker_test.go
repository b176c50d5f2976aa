package charts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/config"
)

// The broker ConfigMap renders every hyperfleet-broker key the values set
// (hyperfleet-adapter's chart keys and the additions), and the file loads.
func TestBrokerConfigMapRendersHyperFleetKeys(t *testing.T) {
	helm := helmOrSkip(t)
	tests := []struct {
		values string
		want   []string
	}{
		{"rabbitmq-values", []string{`queue: "hyperfleet"`, `exchange: "clusters"`, `exchange_type: "topic"`, `routing_key: "#"`, `consumer_tag: "bundle-adapter"`}},
		{"googlepubsub-values", []string{
			`create_topic_if_missing: false`, `create_subscription_if_missing: false`, `message_retention_duration: "7d"`, `expiration_ttl: "0"`,
			`retry_min_backoff: "10s"`, `retry_max_backoff: "600s"`, `enable_message_ordering: true`, `topic_retention_duration: "1d"`,
			`max_outstanding_bytes: 104857600`, `num_goroutines: 4`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.values, func(t *testing.T) {
			out, err := Template(helm, "..", "ci", "bundle-adapter", Case{Name: tt.values, Values: filepath.Join("..", ChartDir, "ci", tt.values+".yaml")})
			if err != nil {
				t.Fatalf("helm template: %v", err)
			}
			objs, err := Split(out)
			if err != nil {
				t.Fatal(err)
			}
			var file string
			for _, o := range objs {
				if o.Kind == "ConfigMap" && strings.HasSuffix(o.Metadata.Name, "-broker") {
					file = o.Data["broker.yaml"]
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(file, w) {
					t.Errorf("broker.yaml lacks %s:\n%s", w, file)
				}
			}
			path := filepath.Join(t.TempDir(), "broker.yaml")
			if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := config.LoadBrokerConfig(path); err != nil {
				t.Errorf("rendered broker.yaml does not load: %v\n%s", err, file)
			}
		})
	}
}
