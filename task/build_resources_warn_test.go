package task

import (
	"strings"
	"testing"

	"github.com/bundle-adapter/bundle-adapter/celenv"
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
)

// A payload leaf without a default that reads resources.<name> without ?
// fails while the resource is absent and is then sent as null: validate
// warns about it. A default, or reading or testing that resource with ?
// or has() anywhere in the expression, silence the warning.
func TestPayloadLeafReadingResourcesWithoutDefaultWarns(t *testing.T) {
	env, err := celenv.NewEnv([]string{"resources", "cluster"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		leaf map[string]any
		warn bool
	}{
		{map[string]any{"expression": "resources.bundle.status"}, true},
		{map[string]any{"field": "resources.bundle.metadata.name"}, true},
		{map[string]any{"expression": `resources["bundle"].kind`}, true},
		{map[string]any{"expression": `size(resources.bundle.status.conditions) > 0`}, true},
		{map[string]any{"expression": "resources.bundle.kind", "default": "x"}, false},
		{map[string]any{"expression": `resources.?bundle.?kind.orValue("")`}, false},
		{map[string]any{"expression": "has(resources.bundle)"}, false},
		{map[string]any{"expression": "toJson(resources)"}, false},
		{map[string]any{"expression": "cluster.name"}, false},
		// guarded: the same field is tested in the expression
		{map[string]any{"expression": `has(resources.bundle) ? resources.bundle.kind : ""`}, false},
		{map[string]any{"expression": `resources.?bundle.hasValue() ? resources.bundle.kind : ""`}, false},
		{map[string]any{"expression": `has(resources.other) ? resources.bundle.kind : ""`}, true},
	}
	for _, tt := range tests {
		l := configfile.NewErrorList("x.yaml")
		compileBuild(l, env, "post.payloads[0].build.x", tt.leaf)
		if len(l.Errs) > 0 {
			t.Fatalf("%v: %v", tt.leaf, l.Errs)
		}
		warned := len(l.Warns) == 1 && strings.Contains(l.Warns[0].Error(), "post.payloads[0].build.x") &&
			strings.Contains(l.Warns[0].Error(), "reads resources.bundle ") && strings.Contains(l.Warns[0].Error(), "null")
		if warned != tt.warn || len(l.Warns) > 1 {
			t.Errorf("%v: warnings %v, want a warning: %v", tt.leaf, l.Warns, tt.warn)
		}
	}
}
