package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/metrics"
	"github.com/bundle-adapter/bundle-adapter/shadow"
)

// shadowSuffix ends the subscription id (and a named Pub/Sub subscription)
// of a shadow replica.
const shadowSuffix = "-shadow"

// useShadow makes p a shadow replica's plan: its queue or subscription is
// its own on the same exchange or topic, so it never takes a message from
// the live adapter. The subscription id gets the suffix "-shadow" (the
// RabbitMQ queue "<topic>-<subscription_id>-shadow", the Pub/Sub
// subscription "<subscription_id>-shadow"), and so does a Pub/Sub
// subscription and dead-letter topic the broker config names (the shadow's
// dead letters never reach the live adapter's); a name that already ends in
// "-shadow" is kept, so a config can name the shadow queue itself.
func (p *startPlan) useShadow() {
	p.shadow = true
	if p.rabbitmq != nil {
		p.rabbitmq.SubscriptionID = withShadowSuffix(p.rabbitmq.SubscriptionID)
	}
	if p.pubsub != nil {
		p.pubsub.SubscriptionID = withShadowSuffix(p.pubsub.SubscriptionID)
		if p.pubsub.Subscription != "" {
			p.pubsub.Subscription = withShadowSuffix(p.pubsub.Subscription)
		}
		if p.pubsub.DeadLetterTopic != "" { // else derived from the subscription
			p.pubsub.DeadLetterTopic = withShadowSuffix(p.pubsub.DeadLetterTopic)
		}
	}
}

// planShadowNames checks the shadow's names: with shadow, p becomes the
// shadow's plan (useShadow) and its options are checked again with the
// suffixed names; without, a copy is, and a live subscription whose name
// already ends in "-shadow" is refused: it would consume a shadow's queue
// or subscription and split the live messages with it.
func (p *startPlan) planShadowNames(shadow bool) error {
	if !shadow {
		if name := p.subscriptionName(); strings.HasSuffix(name, shadowSuffix) {
			return fmt.Errorf("broker consumer: the subscription %q ends in %q, the suffix of a shadow replica's (serve --shadow): a live adapter consuming it would split the messages with the shadow; rename it, or run it with --shadow", name, shadowSuffix)
		}
		c := p.shadowCopy()
		if err := c.checkConsumer(); err != nil {
			return fmt.Errorf("broker consumer of a shadow replica (serve --shadow, subscription %q): %w", c.subscriptionName(), err)
		}
		return nil
	}
	p.useShadow()
	if err := p.checkConsumer(); err != nil {
		return fmt.Errorf("broker consumer (serve --shadow, subscription %q): %w", p.subscriptionName(), err)
	}
	return nil
}

// shadowCopy is a copy of p made a shadow's plan; p is left as it is.
func (p *startPlan) shadowCopy() *startPlan {
	c := *p
	if p.rabbitmq != nil {
		o := *p.rabbitmq
		c.rabbitmq = &o
	}
	if p.pubsub != nil {
		o := *p.pubsub
		c.pubsub = &o
	}
	c.useShadow()
	return &c
}

// checkConsumer checks the consumer's options as New would.
func (p *startPlan) checkConsumer() error {
	switch {
	case p.rabbitmq != nil:
		return p.rabbitmq.Check()
	case p.pubsub != nil:
		return p.pubsub.Check()
	}
	return nil
}

func withShadowSuffix(name string) string {
	if strings.HasSuffix(name, shadowSuffix) {
		return name
	}
	return name + shadowSuffix
}

// subscriptionName is the queue or subscription the plan consumes.
func (p *startPlan) subscriptionName() string {
	switch {
	case p.rabbitmq != nil:
		return p.rabbitmq.QueueName()
	case p.pubsub != nil:
		return p.pubsub.SubscriptionName()
	}
	return ""
}

// newProcess builds the pipeline of opts and returns what the dispatcher
// runs per event: the pipeline itself, or with shadow, the pipeline over
// read-only boundaries (shadowOptions) inside shadow.Process, which counts
// its decisions on m.
func newProcess(opts adapter.Options, shadowMode bool, m *metrics.Metrics, log *slog.Logger) (func(context.Context, adapter.Event) *adapter.Result, error) {
	if !shadowMode {
		p, err := adapter.New(opts)
		if err != nil {
			return nil, err
		}
		return p.Run, nil
	}
	opts = shadowOptions(opts)
	p, err := adapter.New(opts)
	if err != nil {
		return nil, err
	}
	s, err := shadow.New(shadow.Options{Run: p.Run, API: opts.API, Adapter: opts.Adapter.Name, Count: m.ShadowDecision, Logger: log})
	if err != nil {
		return nil, err
	}
	return s.Process, nil
}

// shadowOptions wraps the three boundaries of opts in the read-only
// decorators of package shadow: no write of the pipeline can reach
// Maestro, the API server or the HyperFleet API.
func shadowOptions(opts adapter.Options) adapter.Options {
	if opts.Maestro != nil {
		opts.Maestro = shadow.Maestro(opts.Maestro)
	}
	if opts.Kube != nil {
		opts.Kube = shadow.Kube(opts.Kube)
	}
	if opts.API != nil {
		opts.API = shadow.API(opts.API)
	}
	return opts
}
