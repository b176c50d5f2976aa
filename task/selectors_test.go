package task

import (
	"context"
	"github.com/bundle-adapter/bundle-adapter/internal/configfile"
	"github.com/bundle-adapter/bundle-adapter/tmpl"
	"strings"
	"testing"
	"time"
)

// A label selector's keys are templates as its values are (as in
// hyperfleet-adapter), compiled in key order; a key that is empty or does
// not parse is an error naming the label.
func TestCompileSelectors(t *testing.T) {
	const path = "resources[0].discovery.by_selectors.label_selector"
	tests := []struct {
		name     string
		labels   map[string]string
		wantErrs []string          // substrings, each in one error
		want     map[string]string // rendered with data
	}{
		{"literal keys, templated values", map[string]string{"app": "probe", "cluster": "{{ .clusterId }}"}, nil,
			map[string]string{"app": "probe", "cluster": "c1"}},
		{"templated key", map[string]string{"hyperfleet.io/{{ .kind }}-id": "{{ .clusterId }}"}, nil,
			map[string]string{"hyperfleet.io/cluster-id": "c1"}},
		{"empty value", map[string]string{"app": ""}, nil, map[string]string{"app": ""}},
		{"key that does not parse", map[string]string{"{{ .kind ": "x"}, []string{path + ".{{ .kind  (key)"}, nil},
		{"value that does not parse", map[string]string{"app": "{{ .x "}, []string{path + ".app"}, nil},
		{"empty key", map[string]string{"": "x"}, []string{path + ". (key): label key is empty"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Selectors{LabelSelector: map[string]tmpl.Text{}}
			for k, v := range tt.labels {
				s.LabelSelector[k] = tmpl.Text{Src: v}
			}
			var l configfile.ErrorList
			compileSelectors(&l, s, path)
			err := l.Result()
			if len(tt.wantErrs) > 0 {
				if err == nil {
					t.Fatalf("no error, want %q", tt.wantErrs)
				}
				for _, w := range tt.wantErrs {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			prev := ""
			for i, lb := range s.Labels {
				if i > 0 && lb.Key.Src <= prev {
					t.Errorf("labels not sorted by key: %q after %q", lb.Key.Src, prev)
				}
				prev = lb.Key.Src
				got[renderLabel(t, lb.Key)] = renderLabel(t, lb.Value)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("rendered %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if g, ok := got[k]; !ok || g != v {
					t.Errorf("rendered %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func renderLabel(t *testing.T, x tmpl.Text) string {
	t.Helper()
	if x.T == nil {
		return ""
	}
	s, err := x.T.ExecuteContext(context.Background(), map[string]any{"clusterId": "c1", "kind": "cluster"}, time.Time{})
	if err != nil {
		t.Fatalf("render %s: %v", x.Path, err)
	}
	return s
}
