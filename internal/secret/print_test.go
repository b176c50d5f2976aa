package secret

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"text/template"

	"gopkg.in/yaml.v3"
)

// A config-shaped struct holding every secret type, nested as configs
// nest them.
type holder struct {
	Token   String            `yaml:"token" json:"token"`
	URL     URL               `yaml:"url" json:"url"`
	Origins []URL             `yaml:"origins" json:"origins"`
	Headers Headers           `yaml:"headers" json:"headers"`
	Nested  *holder           `yaml:"nested,omitempty" json:"nested,omitempty"`
	ByName  map[string]String `yaml:"by_name" json:"by_name"`
}

func newHolder() *holder {
	h := &holder{
		Token:   NewString("S3CRET-token"),
		URL:     NewURL("amqp://user:S3CRET-pw@rabbit:5672/"),
		Origins: []URL{NewURL("https://S3CRET-user@h.example.com")},
		Headers: Headers{"Authorization": NewString("Bearer S3CRET-hdr"), "X-Api-Key": NewString("S3CRET-key")},
		ByName:  map[string]String{"k": NewString("S3CRET-map")},
	}
	h.Nested = &holder{Token: NewString("S3CRET-nested"), URL: NewURL("https://u:1234/S3CRET-nested@h/")}
	return h
}

// printed is every way Go code in this repository, or a library it calls,
// may turn a value into text.
func printed(t *testing.T, v any) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%p", "%10.3s", "%-8v", "%t", "%e"} {
		out[verb] = fmt.Sprintf(verb, v)
	}
	out["Sprint"] = fmt.Sprint(v)
	out["Sprintln"] = fmt.Sprintln(v, &v)
	out["reflect.Value"] = fmt.Sprintf("%v", reflect.ValueOf(v))
	err := fmt.Errorf("load: %w", errors.Join(fmt.Errorf("inner %v", v), errors.New("x")))
	out["error %w"] = fmt.Errorf("outer: %w", err).Error()
	js, jerr := json.Marshal(v)
	out["json"] = string(js) + fmt.Sprint(jerr)
	ys, yerr := yaml.Marshal(v)
	out["yaml"] = string(ys) + fmt.Sprint(yerr)
	xs, _ := xml.Marshal(v)
	out["xml"] = string(xs)
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("m", "v", v, slog.Group("g", "v", v))
	slog.New(slog.NewTextHandler(&logs, nil)).Info("m", "v", v, slog.Group("g", "v", v))
	out["slog"] = logs.String()
	var tb bytes.Buffer
	_ = template.Must(template.New("t").Parse("{{ . }} {{ printf \"%v\" . }}")).Execute(&tb, v)
	out["text/template"] = tb.String()
	return out
}

// Every printed form of the secret types, alone, in lists, maps, structs
// and pointers, is redacted.
func TestPrintedFormsRedact(t *testing.T) {
	h := newHolder()
	values := map[string]any{
		"String": h.Token, "*String": &h.Token, "URL": h.URL, "*URL": &h.URL, "[]URL": h.Origins,
		"Headers": h.Headers, "holder": *h, "*holder": h, "map[string]any": map[string]any{"h": h, "s": h.Token},
		"[]any": []any{h.Token, h.URL, h.Headers},
	}
	for name, v := range values {
		for form, text := range printed(t, v) {
			if strings.Contains(text, "S3CRET") {
				t.Errorf("%s printed with %s shows the secret:\n%s", name, form, text)
			}
		}
	}
	// The value is there for the one place that uses it.
	if h.Token.Reveal() != "S3CRET-token" || h.Headers.Reveal()["Authorization"] != "Bearer S3CRET-hdr" ||
		h.URL.Reveal() != "amqp://user:S3CRET-pw@rabbit:5672/" {
		t.Error("Reveal does not give the value back")
	}
	if got := fmt.Sprint(h.URL, " ", h.Headers); got != "amqp://user:REDACTED@rabbit:5672/ map[Authorization:REDACTED X-Api-Key:REDACTED]" {
		t.Errorf("printed %q: the non-secret parts should stay readable", got)
	}
	if got := fmt.Sprint(String{}, URL{}); got != " " {
		t.Errorf("empty secrets print %q, want empty", got)
	}
}

// Env and flag values decode as the YAML would: headers as Name=value
// pairs; an item that is not one is refused without its text.
func TestUnmarshalText(t *testing.T) {
	var h Headers
	if err := h.UnmarshalText([]byte("Authorization=Bearer a=b, X-T = t1 ,")); err != nil {
		t.Fatal(err)
	}
	if got := h.Reveal(); len(got) != 2 || got["Authorization"] != "Bearer a=b" || got["X-T"] != "t1" {
		t.Errorf("headers %v", got)
	}
	for _, bad := range []string{"Authorization: Bearer S3CRET", "X=1,Bearer S3CRET"} {
		err := h.UnmarshalText([]byte(bad))
		if err == nil || strings.Contains(err.Error(), "S3CRET") || strings.Contains(err.Error(), "Bearer") {
			t.Errorf("UnmarshalText(%q) = %v", bad, err)
		}
	}
	var u URL
	var s String
	_ = u.UnmarshalText([]byte("amqp://u:S3CRET@h/"))
	_ = s.UnmarshalText([]byte("S3CRET"))
	if u.Reveal() != "amqp://u:S3CRET@h/" || s.Reveal() != "S3CRET" {
		t.Errorf("UnmarshalText: %q %q", u.Reveal(), s.Reveal())
	}
}
