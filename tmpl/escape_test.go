package tmpl

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// Values printed into an api_call url are escaped for where they sit: one
// path segment, one query value; the leading value (a whole href) is left
// for the API client's checks.
func TestURLTemplateEscapesValues(t *testing.T) {
	tests := []struct {
		src, id, want, wantErr string
	}{
		{src: "/clusters/{{ .id }}/statuses", id: "c1", want: "/clusters/c1/statuses"},
		{src: "/clusters/{{ .id }}/statuses", id: "c1#", want: "/clusters/c1%23/statuses"},
		{src: "/clusters/{{ .id }}/statuses", id: "c1?x=", want: "/clusters/c1%3Fx=/statuses"},
		{src: "/clusters/{{ .id }}/statuses", id: "../../x", want: "/clusters/..%2F..%2Fx/statuses"},
		{src: "/clusters/{{ .id }}/statuses", id: "a\x00b", want: "/clusters/a%00b/statuses"},
		{src: "/clusters/{{ .id | upper }}", id: "a/b", want: "/clusters/A%2FB"},
		{src: "/clusters/{{ .id }}/statuses", id: "", wantErr: "the value is empty"},
		{src: "/clusters?search={{ .id }}&x=1", id: "a&b=c d", want: "/clusters?search=a%26b%3Dc+d&x=1"},
		{src: "/c/{{ if .id }}{{ .id }}{{ else }}none{{ end }}?q={{ .id }}", id: "a?b", want: "/c/a%3Fb?q=a%3Fb"},
		{src: "/c{{ range .list }}/{{ . }}{{ end }}", id: "x", want: "/c/a%2Fb/c%3F"},
		{src: "{{ .id }}", id: "https://h/x?y", want: "https://h/x?y"},
		{src: "{{ .id }}/statuses/{{ .id }}", id: "/clusters/c1", want: "/clusters/c1/statuses/%2Fclusters%2Fc1"},
		{src: "/c/{{ $v := .id }}{{ $v }}", id: "a/b", want: "/c/a%2Fb"},
		{src: "/c/{{ .list }}", id: "x", wantErr: "an object or list is not a URL value"},
		{src: "/c?q={{ .list }}", id: "x", wantErr: "an object or list is not a URL value"},
	}
	for _, tt := range tests {
		t.Run(tt.src+" "+tt.id, func(t *testing.T) {
			tp, err := ParseURL("url", tt.src)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tp.Execute(map[string]any{"id": tt.id, "list": []any{"a/b", "c?"}}, time.Time{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %q, %v; want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// Values printed into a JSON body can never change its structure: inside a
// string they stay in the string, elsewhere they must be one JSON value.
func TestJSONTemplateKeepsStructure(t *testing.T) {
	const injection = `", "observed_generation": 999, "x": "y`
	data := map[string]any{
		"name": injection, "status": `{"a": [1, 2]}`, "gen": int64(7), "obj": map[string]any{"k": "v"},
		"word": "abc", "partial": `1, "x": 2`, "ctl": "a\x00\n\"\\<",
	}
	tests := []struct {
		src, want, wantErr string
	}{
		{src: `{"a": "{{ .name }}"}`, want: `{"a":"\", \"observed_generation\": 999, \"x\": \"y"}`},
		{src: `{"a": "{{ .ctl }}"}`, want: `{"a":"a\u0000\n\"\\\u003c"}`},
		{src: `{{ .status }}`, want: `{"a":[1,2]}`},
		{src: `{"g": {{ .gen }}, "o": {{ .obj }}, "s": {{ .status }}}`, want: `{"g":7,"o":{"k":"v"},"s":{"a":[1,2]}}`},
		{src: `{"k-{{ .name }}": 1}`, want: `{"k-\", \"observed_generation\": 999, \"x\": \"y":1}`},
		{src: `{"a": {{ toJson .name }}}`, want: `{"a":"\", \"observed_generation\": 999, \"x\": \"y"}`},
		{src: `{"a": "x\"{{ .word }}"}`, want: `{"a":"x\"abc"}`},
		{src: `{"a": {{ .word }}}`, wantErr: "is not one JSON value"},
		{src: `{"a": "{{ .obj }}"}`, wantErr: "put it outside the quotes"},
		{src: `{"a": {{ .partial }}}`, wantErr: "is not one JSON value"},
		{src: `{{ if .gen }}{{ .status }},x{{ end }}`, wantErr: "body is not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			tp, err := ParseJSON("body", tt.src)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tp.Execute(data, time.Time{})
			if err == nil {
				err = ValidJSONBody([]byte(got))
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %q, %v; want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("got %q, %v", got, err)
			}
			var v any
			json.Unmarshal([]byte(got), &v)
			norm, _ := json.Marshal(v)
			if string(norm) != tt.want {
				t.Fatalf("got %s, want %s", norm, tt.want)
			}
		})
	}
}

// Templates whose values could not be escaped soundly fail at load.
func TestEscapedTemplatesRefusedAtLoad(t *testing.T) {
	tests := []struct {
		name, src, want string
		parse           func(string, string) (*Template, error)
	}{
		{"url fragment value", "/c/x#{{ .id }}", "'#'", ParseURL},
		{"url template call", `{{ define "x" }}{{ .id }}{{ end }}/c/{{ template "x" . }}`, "{{define}}", ParseURL},
		{"json literal not JSON", `{"a": 1`, "not valid JSON", ParseJSON},
		{"json unclosed string", `{"a": "{{ .id }}}`, "not closed", ParseJSON},
		{"json branch opens a string", `{"a": {{ if .x }}"{{ end }}1}`, "{{if}} branch", ParseJSON},
		{"json after backslash", `{"a": "\{{ .id }}"}`, "backslash", ParseJSON},
		{"json template call", `{{ template "x" . }}`, "{{template}}", ParseJSON},
		{"json text after a value", `{{ .status }},x`, "whatever the values", ParseJSON},
		{"json two values in a row", `{"a": {{ .x }} {{ .y }}}`, "whatever the values", ParseJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.parse("p", tt.src)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}
