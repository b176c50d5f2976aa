package pubsub

import (
	"strings"
	"testing"
)

// A subscription or topic id past Pub/Sub's 255 characters, its default
// dead-letter topic ("<subscription>-dlq") included, is refused by Check
// before anything connects: New returns the same error.
func TestCheckRefusesLongIDs(t *testing.T) {
	base := Options{ProjectID: "p", Topic: "t", SubscriptionID: "s"}
	tests := []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"defaults", func(*Options) {}, ""},
		{"subscription 251: dead-letter topic 255", func(o *Options) { o.Subscription = strings.Repeat("s", 251) }, ""},
		{"subscription 252: dead-letter topic 256", func(o *Options) { o.Subscription = strings.Repeat("s", 252) }, "dead-letter topic id is 256 bytes"},
		{"topic 256", func(o *Options) { o.Topic = strings.Repeat("t", 256) }, "topic id is 256 bytes"},
		{"subscription id 256", func(o *Options) { o.SubscriptionID = strings.Repeat("s", 256) }, "subscription id is 256 bytes"},
		{"unicode topic", func(o *Options) { o.Topic = "тема" }, `topic id "тема" must start with a letter`},
		{"topic starting with a digit", func(o *Options) { o.Topic = "1clusters" }, `topic id "1clusters" must start with a letter`},
		{"subscription with a slash", func(o *Options) { o.Subscription = "a/b" }, `subscription id "a/b" must start with a letter`},
		{"topic starting with goog", func(o *Options) { o.Topic = "google-events" }, `must not start with "goog"`},
		{"every allowed character", func(o *Options) { o.Topic = "a-_.~+%Z9" }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base
			tt.edit(&o)
			err := o.Check()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Check() = %v; want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Check() = %v; want it to contain %q", err, tt.want)
			}
		})
	}
}
