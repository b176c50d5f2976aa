package pubsub

import (
	"context"
	"strings"
	"testing"
	"time"

	pb "cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"cloud.google.com/go/pubsub/v2/pstest"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

const event = `{"specversion":"1.0","id":"e-1","type":"com.redhat.hyperfleet.cluster.reconcile","source":"hyperfleet-sentinel","data":{"id":"c-1","kind":"Cluster","generation":1}}`

// New creates the topic, the subscription with its policies, and the
// dead-letter topic with a subscription.
func TestNewCreatesSubscription(t *testing.T) {
	f := newFake(t)
	o := f.options("onprem").withDefaults()
	start(t, o)
	sub, err := f.client.SubscriptionAdminClient.GetSubscription(context.Background(),
		&pb.GetSubscriptionRequest{Subscription: "projects/demo/subscriptions/onprem"})
	if err != nil {
		t.Fatal(err)
	}
	if sub.Topic != "projects/demo/topics/clusters" || sub.AckDeadlineSeconds != 60 ||
		sub.DeadLetterPolicy.GetDeadLetterTopic() != "projects/demo/topics/onprem-dlq" ||
		sub.DeadLetterPolicy.GetMaxDeliveryAttempts() != 5 ||
		sub.RetryPolicy.GetMinimumBackoff().AsDuration() != time.Second {
		t.Errorf("subscription %v", sub)
	}
	if _, err := f.client.SubscriptionAdminClient.GetSubscription(context.Background(),
		&pb.GetSubscriptionRequest{Subscription: "projects/demo/subscriptions/onprem-dlq"}); err != nil {
		t.Errorf("dead-letter subscription: %v", err)
	}
	// A second consumer finds everything in place.
	start(t, o)
}

// A dead-letter publish that fails nacks the message: never lost.
func TestDeadLetterFailureNacks(t *testing.T) {
	f := newFake(t, pstest.ServerReactorOption{FuncName: "Publish", Reactor: failPublishTo("projects/demo/topics/dlfail-dlq")})
	o := f.options("dlfail")
	r := start(t, o)
	f.publish(t, "clusters", event, nil)
	m := r.receive(t)
	err := m.DeadLetter(context.Background(), "bad")
	if err == nil || !strings.Contains(err.Error(), "nacked instead") {
		t.Fatalf("DeadLetter = %v, want a publish error", err)
	}
	again := r.receive(t)
	if again.ID() != m.ID() || again.Deliveries() != 2 {
		t.Errorf("redelivered %s with deliveries %d", again.ID(), again.Deliveries())
	}
	_ = again.Ack(context.Background())
}

// failPublishTo fails every publish to topic with NotFound.
type failPublishTo string

func (topic failPublishTo) React(req any) (bool, any, error) {
	if r, ok := req.(*pb.PublishRequest); ok && r.Topic == string(topic) {
		return true, nil, status.Error(codes.NotFound, "topic deleted by the test")
	}
	return false, nil, nil
}

// On a subscription without a dead-letter policy Pub/Sub counts nothing:
// the consumer counts the deliveries it saw.
func TestDeliveriesWithoutDeadLetterPolicy(t *testing.T) {
	f := newFake(t)
	ctx := context.Background()
	if _, err := f.client.TopicAdminClient.CreateTopic(ctx, &pb.Topic{Name: "projects/demo/topics/clusters"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.client.SubscriptionAdminClient.CreateSubscription(ctx, &pb.Subscription{
		Name: "projects/demo/subscriptions/plain", Topic: "projects/demo/topics/clusters", AckDeadlineSeconds: 10,
	}); err != nil {
		t.Fatal(err)
	}
	r := start(t, f.options("plain"))
	f.publish(t, "clusters", event, nil)
	m := r.receive(t)
	if m.msg.DeliveryAttempt != nil {
		t.Fatalf("Pub/Sub counted attempts (%d) on a subscription without a dead-letter policy", *m.msg.DeliveryAttempt)
	}
	for want := 1; want <= 3; want++ {
		if m.Deliveries() != want {
			t.Errorf("Deliveries = %d, want %d", m.Deliveries(), want)
		}
		if want < 3 {
			_ = m.Release(ctx)
			m = r.receive(t)
		}
	}
	_ = m.Ack(ctx)
	if _, ok := r.attempts.counts[m.ID()]; ok {
		t.Error("acked message still counted")
	}
}

// When Consume's context is done, messages held by Retry are nacked at
// once and Consume waits for handed-out messages to be settled.
func TestShutdownNacksHeldAndWaitsForOutstanding(t *testing.T) {
	f := newFake(t)
	r := start(t, f.options("drain"))
	heldID := f.publish(t, "clusters", "held", nil)
	f.publish(t, "clusters", "outstanding", nil)
	m1, m2 := r.receive(t), r.receive(t)
	if string(m1.Body()) != "held" {
		m1, m2 = m2, m1
	}
	if err := m1.Retry(context.Background(), time.Hour); err != nil {
		t.Fatal(err)
	}
	r.Cancel()
	waitFor(t, "held retry nacked", func() bool { return r.held.len() == 0 })
	select {
	case <-r.Done():
		t.Fatal("Consume returned with a message outstanding")
	case <-time.After(200 * time.Millisecond):
	}
	if err := m2.Ack(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Consume did not return once the message was settled")
	}
	if f.srv.Message(heldID).Acks != 0 {
		t.Error("held message was acked")
	}
}

func TestNewRejectsInvalidOptions(t *testing.T) {
	_, err := New(context.Background(), Options{})
	for _, want := range []string{"project id is required", "topic is required", "subscription id is required"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("New = %v, want it to mention %q", err, want)
		}
	}
}

// A message its handler never settles holds shutdown for DrainTimeout, no
// longer: then it is released (nacked) so Pub/Sub redelivers it, and
// Consume returns.
func TestShutdownReleasesUnsettledAfterDrainTimeout(t *testing.T) {
	f := newFake(t)
	o := f.options("stuck")
	o.DrainTimeout = 300 * time.Millisecond
	r := start(t, o)
	id := f.publish(t, "clusters", "never settled", nil)
	m := r.receive(t)
	r.Cancel()
	select {
	case <-r.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Consume still waits for a message nobody settles")
	}
	if err := m.Ack(context.Background()); err == nil {
		t.Error("the released message could still be acked")
	}
	if f.srv.Message(id).Acks != 0 {
		t.Error("the unsettled message was acked")
	}
}
