package adapter_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/adapter"
)

// A structured CloudEvent whose data is ambiguous is invalid: both data and
// data_base64 (one of them was silently dropped), or a top-level member
// given twice (the last one silently won).
func TestDecodeStructuredRejectsAmbiguousData(t *testing.T) {
	tests := []struct{ file, want string }{
		{"valid.json", ""},
		{"data-and-data-base64.json", "both data and data_base64"},
		{"data-base64-then-data.json", "both data and data_base64"},
		{"duplicate-data.json", `"data" is given twice`},
		{"duplicate-id.json", `"id" is given twice`},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			payload, err := os.ReadFile(filepath.Join("testdata", "events", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			ev, err := adapter.DecodeStructured(payload)
			if tt.want == "" {
				if err != nil || ev.Data["id"] != "c1" {
					t.Fatalf("got %+v, %v", ev, err)
				}
				return
			}
			var inv *adapter.InvalidEventError
			if !errors.As(err, &inv) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %+v, %v; want an *InvalidEventError saying %q", ev.Data, err, tt.want)
			}
		})
	}
}
