package broker_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
	"github.com/bundle-adapter/bundle-adapter/broker"
)

// fuzzPrefixes are the binding spellings a fuzzed binary-mode message uses
// for its attribute names (chosen by the fuzzer); the last is no prefix at
// all, so the attributes are ignored and the body is structured.
var fuzzPrefixes = []string{"ce-", "ce_", "cloudEvents:", "CE_", ""}

// FuzzDecode: whatever the body and the CloudEvent attributes (id,
// specversion, type, source, time, content-type under one of the binding
// spellings), broker.Decode never panics; a failure is an
// *adapter.InvalidEventError naming the broker message id (it is
// dead-lettered at once), and a success has an id and a data object that
// encodes back to JSON. In binary mode the body is the data, so a success
// also means the body is one valid JSON document.
//
// Seeds: testdata/fuzz/FuzzDecode (regressions included) and every decode
// fixture in testdata/decode.
func FuzzDecode(f *testing.F) {
	bodies, err := filepath.Glob(filepath.Join("testdata", "decode", "*.body"))
	if err != nil || len(bodies) == 0 {
		f.Fatalf("no decode fixtures (%v)", err)
	}
	for _, file := range bodies {
		body, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var attrs map[string]string
		if raw, err := os.ReadFile(strings.TrimSuffix(file, ".body") + ".attrs.json"); err == nil {
			if err := json.Unmarshal(raw, &attrs); err != nil {
				f.Fatalf("%s: %v", file, err)
			}
		}
		a := fuzzAttrs{}
		prefix := uint8(len(fuzzPrefixes) - 1) // structured
		for k, v := range attrs {
			k = strings.ToLower(k)
			for _, p := range []string{"cloudevents:", "cloudevents_", "ce-", "ce_"} {
				k = strings.TrimPrefix(k, p)
			}
			switch k {
			case "id":
				a.id, prefix = v, 0
			case "specversion":
				a.specversion, prefix = v, 0
			case "type":
				a.typ, prefix = v, 0
			case "source":
				a.source, prefix = v, 0
			case "time":
				a.time = v
			case "content-type", "datacontenttype":
				a.contentType = v
			}
		}
		f.Add(body, prefix, a.id, a.specversion, a.typ, a.source, a.time, a.contentType)
	}
	// Small binary-mode bodies, so mutations reach the data's edges.
	f.Add([]byte(`{"id":"c-1","generation":2}`), uint8(0), "e-1", "1.0", "t", "s", "", "application/json")
	f.Add([]byte(`{"ratio":0.5}`), uint8(1), "e-2", "0.3", "t", "s", "2026-01-15T10:00:00Z", "")
	f.Fuzz(func(t *testing.T, body []byte, prefix uint8, id, specversion, typ, source, timeAttr, contentType string) {
		p := fuzzPrefixes[int(prefix)%len(fuzzPrefixes)]
		m := &fixtureMessage{id: "fuzz-msg", body: body, attrs: map[string]string{}}
		binary := false
		if p != "" {
			for name, v := range map[string]string{"id": id, "specversion": specversion, "type": typ, "source": source, "time": timeAttr} {
				if v != "" {
					m.attrs[p+name] = v
					binary = binary || name != "time"
				}
			}
		}
		if contentType != "" {
			m.attrs["content-type"] = contentType
		}
		ev, err := broker.Decode(m)
		if err != nil {
			var inv *adapter.InvalidEventError
			if !errors.As(err, &inv) {
				t.Fatalf("error %v is a %T, want *adapter.InvalidEventError", err, err)
			}
			if !strings.Contains(err.Error(), "message fuzz-msg") {
				t.Fatalf("error %q does not name the broker message id", err)
			}
			return
		}
		if ev.ID == "" {
			t.Fatalf("decoded event has no id: %#v", ev)
		}
		if ev.Data == nil {
			t.Fatalf("decoded event %s has no data map", ev.ID)
		}
		if _, err := json.Marshal(ev.Data); err != nil {
			t.Fatalf("decoded event %s has data that is not JSON any more: %v", ev.ID, err)
		}
		if binary && !json.Valid(body) {
			t.Fatalf("binary-mode body %q is not one valid JSON document, yet it decoded to %v", body, ev.Data)
		}
		if len(body) > broker.MaxEventBytes {
			t.Fatalf("a %d-byte body decoded despite MaxEventBytes", len(body))
		}
	})
}

type fuzzAttrs struct {
	id, specversion, typ, source, time, contentType string
}
