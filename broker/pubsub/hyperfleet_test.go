package pubsub

import (
	"context"
	"strings"
	"testing"
	"time"

	pb "cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"google.golang.org/protobuf/types/known/durationpb"
)

func dur(d time.Duration) *time.Duration { return &d }

// A subscription and topic created here carry hyperfleet-broker's settings:
// retention, expiration, ordering, retry policy, topic retention.
func TestCreatedSubscriptionCarriesSettings(t *testing.T) {
	tests := []struct {
		name    string
		ttl     *time.Duration
		wantTTL *durationpb.Duration // nil: no expiration policy sent
		noTTL   bool
	}{
		{"ttl 3d", dur(72 * time.Hour), durationpb.New(72 * time.Hour), false},
		{"ttl 0 never expires", dur(0), nil, false},
		{"ttl unset", nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			o := f.options("settings")
			o.MessageRetention = 48 * time.Hour
			o.ExpirationTTL = tt.ttl
			o.EnableMessageOrdering = true
			o.MinBackoff, o.MaxBackoff = 5*time.Second, 300*time.Second
			o.TopicRetention = 12 * time.Hour
			c := newConsumer(t, o)
			ctx := context.Background()
			sub, err := f.client.SubscriptionAdminClient.GetSubscription(ctx, &pb.GetSubscriptionRequest{Subscription: c.opts.subscriptionPath(c.opts.SubscriptionName())})
			if err != nil {
				t.Fatal(err)
			}
			if sub.GetMessageRetentionDuration().AsDuration() != 48*time.Hour || !sub.GetEnableMessageOrdering() ||
				sub.GetRetryPolicy().GetMinimumBackoff().AsDuration() != 5*time.Second || sub.GetRetryPolicy().GetMaximumBackoff().AsDuration() != 300*time.Second {
				t.Errorf("subscription = %v", sub)
			}
			switch {
			case tt.noTTL && sub.GetExpirationPolicy() != nil:
				t.Errorf("expiration policy %v, want none (Pub/Sub's default)", sub.GetExpirationPolicy())
			case !tt.noTTL && (sub.GetExpirationPolicy() == nil || sub.GetExpirationPolicy().GetTtl().AsDuration() != tt.wantTTL.AsDuration()):
				t.Errorf("expiration policy %v, want ttl %v", sub.GetExpirationPolicy(), tt.wantTTL)
			}
			topic, err := f.client.TopicAdminClient.GetTopic(ctx, &pb.GetTopicRequest{Topic: c.opts.topicPath("clusters")})
			if err != nil {
				t.Fatal(err)
			}
			if topic.GetMessageRetentionDuration().AsDuration() != 12*time.Hour {
				t.Errorf("topic retention %v, want 12h", topic.GetMessageRetentionDuration())
			}
		})
	}
}

// With create_topic_if_missing / create_subscription_if_missing false,
// what is missing is not created: New refuses, naming it and the key.
func TestRefusesWhatIsMissingWhenCreationIsOff(t *testing.T) {
	tests := []struct {
		name                 string
		noTopic, noSub       bool
		existing             []string // topics created beforehand
		existingSubscription bool
		want                 string // "" for success
	}{
		{"topic missing", true, false, nil, false, "topic projects/demo/topics/hf-dlq does not exist and create_topic_if_missing is false"},
		{"subscription topic missing", true, false, []string{"hf-dlq"}, false, "topic projects/demo/topics/clusters does not exist and create_topic_if_missing is false"},
		{"subscription missing", false, true, nil, false, "subscription projects/demo/subscriptions/hf does not exist and create_subscription_if_missing is false"},
		{"everything exists", true, true, []string{"clusters", "hf-dlq"}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			ctx := context.Background()
			o := f.options("hf")
			o.DoNotCreateTopicIfMissing, o.DoNotCreateSubscriptionIfMissing = tt.noTopic, tt.noSub
			for _, id := range tt.existing {
				if _, err := f.client.TopicAdminClient.CreateTopic(ctx, &pb.Topic{Name: o.topicPath(id)}); err != nil {
					t.Fatal(err)
				}
			}
			if tt.existingSubscription {
				if _, err := f.client.SubscriptionAdminClient.CreateSubscription(ctx, &pb.Subscription{Name: o.subscriptionPath("hf"), Topic: o.topicPath("clusters")}); err != nil {
					t.Fatal(err)
				}
			}
			c, err := New(ctx, o)
			if c != nil {
				t.Cleanup(func() { _ = c.Close() })
			}
			if tt.want == "" {
				if err != nil {
					t.Fatalf("New = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New = %v; want %q", err, tt.want)
			}
			if _, gerr := f.client.SubscriptionAdminClient.GetSubscription(ctx, &pb.GetSubscriptionRequest{Subscription: o.subscriptionPath("hf")}); gerr == nil && !tt.existingSubscription {
				t.Error("the subscription was created")
			}
		})
	}
}

// subscription names the subscription outright; the client's receive
// settings come from max_outstanding_bytes and num_goroutines.
func TestSubscriptionNameAndReceiveSettings(t *testing.T) {
	f := newFake(t)
	o := f.options("ignored")
	o.Subscription = "hf-adapter"
	o.MaxOutstandingBytes, o.NumGoroutines = 1<<20, 3
	c := newConsumer(t, o)
	if c.opts.SubscriptionName() != "hf-adapter" || c.opts.DeadLetterTopic != "hf-adapter-dlq" {
		t.Errorf("names %s %s", c.opts.SubscriptionName(), c.opts.DeadLetterTopic)
	}
	if _, err := f.client.SubscriptionAdminClient.GetSubscription(context.Background(), &pb.GetSubscriptionRequest{Subscription: o.subscriptionPath("hf-adapter")}); err != nil {
		t.Errorf("subscription hf-adapter: %v", err)
	}
	if rs := c.sub.ReceiveSettings; rs.MaxOutstandingBytes != 1<<20 || rs.NumGoroutines != 3 {
		t.Errorf("receive settings %+v", rs)
	}
}
