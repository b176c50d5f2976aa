package tmpl

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"
)

// Whatever a value holds, a URL path value renders as exactly one segment
// that decodes back to the value (or fails the render), and a query value
// as exactly one query parameter value.
func FuzzURLTemplateValue(f *testing.F) {
	for _, s := range []string{"c1", "c1#", "c1?x=", "../../x", "a/b", "%2e%2e", "", "\x00", "é ü", "a b+c&d=e"} {
		f.Add(s)
	}
	tmpl, err := ParseURL("url", "/clusters/{{ .v }}/statuses?q={{ .v }}&r=1")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, v string) {
		out, err := tmpl.Execute(map[string]any{"v": v}, time.Time{})
		if err != nil {
			if v != "" {
				t.Fatalf("render of %q failed: %v", v, err)
			}
			return
		}
		u, err := url.Parse(out)
		if err != nil {
			t.Fatalf("%q rendered %q, which does not parse: %v", v, out, err)
		}
		segs := strings.Split(u.EscapedPath(), "/")
		if len(segs) != 4 || segs[1] != "clusters" || segs[3] != "statuses" {
			t.Fatalf("%q rendered path %q: not one segment", v, u.EscapedPath())
		}
		if got, err := url.PathUnescape(segs[2]); err != nil || got != v {
			t.Fatalf("%q rendered segment %q, which decodes to %q (%v)", v, segs[2], got, err)
		}
		q := u.Query()
		if len(q) != 2 || q.Get("q") != v || q.Get("r") != "1" || u.Fragment != "" {
			t.Fatalf("%q rendered query %q (fragment %q)", v, u.RawQuery, u.Fragment)
		}
	})
}

// Whatever the values hold, a JSON body template renders an object with
// exactly its own keys, the string value intact, or fails.
func FuzzJSONTemplateValue(f *testing.F) {
	for _, s := range []string{"n", `", "observed_generation": 999, "x": "y`, `\`, "\x00\n", `{"a": 1}`, "1, 2", "[]", "null", " 7 "} {
		f.Add(s, s)
	}
	tmpl, err := ParseJSON("body", `{"s": "pre-{{ .s }}", "v": {{ .v }}}`)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s, v string) {
		out, err := tmpl.Execute(map[string]any{"s": s, "v": v}, time.Time{})
		if err != nil {
			if json.Valid([]byte(v)) {
				t.Fatalf("render with a JSON value %q failed: %v", v, err)
			}
			return
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("rendered %q, not a JSON object: %v", out, err)
		}
		if len(m) != 2 || m["s"] != "pre-"+jsonRoundTrip(s) {
			t.Fatalf("s=%q v=%q rendered %s", s, v, out)
		}
	})
}

// jsonRoundTrip is s as encoding/json keeps it (invalid UTF-8 bytes become
// U+FFFD each).
func jsonRoundTrip(s string) string {
	b, _ := json.Marshal(s)
	var out string
	json.Unmarshal(b, &out)
	return out
}
