package main

import (
	"os"

	"github.com/bundle-adapter/bundle-adapter/broker/pubsub"
	"path/filepath"
	"strings"
	"testing"
)

// withSubscription copies an example's adapter config into a temporary
// folder with its subscription_id replaced, and returns its path.
func withSubscription(t *testing.T, example, from, id string) string {
	t.Helper()
	data, err := os.ReadFile(ex + example + "/adapter-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(data), "subscription_id: "+from, "subscription_id: "+id, 1)
	text = strings.Replace(text, "subscriptionId: "+from, "subscriptionId: "+id, 1)
	if text == string(data) {
		t.Fatalf("%s has no subscription_id %s", example, from)
	}
	p := filepath.Join(t.TempDir(), "adapter-config.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The names a shadow replica derives ("-shadow" on the queue or
// subscription, and their dead-letter names) are checked by validate and
// serve like every other name, without --shadow; a live subscription that
// already ends in "-shadow" is refused (finding 8 of issue 43: a 243-byte
// queue passed validate and serve --shadow then failed; a live "-shadow"
// subscription split the messages with the shadow). With --shadow, a config
// naming the shadow's own subscription passes.
func TestShadowNamesChecked(t *testing.T) {
	reached := stopBeforeConnecting(t)
	long := func(n int) string { return "q" + strings.Repeat("x", n-1) }
	tests := []struct {
		name    string
		example string
		from    string
		id      string
		shadow  bool
		want    string // "" passes
	}{
		{"rabbitmq queue of 243 bytes: its shadow's dead-letter queue is 262", "onprem", "onprem-bundles", long(243 - len("clusters-")), false, "shadow replica"},
		{"rabbitmq queue of 243 bytes with --shadow", "onprem", "onprem-bundles", long(243 - len("clusters-")), true, "serve --shadow"},
		{"rabbitmq queue of 236 bytes passes", "onprem", "onprem-bundles", long(236 - len("clusters-")), false, ""},
		{"rabbitmq live subscription ending in -shadow", "onprem", "onprem-bundles", "onprem-bundles-shadow", false, `ends in "-shadow"`},
		{"rabbitmq shadow naming its own queue", "onprem", "onprem-bundles", "onprem-bundles-shadow", true, ""},
		{"pubsub subscription of 251 bytes: its shadow's is 258", "gcp", "gcp-bundles", long(251), false, "shadow replica"},
		{"pubsub live subscription ending in -shadow", "gcp", "gcp-bundles", "gcp-bundles-shadow", false, `ends in "-shadow"`},
		// Round-4 variants.
		{"pubsub subscription of 247 bytes with the example's own dead-letter topic", "gcp", "gcp-bundles", long(247), false, ""},
		{"pubsub subscription of 244 bytes passes", "gcp", "gcp-bundles", long(244), false, ""},
		{"rabbitmq subscription of -shadow alone", "onprem", "onprem-bundles", "x-shadow", false, `ends in "-shadow"`},
		{"rabbitmq -SHADOW in capitals is not the suffix", "onprem", "onprem-bundles", "onprem-SHADOW", false, ""},
		{"rabbitmq shadow of a shadow's name is kept", "onprem", "onprem-bundles", "a-shadow-shadow", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", t.TempDir())
			cfg := withSubscription(t, tt.example, tt.from, tt.id)
			files := []string{"-c", cfg, "-t", ex + tt.example + "/task-config.yaml", "--broker-config", ex + tt.example + "/broker.yaml"}
			if tt.shadow {
				files = append(files, "--shadow")
			}
			code, errOut, started, serveErr := verdicts(t, reached, files)
			if tt.want == "" {
				if code != 0 || !started {
					t.Fatalf("validate %d, serve started %v\n%s\n%s", code, started, errOut, serveErr)
				}
				return
			}
			if code != 2 || !strings.Contains(errOut, tt.want) || started || !strings.Contains(serveErr, tt.want) {
				t.Errorf("validate %d, serve started %v; want both refusing with %q\nvalidate: %s\nserve: %s", code, started, tt.want, errOut, serveErr)
			}
		})
	}
}

// A shadow's Pub/Sub dead-letter topic is its own even when the broker
// config names one (round 4 of issue 43: the shadow shared the live
// adapter's, so Pub/Sub forwarded the shadow's undeliverable messages, and
// the shadow published its dead letters, where operators read the live
// adapter's).
func TestShadowDeadLetterTopicIsItsOwn(t *testing.T) {
	p := startPlan{pubsub: &pubsub.Options{Topic: "clusters", SubscriptionID: "a", DeadLetterTopic: "clusters-dead-letter"}}
	p.useShadow()
	if got := p.pubsub.DeadLetterTopic; got != "clusters-dead-letter-shadow" {
		t.Errorf("shadow dead-letter topic %q, want clusters-dead-letter-shadow", got)
	}
}
