package adapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"

	cloudevents "github.com/cloudevents/sdk-go/v2/event"
)

// Event is one decoded reconcile event: the CloudEvent's attributes and its
// JSON data. Data numbers that are whole are int64, others float64.
type Event struct {
	ID      string
	Type    string
	Source  string
	Subject string
	Data    map[string]any
	// TraceParent and TraceState are the CloudEvents Distributed Tracing
	// extension (W3C Trace Context), as Sentinel sets it; empty when the
	// event carries none. The event's span continues that trace.
	TraceParent, TraceState string
}

// InvalidEventError reports an event that can never be processed (bad JSON,
// missing attributes, data not a JSON object). Brokers dead-letter it at once.
type InvalidEventError struct {
	EventID string
	Reason  string
}

func (e *InvalidEventError) Error() string {
	if e.EventID == "" {
		return "invalid event: " + e.Reason
	}
	return fmt.Sprintf("invalid event %s: %s", e.EventID, e.Reason)
}

// DecodeStructured decodes a structured-mode CloudEvent (JSON with
// specversion, id, type, source and data), as HyperFleet's Sentinel publishes
// it. An ambiguous event is refused rather than guessed at: a top-level
// member given twice, or both data and data_base64. Every failure is an
// *InvalidEventError. It does not bound the payload's size: callers apply
// broker.MaxEventBytes (broker.DecodeStructured) first.
func DecodeStructured(payload []byte) (Event, error) {
	if err := checkMembers(payload); err != nil {
		return Event{}, &InvalidEventError{Reason: "not a structured-mode CloudEvent: " + err.Error()}
	}
	var ce cloudevents.Event
	if err := json.Unmarshal(payload, &ce); err != nil {
		return Event{}, &InvalidEventError{Reason: "not a structured-mode CloudEvent: " + err.Error()}
	}
	return FromCloudEvent(ce)
}

// checkMembers refuses a JSON object with a member given twice or with both
// data and data_base64 (encoding/json and the CloudEvents SDK would keep one
// silently). Anything that is not a JSON object is left to the decoder.
func checkMembers(payload []byte) error {
	dec := json.NewDecoder(bytes.NewReader(payload))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := tok.(string)
		if seen[key] {
			return fmt.Errorf("member %.40q is given twice", key)
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil
		}
	}
	if seen["data"] && seen["data_base64"] {
		return fmt.Errorf("both data and data_base64 are set; a CloudEvent carries one of them")
	}
	return nil
}

// FromCloudEvent validates a CloudEvent and decodes its JSON data.
func FromCloudEvent(ce cloudevents.Event) (Event, error) {
	if err := ce.Validate(); err != nil {
		return Event{}, &InvalidEventError{EventID: ce.ID(), Reason: err.Error()}
	}
	data, err := decodeData(ce.Data())
	if err != nil {
		return Event{}, &InvalidEventError{EventID: ce.ID(), Reason: err.Error()}
	}
	return Event{ID: ce.ID(), Type: ce.Type(), Source: ce.Source(), Subject: ce.Subject(), Data: data,
		TraceParent: extension(ce, "traceparent"), TraceState: extension(ce, "tracestate")}, nil
}

// extension is a string extension attribute of ce, empty when absent.
func extension(ce cloudevents.Event, name string) string {
	s, _ := ce.Extensions()[name].(string)
	return s
}

func decodeData(raw []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, fmt.Errorf("data is empty: a JSON object such as {\"id\": ..., \"kind\": ..., \"generation\": ...} is expected")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("data is not JSON: %v", err)
	}
	if err := checkDuplicateMembers(raw); err != nil {
		return nil, fmt.Errorf("data is ambiguous: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data is not JSON: more than one JSON value (trailing content after offset %d)", dec.InputOffset())
	}
	n, err := normalizeJSON(v)
	if err != nil {
		return nil, fmt.Errorf("data is not JSON: %v", err)
	}
	m, ok := n.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("data must be a JSON object")
	}
	return m, nil
}

// normalizeJSON turns json.Number into int64 when whole, float64 otherwise.
// A number out of float64's range is an error: it would be an infinity that
// no template, CEL expression or JSON encoder can use.
func normalizeJSON(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, nil
		}
		f, err := x.Float64()
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("number %.40s is out of range", x)
		}
		return f, nil
	case map[string]any:
		for k, e := range x {
			n, err := normalizeJSON(e)
			if err != nil {
				return nil, err
			}
			x[k] = n
		}
		return x, nil
	case []any:
		for i, e := range x {
			n, err := normalizeJSON(e)
			if err != nil {
				return nil, err
			}
			x[i] = n
		}
		return x, nil
	default:
		return v, nil
	}
}

// decodeJSON decodes an API response body with the same number rules.
func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return normalizeJSON(v)
}
