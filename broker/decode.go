package broker

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	cloudevents "github.com/cloudevents/sdk-go/v2/event"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// MaxEventBytes is the event size limit: a message whose body is larger is
// not decoded at all but dead-lettered as malformed, with a reason naming
// its size. Reconcile events are small (ids, a kind, a generation); 1 MiB
// leaves room for any sane event while bounding the memory and CPU one
// message can cost.
const MaxEventBytes = 1 << 20

// Decode turns a broker message into an event. It accepts both CloudEvents
// content modes:
//
//   - binary mode, chosen when the attributes carry any CloudEvent attribute
//     (id, specversion, type or source): the attributes are the CloudEvent
//     attributes and the body is the data. Attribute names are matched
//     case-insensitively with the prefixes "ce-", "ce_", "cloudEvents:" and
//     "cloudEvents_" (HTTP, Kafka, AMQP and AMQP-over-headers spellings);
//     a "content-type" attribute stands for datacontenttype when no prefixed
//     one is present;
//   - structured mode otherwise: the body is the whole CloudEvent JSON, as
//     HyperFleet's Sentinel publishes it.
//
// The body may hold at most MaxEventBytes and the data must be a JSON
// object. Every failure is an *adapter.InvalidEventError whose reason names
// the broker message id and what is wrong: such a message can never be
// processed and is dead-lettered at once, never retried.
func Decode(m Message) (adapter.Event, error) {
	attrs, err := ceAttributes(m.Attributes())
	if err != nil {
		return adapter.Event{}, withMessageID(err, m.ID())
	}
	ev, err := decodeBody(attrs, m.Body())
	if err != nil {
		return adapter.Event{}, withMessageID(err, m.ID())
	}
	return ev, nil
}

func decodeBody(attrs ceAttrs, body []byte) (adapter.Event, error) {
	if err := checkSize(len(body), attrs["id"]); err != nil {
		return adapter.Event{}, err
	}
	if attrs.binary() {
		return decodeBinary(attrs, body)
	}
	return decodeStructured(body)
}

// checkSize refuses a body over MaxEventBytes.
func checkSize(n int, id string) error {
	if n <= MaxEventBytes {
		return nil
	}
	return &adapter.InvalidEventError{EventID: id, Reason: fmt.Sprintf(
		"body is %d bytes, over the event size limit of %d bytes (broker.MaxEventBytes)", n, MaxEventBytes)}
}

// ReadStructured reads a structured-mode CloudEvent from r (a file: the
// dry-run's --event) and decodes it as Decode decodes a message body: at
// most MaxEventBytes are accepted (no more than one byte past the limit is
// ever read), then the same decoder. Every failure of the event itself is
// an *adapter.InvalidEventError; a read failure is returned as it is.
func ReadStructured(r io.Reader) (adapter.Event, error) {
	body, err := io.ReadAll(io.LimitReader(r, MaxEventBytes+1))
	if err != nil {
		return adapter.Event{}, err
	}
	if len(body) > MaxEventBytes {
		return adapter.Event{}, &adapter.InvalidEventError{Reason: fmt.Sprintf(
			"body is over the event size limit of %d bytes (broker.MaxEventBytes)", MaxEventBytes)}
	}
	return decodeStructured(body)
}

// decodeStructured decodes a body holding the whole CloudEvent JSON.
func decodeStructured(body []byte) (adapter.Event, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return adapter.Event{}, &adapter.InvalidEventError{Reason: "empty body: a structured-mode CloudEvent JSON or binary-mode ce- attributes are expected"}
	}
	return adapter.DecodeStructured(body)
}

