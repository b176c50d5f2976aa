package adapter_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// FuzzDecodeStructured: whatever the payload, DecodeStructured never panics;
// a failure is always an *adapter.InvalidEventError (so brokers dead-letter
// it at once), and a success has an id and a data object that encodes back
// to JSON (templates, CEL and the status report all need that).
//
// Seeds: testdata/fuzz/FuzzDecodeStructured (regressions included), the
// broker decode fixtures and the examples' dry-run events.
func FuzzDecodeStructured(f *testing.F) {
	for _, pattern := range []string{"../broker/testdata/decode/*.body", "../config/examples/*/dryrun/event.json"} {
		files, err := filepath.Glob(pattern)
		if err != nil || len(files) == 0 {
			f.Fatalf("no seed files match %s (%v)", pattern, err)
		}
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		ev, err := adapter.DecodeStructured(payload)
		if err != nil {
			var inv *adapter.InvalidEventError
			if !errors.As(err, &inv) {
				t.Fatalf("error %v is a %T, want *adapter.InvalidEventError", err, err)
			}
			if inv.Reason == "" {
				t.Fatalf("invalid event error without a reason: %#v", inv)
			}
			return
		}
		checkDecodedEvent(t, ev)
	})
}

func checkDecodedEvent(t *testing.T, ev adapter.Event) {
	t.Helper()
	if ev.ID == "" {
		t.Fatalf("decoded event has no id: %#v", ev)
	}
	if ev.Data == nil {
		t.Fatalf("decoded event %s has no data map", ev.ID)
	}
	if _, err := json.Marshal(ev.Data); err != nil {
		t.Fatalf("decoded event %s has data that is not JSON any more: %v", ev.ID, err)
	}
}

// The decode bugs behind the fuzz regression seeds, as explicit cases (the
// inputs are in testdata/fuzz): data followed by more JSON was accepted
// with the rest ignored (FuzzDecode found the binary-mode body "{}0"; the
// same holds for data_base64 and string data), and a number out of
// float64's range (1e400) became +Inf, which no encoder accepts.
func TestDecodeStructuredFuzzRegressions(t *testing.T) {
	tests := []struct{ name, want string }{
		{"data-base64-number-out-of-range", "invalid event e-1: data is not JSON: number 1e400 is out of range"},
		{"data-base64-trailing-content", "invalid event e-1: data is not JSON: more than one JSON value"},
		{"text-data-trailing-content", "invalid event e-1: data is not JSON: more than one JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			payload := readCorpusBytes(t, filepath.Join("testdata", "fuzz", "FuzzDecodeStructured", tt.name))
			_, err := adapter.DecodeStructured(payload)
			var inv *adapter.InvalidEventError
			if !errors.As(err, &inv) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("DecodeStructured(%s) = %v, want an *InvalidEventError containing %q", payload, err, tt.want)
			}
		})
	}
}

// readCorpusBytes reads the one []byte value of a Go fuzz corpus file.
func readCorpusBytes(t *testing.T, file string) []byte {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 2 || lines[0] != "go test fuzz v1" || !strings.HasPrefix(lines[1], "[]byte(") {
		t.Fatalf("%s is not a one-[]byte corpus file", file)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return []byte(s)
}
