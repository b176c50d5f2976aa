package pubsub

import (
	"context"
	"errors"
	"fmt"

	"cloud.google.com/go/pubsub/v2"
	pb "cloud.google.com/go/pubsub/v2/apiv1/pubsubpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

// ensure creates what is missing: the dead-letter topic and its
// subscription, then the subscription (and its topic). Existing resources
// are left as they are. A resource this identity may not read is assumed to
// exist. With DoNotCreateTopicIfMissing or DoNotCreateSubscriptionIfMissing
// a missing topic or subscription is an error naming it instead (a missing
// dead-letter subscription only a warning).
func ensure(ctx context.Context, c *pubsub.Client, o Options) error {
	if err := ensureTopic(ctx, c, o, &pb.Topic{Name: o.topicPath(o.DeadLetterTopic)}); err != nil {
		return err
	}
	dlSub := &pb.Subscription{Name: o.subscriptionPath(o.DeadLetterTopic), Topic: o.topicPath(o.DeadLetterTopic)}
	if o.DoNotCreateSubscriptionIfMissing {
		if err := requireSubscription(ctx, c, o, dlSub); errors.Is(err, errMissing) {
			o.Logger.Warn("dead-letter topic has no subscription of that name and create_subscription_if_missing is false: make sure one holds what is dead-lettered",
				"subscription", dlSub.Name, "topic", dlSub.Topic)
		}
	} else if err := ensureSubscription(ctx, c, o, dlSub); err != nil {
		return err
	}
	return ensureSubscription(ctx, c, o, subscriptionSpec(o))
}

// errMissing marks a topic or subscription that does not exist and may not
// be created.
var errMissing = errors.New("does not exist")

// requireSubscription is nil when spec exists (or cannot be read), an
// errMissing error when it does not.
func requireSubscription(ctx context.Context, c *pubsub.Client, o Options, spec *pb.Subscription) error {
	_, err := c.SubscriptionAdminClient.GetSubscription(ctx, &pb.GetSubscriptionRequest{Subscription: spec.Name})
	switch status.Code(err) {
	case codes.OK, codes.PermissionDenied:
		return nil
	case codes.NotFound:
		return fmt.Errorf("subscription %s %w", spec.Name, errMissing)
	}
	return fmt.Errorf("get subscription %s: %w", spec.Name, err)
}

// subscriptionSpec is the subscription New creates when it is missing.
func subscriptionSpec(o Options) *pb.Subscription {
	s := &pb.Subscription{
		Name:               o.subscriptionPath(o.SubscriptionName()),
		Topic:              o.topicPath(o.Topic),
		AckDeadlineSeconds: int32(o.AckDeadline.Seconds()),
		DeadLetterPolicy: &pb.DeadLetterPolicy{
			DeadLetterTopic:     o.topicPath(o.DeadLetterTopic),
			MaxDeliveryAttempts: int32(o.MaxDeliveries),
		},
		RetryPolicy: &pb.RetryPolicy{
			MinimumBackoff: durationpb.New(o.MinBackoff),
			MaximumBackoff: durationpb.New(o.MaxBackoff),
		},
		EnableMessageOrdering: o.EnableMessageOrdering,
	}
	if o.MessageRetention > 0 {
		s.MessageRetentionDuration = durationpb.New(o.MessageRetention)
	}
	if o.ExpirationTTL != nil {
		s.ExpirationPolicy = &pb.ExpirationPolicy{} // no ttl: never expires
		if *o.ExpirationTTL > 0 {
			s.ExpirationPolicy.Ttl = durationpb.New(*o.ExpirationTTL)
		}
	}
	return s
}

// topicSpec is the subscription's topic as New creates it when missing.
func topicSpec(o Options) *pb.Topic {
	t := &pb.Topic{Name: o.topicPath(o.Topic)}
	if o.TopicRetention > 0 {
		t.MessageRetentionDuration = durationpb.New(o.TopicRetention)
	}
	return t
}

// ensureTopic creates spec when it does not exist.
func ensureTopic(ctx context.Context, c *pubsub.Client, o Options, spec *pb.Topic) error {
	name := spec.Name
	_, err := c.TopicAdminClient.GetTopic(ctx, &pb.GetTopicRequest{Topic: name})
	switch status.Code(err) {
	case codes.OK:
		return nil
	case codes.PermissionDenied:
		o.Logger.Debug("cannot read topic; assuming it exists", "topic", name, "error", err)
		return nil
	case codes.NotFound:
	default:
		return fmt.Errorf("get topic %s: %w", name, err)
	}
	if o.DoNotCreateTopicIfMissing {
		return fmt.Errorf("topic %s %w and create_topic_if_missing is false: create it, or set create_topic_if_missing: true", name, errMissing)
	}
	_, err = c.TopicAdminClient.CreateTopic(ctx, spec)
	if err != nil && status.Code(err) != codes.AlreadyExists {
		return fmt.Errorf("create topic %s: %w", name, err)
	}
	o.Logger.Info("created topic", "topic", name)
	return nil
}

// ensureSubscription creates spec (and its topic) when it does not exist.
func ensureSubscription(ctx context.Context, c *pubsub.Client, o Options, spec *pb.Subscription) error {
	got, err := c.SubscriptionAdminClient.GetSubscription(ctx, &pb.GetSubscriptionRequest{Subscription: spec.Name})
	switch status.Code(err) {
	case codes.OK:
		if spec.DeadLetterPolicy != nil && got.DeadLetterPolicy == nil {
			o.Logger.Warn("subscription has no dead-letter policy: deliveries are counted per replica, and only DeadLetter dead-letters",
				"subscription", spec.Name)
		}
		return nil
	case codes.PermissionDenied:
		o.Logger.Debug("cannot read subscription; assuming it exists", "subscription", spec.Name, "error", err)
		return nil
	case codes.NotFound:
	default:
		return fmt.Errorf("get subscription %s: %w", spec.Name, err)
	}
	if o.DoNotCreateSubscriptionIfMissing {
		return fmt.Errorf("subscription %s %w and create_subscription_if_missing is false: create it (on topic %s), or set create_subscription_if_missing: true", spec.Name, errMissing, spec.Topic)
	}
	topic := &pb.Topic{Name: spec.Topic}
	if spec.Topic == o.topicPath(o.Topic) {
		topic = topicSpec(o)
	}
	if err := ensureTopic(ctx, c, o, topic); err != nil {
		return err
	}
	_, err = c.SubscriptionAdminClient.CreateSubscription(ctx, spec)
	if err != nil && status.Code(err) != codes.AlreadyExists {
		return fmt.Errorf("create subscription %s: %w", spec.Name, err)
	}
	o.Logger.Info("created subscription", "subscription", spec.Name, "topic", spec.Topic)
	return nil
}