// decodeBinary builds the CloudEvent from attributes and takes body as data.
func decodeBinary(attrs ceAttrs, body []byte) (adapter.Event, error) {
	id := attrs["id"]
	invalid := func(format string, args ...any) (adapter.Event, error) {
		return adapter.Event{}, &adapter.InvalidEventError{EventID: id, Reason: "binary-mode CloudEvent: " + fmt.Sprintf(format, args...)}
	}
	version := attrs["specversion"]
	if version != cloudevents.CloudEventsVersionV1 && version != cloudevents.CloudEventsVersionV03 {
		return invalid("specversion %q is not supported (1.0 or 0.3 expected)", version)
	}
	ce := cloudevents.New(version)
	ce.SetID(id)
	ce.SetType(attrs["type"])
	ce.SetSource(attrs["source"])
	if s, ok := attrs["subject"]; ok {
		ce.SetSubject(s)
	}
	if ct, ok := attrs["datacontenttype"]; ok {
		ce.SetDataContentType(ct)
	}
	if ts, ok := attrs["time"]; ok {
		t, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			return invalid("time %q is not RFC 3339", ts)
		}
		ce.SetTime(t)
	}
	for _, ext := range []string{"traceparent", "tracestate"} {
		if v, ok := attrs[ext]; ok {
			ce.SetExtension(ext, v)
		}
	}
	ce.DataEncoded = body
	return adapter.FromCloudEvent(ce)
}

// withMessageID puts the broker message id in the reason of an
// *adapter.InvalidEventError (and wraps any other error into one).
func withMessageID(err error, messageID string) error {
	var inv *adapter.InvalidEventError
	if !errors.As(err, &inv) {
		inv = &adapter.InvalidEventError{Reason: err.Error()}
	}
	return &adapter.InvalidEventError{EventID: inv.EventID, Reason: fmt.Sprintf("message %s: %s", messageID, inv.Reason)}
}

// ceAttrs maps CloudEvent attribute names (lower case, no prefix) to values.
type ceAttrs map[string]string

// ceAttrPrefixes are the binding prefixes, lower case, longest first.
var ceAttrPrefixes = []string{"cloudevents:", "cloudevents_", "ce-", "ce_"}

// ceAttrNames are the attributes Decode reads.
var ceAttrNames = map[string]bool{
	"id": true, "type": true, "source": true, "specversion": true,
	"subject": true, "time": true, "datacontenttype": true,
	"traceparent": true, "tracestate": true, // the Distributed Tracing extension
}

// ceAttributes extracts the CloudEvent attributes from message attributes.
// One attribute given under two spellings (ce-id and ce_id, ce-type and
// CE-TYPE) with two values is an invalid event naming both: which one
// would win depends on map order, so the event is ambiguous.
func ceAttributes(in map[string]string) (ceAttrs, error) {
	out := ceAttrs{}
	from := map[string]string{}
	for k, v := range in {
		if name, ok := ceAttrName(k); ok {
			if err := setOnce(out, from, name, k, v); err != nil {
				return nil, err
			}
		}
	}
	if _, ok := out["datacontenttype"]; !ok && len(out) > 0 {
		for k, v := range in {
			if strings.EqualFold(k, "content-type") || strings.EqualFold(k, "content_type") {
				if err := setOnce(out, from, "datacontenttype", k, v); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// setOnce sets out[name] from attribute key, refusing a second spelling
// of name with another value.
func setOnce(out ceAttrs, from map[string]string, name, key, value string) error {
	if prev, dup := out[name]; dup && prev != value {
		first, second := min(from[name], key), max(from[name], key)
		return &adapter.InvalidEventError{EventID: out["id"], Reason: fmt.Sprintf(
			"binary-mode CloudEvent: attribute %s is given twice, as %.60q and %.60q, with different values", name, first, second)}
	}
	out[name], from[name] = value, key
	return nil
}

// ceAttrName strips a binding prefix from a known attribute name.
func ceAttrName(key string) (string, bool) {
	lower := strings.ToLower(key)
	for _, p := range ceAttrPrefixes {
		if name, ok := strings.CutPrefix(lower, p); ok && ceAttrNames[name] {
			return name, true
		}
	}
	return "", false
}

// binary reports whether the attributes make the message a binary-mode one.
func (a ceAttrs) binary() bool {
	for _, name := range []string{"id", "specversion", "type", "source"} {
		if _, ok := a[name]; ok {
			return true
		}
	}
	return false
}
