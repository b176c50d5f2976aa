package broker_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/broker"
)

// fixtureMessage is a Message read from testdata/decode/<name>.body and the
// optional <name>.attrs.json. Decode never settles it.
type fixtureMessage struct {
	id    string
	body  []byte
	attrs map[string]string
}

func (m *fixtureMessage) ID() string                    { return m.id }
func (m *fixtureMessage) Body() []byte                  { return m.body }
func (m *fixtureMessage) Attributes() map[string]string { return m.attrs }
func (m *fixtureMessage) Deliveries() int               { return 1 }
func (m *fixtureMessage) Ack(context.Context) error     { return errors.New("not settled in decode tests") }
func (m *fixtureMessage) Retry(context.Context, time.Duration) error {
	return errors.New("not settled in decode tests")
}
func (m *fixtureMessage) Release(context.Context) error {
	return errors.New("not settled in decode tests")
}
func (m *fixtureMessage) DeadLetter(context.Context, string) error {
	return errors.New("not settled in decode tests")
}
func loadFixture(t *testing.T, name string) *fixtureMessage {
	t.Helper()
	base := filepath.Join("testdata", "decode", name)
	body, err := os.ReadFile(base + ".body")
	if err != nil {
		t.Fatal(err)
	}
	m := &fixtureMessage{id: "msg-" + name, body: body}
	raw, err := os.ReadFile(base + ".attrs.json")
	if errors.Is(err, os.ErrNotExist) {
		return m
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &m.attrs); err != nil {
		t.Fatalf("%s.attrs.json: %v", base, err)
	}
	return m
}

func TestDecode(t *testing.T) {
	tests := []struct {
		fixture string
		want    adapter.Event
		// wantErr are substrings of the error; the message id is always
		// expected too.
		wantErr []string
	}{
		{fixture: "structured-valid", want: adapter.Event{
			ID: "6c1f3d2a-1b7e-4d0c-9a55-2f0e8b9c7d10", Type: "com.redhat.hyperfleet.cluster.reconcile",
			Source: "hyperfleet-sentinel", Subject: "clusters/c-123",
			Data:        map[string]any{"id": "c-123", "kind": "Cluster", "href": "/api/hyperfleet/v1/clusters/c-123", "generation": int64(7)},
			TraceParent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		}},
		{fixture: "binary-valid", want: adapter.Event{
			ID: "b-1", Type: "com.redhat.hyperfleet.nodepool.reconcile",
			Source: "hyperfleet-sentinel", Subject: "nodepools/np-9",
			Data: map[string]any{"id": "np-9", "kind": "NodePool", "href": "/api/hyperfleet/v1/nodepools/np-9",
				"generation": int64(3), "ratio": 0.5, "owner_references": map[string]any{"id": "c-123", "kind": "Cluster"}},
			TraceParent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		}},
		{fixture: "not-json", wantErr: []string{"not a structured-mode CloudEvent"}},
		{fixture: "missing-id", wantErr: []string{"id: "}},
		{fixture: "data-not-object", wantErr: []string{"invalid event e-2", "data must be a JSON object"}},
		{fixture: "empty-body", wantErr: []string{"empty body"}},
		{fixture: "data-and-data-base64", wantErr: []string{"msg-data-and-data-base64", "both data and data_base64"}},
		{fixture: "duplicate-data", wantErr: []string{`member "data" is given twice`}},
		{fixture: "binary-missing-id", wantErr: []string{"id: "}},
		{fixture: "binary-data-not-object", wantErr: []string{"invalid event b-3", "data must be a JSON object"}},
		{fixture: "binary-empty-body", wantErr: []string{"invalid event b-4", "data is empty"}},
		{fixture: "binary-bad-time", wantErr: []string{"invalid event b-5", `time "yesterday"`}},
		{fixture: "binary-bad-specversion", wantErr: []string{"invalid event b-6", `specversion "2.0"`}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			m := loadFixture(t, tt.fixture)
			got, err := broker.Decode(m)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("Decode =\n%#v\nwant\n%#v", got, tt.want)
				}
				return
			}
			assertInvalid(t, err, m.id, tt.wantErr)
		})
	}
}

func assertInvalid(t *testing.T, err error, messageID string, want []string) {
	t.Helper()
	var inv *adapter.InvalidEventError
	if !errors.As(err, &inv) {
		t.Fatalf("Decode error = %v (%T), want *adapter.InvalidEventError", err, err)
	}
	t.Logf("error: %v", err)
	for _, w := range append(want, "message "+messageID) {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Decode error %q does not contain %q", err, w)
		}
	}
}

// Attribute names of every binding spelling select binary mode, whatever
// their case.
func TestDecodeAttributeSpellings(t *testing.T) {
	for _, prefix := range []string{"ce-", "ce_", "cloudEvents:", "cloudEvents_", "CE-", "CLOUDEVENTS_"} {
		t.Run(prefix, func(t *testing.T) {
			m := &fixtureMessage{id: "m", body: []byte(`{"id":"c-1"}`), attrs: map[string]string{
				prefix + "id": "x-1", prefix + "specversion": "1.0", prefix + "type": "t", prefix + "source": "s",
			}}
			ev, err := broker.Decode(m)
			if err != nil {
				t.Fatal(err)
			}
			if ev.ID != "x-1" || ev.Type != "t" || ev.Source != "s" || ev.Data["id"] != "c-1" {
				t.Errorf("Decode = %+v", ev)
			}
		})
	}
}

// Attributes that are no CloudEvent attributes leave a message structured.
func TestDecodeUnrelatedAttributesStayStructured(t *testing.T) {
	m := loadFixture(t, "structured-valid")
	m.attrs = map[string]string{"x-bundle-adapter-deliveries": "3", "content-type": "application/cloudevents+json", "ce-traceparent": "00-x"}
	ev, err := broker.Decode(m)
	if err != nil {
		t.Fatal(err)
	}
	if ev.ID != "6c1f3d2a-1b7e-4d0c-9a55-2f0e8b9c7d10" {
		t.Errorf("Decode id = %q", ev.ID)
	}
}
