package config

import (
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"gopkg.in/yaml.v3"
)

// ignoredKey accepts any YAML value and records a load warning that the key
// has no meaning here. It is left out of dumps.
type ignoredKey struct{ set bool }

func (k *ignoredKey) DecodeNode(d *configfile.Decoder, n *yaml.Node, path string) {
	k.set = true
	d.Errs.Warn(path, "is ignored: it configures hyperfleet-broker's publisher; bundle-adapter only consumes, and publishes its retry and dead-letter copies with RabbitMQ's confirm")
}

// IsZero leaves the key out of dumps.
func (k ignoredKey) IsZero() bool { return true }

// applyNested applies broker.subscriber, where hyperfleet-adapter's chart
// renders it, as the top-level subscriber block when the file has none.
func (c *BrokerConfig) applyNested(l *configfile.ErrorList) {
	nested := c.Settings.Subscriber
	if nested == nil {
		return
	}
	if _, top := l.Lines["subscriber"]; top {
		l.Warn("broker.subscriber", "is ignored: the top-level subscriber block is set (hyperfleet-broker ignores broker.subscriber too)")
		return
	}
	l.Warn("broker.subscriber", "hyperfleet-broker reads subscriber at the top level and ignores it here; bundle-adapter applies it as the top-level subscriber block: move it there")
	if nested.Parallelism != 0 {
		c.Subscriber.Parallelism = nested.Parallelism
	}
	if nested.ShutdownTimeout != 0 {
		c.Subscriber.ShutdownTimeout = nested.ShutdownTimeout
	}
	if nested.EventTimeout != 0 {
		c.Subscriber.EventTimeout = nested.EventTimeout
	}
}

func (r *RabbitMQ) validate(l *configfile.ErrorList, path string) {
	if r.ExchangeType != "" {
		configfile.OneOf(l, path+".exchange_type", r.ExchangeType, "fanout", "topic", "direct", "headers")
	}
	if r.PrefetchSize > 0 {
		l.Warn(path+".prefetch_size", "is ignored: RabbitMQ does not implement prefetch_size (it closes the channel on a non-zero one); prefetch_count bounds the messages in flight")
	}
	if r.PublisherConfirm != nil && !*r.PublisherConfirm {
		l.Warn(path+".publisher_confirm", "false is ignored: bundle-adapter always waits for RabbitMQ's confirm of its retry and dead-letter copies before settling the original")
	}
}

// validate applies the relations between Pub/Sub's settings; their
// ranges (hyperfleet-broker's, which are Pub/Sub's) are in BrokerBounds.
func (p *GooglePubSub) validate(l *configfile.ErrorList, path string) {
	retention := p.MessageRetentionDuration.D()
	if p.ExpirationTTL != nil {
		if ttl := p.ExpirationTTL.D(); ttl != 0 && retention != 0 && ttl < retention {
			l.Add(path+".expiration_ttl", "must be at least message_retention_duration (%s), not %s", retention, ttl)
		}
	}
	if p.RetryMinBackoff != 0 && p.RetryMaxBackoff != 0 && p.RetryMinBackoff > p.RetryMaxBackoff {
		l.Add(path+".retry_min_backoff", "must not exceed retry_max_backoff (%s), not %s", p.RetryMaxBackoff, p.RetryMinBackoff)
	}
}

// RedactedYAML is the broker config in effect as YAML, secrets redacted as
// in Config.Dump; serve logs it when LogConfig is set.
func (c *BrokerConfig) RedactedYAML() string {
	out, err := yaml.Marshal(redact(c))
	if err != nil {
		return "cannot marshal: " + err.Error()
	}
	return string(out)
}
