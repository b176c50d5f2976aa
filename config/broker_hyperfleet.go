package config

import (
	"time"

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
	if r.PrefetchCount < 0 {
		l.Add(path+".prefetch_count", "must not be negative")
	}
	if r.PrefetchSize < 0 {
		l.Add(path+".prefetch_size", "must not be negative")
	} else if r.PrefetchSize > 0 {
		l.Warn(path+".prefetch_size", "is ignored: RabbitMQ does not implement prefetch_size (it closes the channel on a non-zero one); prefetch_count bounds the messages in flight")
	}
	if r.PublisherConfirm != nil && !*r.PublisherConfirm {
		l.Warn(path+".publisher_confirm", "false is ignored: bundle-adapter always waits for RabbitMQ's confirm of its retry and dead-letter copies before settling the original")
	}
}

// validate applies hyperfleet-broker's bounds, which are Pub/Sub's.
func (p *GooglePubSub) validate(l *configfile.ErrorList, path string) {
	const day = 24 * time.Hour
	retention := p.MessageRetentionDuration.D()
	if retention != 0 && (retention < 10*time.Minute || retention > 31*day) {
		l.Add(path+".message_retention_duration", "must be between 10m and 31d, not %s", retention)
	}
	if p.ExpirationTTL != nil {
		ttl := p.ExpirationTTL.D()
		switch {
		case ttl != 0 && ttl < day:
			l.Add(path+".expiration_ttl", "must be 0 (never expire) or at least 1d, not %s", ttl)
		case ttl != 0 && retention != 0 && ttl < retention:
			l.Add(path+".expiration_ttl", "must be at least message_retention_duration (%s), not %s", retention, ttl)
		}
	}
	for _, b := range []struct {
		key string
		d   configfile.Duration
	}{{"retry_min_backoff", p.RetryMinBackoff}, {"retry_max_backoff", p.RetryMaxBackoff}} {
		if b.d.D() > 600*time.Second {
			l.Add(path+"."+b.key, "must be at most 600s, not %s", b.d)
		}
	}
	if p.RetryMinBackoff != 0 && p.RetryMaxBackoff != 0 && p.RetryMinBackoff > p.RetryMaxBackoff {
		l.Add(path+".retry_min_backoff", "must not exceed retry_max_backoff (%s), not %s", p.RetryMaxBackoff, p.RetryMinBackoff)
	}
	if tr := p.TopicRetentionDuration.D(); tr != 0 && (tr < 10*time.Minute || tr > 31*day) {
		l.Add(path+".topic_retention_duration", "must be 0 (off) or between 10m and 31d, not %s", tr)
	}
	if p.DeadLetterMaxAttempts != 0 && (p.DeadLetterMaxAttempts < 5 || p.DeadLetterMaxAttempts > 100) {
		l.Add(path+".dead_letter_max_attempts", "must be between 5 and 100, not %d", p.DeadLetterMaxAttempts)
	}
	for _, n := range []struct {
		key string
		v   int
	}{{"max_outstanding_messages", p.MaxOutstandingMessages}, {"max_outstanding_bytes", p.MaxOutstandingBytes}, {"num_goroutines", p.NumGoroutines}} {
		if n.v < 0 {
			l.Add(path+"."+n.key, "must not be negative")
		}
	}
	if p.AckDeadlineSeconds != 0 && (p.AckDeadlineSeconds < 10 || p.AckDeadlineSeconds > 600) {
		l.Add(path+".ack_deadline_seconds", "must be between 10 and 600, not %d", p.AckDeadlineSeconds)
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
