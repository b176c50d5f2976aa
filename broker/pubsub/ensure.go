package pubsub

import (
	"context"
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
// exist.
func ensure(ctx context.Context, c *pubsub.Client, o Options) error {
	if err := ensureTopic(ctx, c, o, o.DeadLetterTopic); err != nil {
		return err
	}
	dlSub := &pb.Subscription{Name: o.subscriptionPath(o.DeadLetterTopic), Topic: o.topicPath(o.DeadLetterTopic)}
	if err := ensureSubscription(ctx, c, o, dlSub); err != nil {
		return err
	}
	return ensureSubscription(ctx, c, o, subscriptionSpec(o))
}

// subscriptionSpec is the subscription New creates when it is missing.
func subscriptionSpec(o Options) *pb.Subscription {
	return &pb.Subscription{
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
	}
}

// ensureTopic creates topic id when it does not exist.
func ensureTopic(ctx context.Context, c *pubsub.Client, o Options, id string) error {
	name := o.topicPath(id)
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
	_, err = c.TopicAdminClient.CreateTopic(ctx, &pb.Topic{Name: name})
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
	if err := ensureTopic(ctx, c, o, topicID(spec.Topic)); err != nil {
		return err
	}
	_, err = c.SubscriptionAdminClient.CreateSubscription(ctx, spec)
	if err != nil && status.Code(err) != codes.AlreadyExists {
		return fmt.Errorf("create subscription %s: %w", spec.Name, err)
	}
	o.Logger.Info("created subscription", "subscription", spec.Name, "topic", spec.Topic)
	return nil
}

// topicID is the last segment of projects/<p>/topics/<id>.
func topicID(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' {
			return path[i+1:]
		}
	}
	return path
}
