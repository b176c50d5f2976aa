package rabbitmq

import (
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/bundle-adapter/bundle-adapter/broker"
)

// DeliveriesHeader carries the delivery count across Retry copies.
const DeliveriesHeader = "x-bundle-adapter-deliveries"

// quorumDeliveryCount is set by quorum queues on redeliveries.
const quorumDeliveryCount = "x-delivery-count"

// Message is one delivery from the subscription queue. It implements
// broker.Message; see the package documentation for the delivery count and
// how settling keeps at-least-once delivery.
type Message struct {
	d       amqp.Delivery
	s       *session
	settled atomic.Bool
}

var _ broker.Message = (*Message)(nil)

// WatermillUUIDHeader is the header hyperfleet-broker (through watermill)
// sends instead of an AMQP message id; it holds the CloudEvent id.
const WatermillUUIDHeader = "_watermill_message_uuid"

// ID is the AMQP message-id property; else the WatermillUUIDHeader (the
// CloudEvent id, as Sentinel sends it); else "delivery-<tag>".
func (m *Message) ID() string {
	if m.d.MessageId != "" {
		return m.d.MessageId
	}
	if id, ok := scalarString(m.d.Headers[WatermillUUIDHeader]); ok && id != "" {
		return id
	}
	return fmt.Sprintf("delivery-%d", m.d.DeliveryTag)
}

// Body is the message body.
func (m *Message) Body() []byte { return m.d.Body }

// Attributes are the AMQP headers with scalar values (strings, numbers,
// booleans, timestamps) as strings, plus the content-type property as
// "content-type" unless a header of that name exists. Tables and arrays
// (x-death) are left out.
func (m *Message) Attributes() map[string]string {
	out := make(map[string]string, len(m.d.Headers)+1)
	for k, v := range m.d.Headers {
		if s, ok := scalarString(v); ok {
			out[k] = s
		}
	}
	if _, ok := out["content-type"]; !ok && m.d.ContentType != "" {
		out["content-type"] = m.d.ContentType
	}
	return out
}

// Deliveries is DeliveriesHeader (1 when absent) plus this copy's broker
// redeliveries: x-delivery-count where present, else 1 if Redelivered.
func (m *Message) Deliveries() int {
	n, ok := headerInt(m.d.Headers[DeliveriesHeader])
	if !ok || n < 1 {
		n = 1
	}
	if c, ok := headerInt(m.d.Headers[quorumDeliveryCount]); ok && c > 0 {
		return n + c
	}
	if m.d.Redelivered {
		n++
	}
	return n
}

// headerInt reads an AMQP integer (any width) or decimal string.
func headerInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int8:
		return int(x), true
	case int16:
		return int(x), true
	case int32:
		return int(x), true
	case int64:
		return int(x), true
	case uint8:
		return int(x), true
	case uint16:
		return int(x), true
	case uint32:
		return int(x), true
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(x))
		return n, err == nil
	}
	return 0, false
}

func scalarString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case []byte:
		return string(x), true
	case time.Time:
		return x.UTC().Format(time.RFC3339), true
	case bool, int, int8, int16, int32, int64, uint8, uint16, uint32, float32, float64:
		return fmt.Sprint(x), true
	}
	return "", false
}

// copyFor is a persistent copy of the message (body, properties, headers
// without the broker's dead-lettering bookkeeping) with the delivery count
// set to deliveries and extra headers added.
func (m *Message) copyFor(deliveries int, extra amqp.Table) amqp.Publishing {
	headers := amqp.Table{}
	for k, v := range m.d.Headers {
		if !brokerHeader(k) {
			headers[k] = v
		}
	}
	for k, v := range extra {
		headers[k] = v
	}
	headers[DeliveriesHeader] = int64(deliveries)
	return amqp.Publishing{
		Headers:         headers,
		ContentType:     m.d.ContentType,
		ContentEncoding: m.d.ContentEncoding,
		DeliveryMode:    amqp.Persistent,
		Priority:        m.d.Priority,
		CorrelationId:   m.d.CorrelationId,
		ReplyTo:         m.d.ReplyTo,
		MessageId:       m.d.MessageId,
		Timestamp:       m.d.Timestamp,
		Type:            m.d.Type,
		AppId:           m.d.AppId,
		Body:            m.d.Body,
	}
}

// brokerHeader reports headers RabbitMQ maintains itself.
func brokerHeader(k string) bool {
	return k == "x-death" || k == quorumDeliveryCount ||
		strings.HasPrefix(k, "x-first-death-") || strings.HasPrefix(k, "x-last-death-")
}
