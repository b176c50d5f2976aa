package pubsub

import (
	"fmt"
	"testing"
	"time"
)

func TestAttemptCounter(t *testing.T) {
	a := newAttemptCounter()
	if a.delivered("x") != 1 || a.delivered("x") != 2 || a.delivered("y") != 1 {
		t.Fatal("counts do not add up")
	}
	a.forget("x")
	if got := a.delivered("x"); got != 1 {
		t.Errorf("after forget: %d, want 1", got)
	}
	for i := range 3 * maxCountedIDs {
		a.delivered(fmt.Sprint(i))
		if i%3 == 0 {
			a.forget(fmt.Sprint(i))
		}
	}
	if len(a.counts) > maxCountedIDs || len(a.order) > 2*maxCountedIDs {
		t.Errorf("counter grew to %d ids, %d in order", len(a.counts), len(a.order))
	}
	last := fmt.Sprint(3*maxCountedIDs - 1)
	if got := a.delivered(last); got != 2 {
		t.Errorf("recent id: %d, want 2", got)
	}
}

func TestOptionsDefaults(t *testing.T) {
	o := Options{ProjectID: "p", Topic: "clusters", SubscriptionID: "onprem", MaxDeliveries: 500, AckDeadline: time.Second}.withDefaults()
	if o.SubscriptionName() != "onprem" || o.DeadLetterTopic != "onprem-dlq" {
		t.Errorf("names %s %s", o.SubscriptionName(), o.DeadLetterTopic)
	}
	if o.MaxDeliveries != 100 || o.AckDeadline != 10*time.Second || o.MaxOutstandingMessages != 1000 ||
		o.MinBackoff != time.Second || o.MaxBackoff != time.Minute {
		t.Errorf("defaults %+v", o)
	}
	if o := (Options{ProjectID: "p", Topic: "t", SubscriptionID: "s", DeadLetterTopic: "dl", MaxDeliveries: 2}).withDefaults(); o.DeadLetterTopic != "dl" || o.MaxDeliveries != 5 {
		t.Errorf("explicit dead-letter topic %s, max deliveries %d", o.DeadLetterTopic, o.MaxDeliveries)
	}
}
